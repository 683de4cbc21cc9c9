"""One decision on one approval, whichever path asks for it: the queue's
card and its keys (j/k/a/r press the card's buttons), the run page, the
inbox, a bulk decision's item and "Reject and re-instruct".

The flow, once:

1. an approve reads the approval first (its risk at the service, never a
   form's word, says whether it needs its confirmation; one the service no
   longer lists is not sent) unless the caller read the service's word
   already (a bulk decision reads every item at its start);
2. the call, with the one Idempotency-Key of this logical decision (the
   caller keeps it and gives it again on a retry, so the service replays);
3. a 409 in words: "Already decided by Dana (approved)", naming the console
   person who decided when the console knows it (its audit trail), else who
   the service says, else nobody;
4. the approval and its run read again (the answer's shape is open);
5. the decided run's row polled soon, so a page following it moves;
6. the audit line, in words that are the same whatever path decided.

Errors other than a 409 are the caller's to word (a view shows the remote
error in place; a bulk step waits or stops by its rule).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from agents import queue, selectors, services
from agents.reading import CONFIRM_RISKS, read_approval
from dashboard.api import ServiceClient, errors
from dashboard.audit.services import audit_decision_note
from dashboard.keys.models import ApiKey
from dashboard.web.reading import as_dict, as_list, text

# What the outcome of one asked decision is.
DECIDED = "decided"
ALREADY = "already"  # the service refused it: decided before (409)
GONE = "gone"  # the service lists the approval nowhere: nothing was sent
NEEDS_CONFIRMATION = "needs-confirmation"  # a destructive or spend approve without its confirmation: nothing sent

# Which path decided (kept in the audit entry's details; the line names it after the fact).
VIA_ONE = ""
VIA_BULK = "bulk"
VIA_REINSTRUCT = "re-instruct"
# A message's Approve / Reject (agents/message_decisions.py), after its confirmation page or Slack button.
VIA_EMAIL, VIA_SLACK, VIA_TEAMS = "email", "slack", "teams"
VIA_WORDS = {
    VIA_BULK: "in a bulk decision",
    VIA_REINSTRUCT: "to send a corrected instruction",
    VIA_EMAIL: "from email",
    VIA_SLACK: "from Slack",
    VIA_TEAMS: "from Teams",
}


def via_words(via: str) -> str:
    """The path of a decision, in words, for its audit line ("" for the card)."""
    if via.startswith("token "):
        return f"via {via}"  # a personal access token, by its name (the console API)
    return VIA_WORDS.get(via, "")


GONE_WORDS = (
    "The service no longer lists this approval (decided elsewhere, or removed): nothing was sent. "
    "Reload the page to see it as it is now."
)


@dataclass(frozen=True)
class DecisionAsked:
    """One logical decision as a person asked for it."""

    approval_id: str
    decision: str  # "approve" or "reject"
    idempotency_key: str  # one per logical decision, the same on every retry
    always: bool = False  # approve, and let the agent take this kind of action without asking again
    confirmed: bool = False  # the person pressed the confirmation's own button (destructive, spend)
    note: str = ""
    agent_id: str = ""
    agent_name: str = ""  # display only (the contract's approval has no name)
    summary: str = ""  # what the caller showed, for the audit line when nothing is read again
    via: str = VIA_ONE
    batch_uid: str = ""  # a bulk decision's (its audit entries are found by it)


@dataclass
class DecisionOutcome:
    outcome: str  # DECIDED, ALREADY, GONE or NEEDS_CONFIRMATION
    approval: dict[str, Any] | None = None  # as read again (ALREADY: as the service has it now, if it lists it)
    run: Any = None  # the resumed run, read again (or the answer's outcome)
    words: str = ""  # ALREADY: "Already decided by Dana (approved)"; a refusal's reason; DECIDED: the audit line
    risk: str = ""  # the service's word for the approval's risk, when read
    conflict: errors.ConflictError | None = field(default=None, repr=False)

    @property
    def decided(self) -> str:
        """ "approved" / "rejected" (DECIDED only)."""
        return self.approval["status"] if self.approval else ""


def decision_words(*, decision: str, always: bool, summary: str) -> str:
    """The audit line of a decision the service accepted: "Approved: Send the
    welcome email", the same from every path (the path is said after it)."""
    verb = "Rejected" if decision == "reject" else "Always allowed" if always else "Approved"
    return f"{verb}: {summary or 'an action'}"


def already_words(*, status: str, who: str) -> str:
    """A second decision refused (409), in the one phrasing every path uses:
    "Already decided by Dana (approved)", "Already decided (rejected)",
    "Already decided"."""
    words = "Already decided" + (f" by {who}" if who else "")
    return f"{words} ({status})" if status in ("approved", "rejected") else words


def tried_words(asked: DecisionAsked, summary: str, already: str) -> str:
    """The audit line of a refused decision: "Tried to approve “…”: already decided by Dana (approved)"."""
    tried = "always allow" if asked.always else asked.decision
    return f"Tried to {tried} “{summary or 'an action'}”: {already[0].lower()}{already[1:]}"


def decider(*, workspace_id: str, approval_id: str, service_said: Any = None) -> str:
    """Who decided an approval: the console person whose decision the service
    accepted (the audit trail) when the console knows it, else the service's
    word (its key's owner, which may not be the person)."""
    return queue.deciders(workspace_id=workspace_id, approval_ids=[approval_id]).get(
        approval_id, ""
    ) or queue.decided_by_service(service_said)


def _conflict_status(exc: errors.ConflictError, current: dict[str, Any] | None) -> str:
    details = as_dict(exc.details)
    said = text(next(iter(as_list(details.get("status"))), "")) or text(details.get("status"))
    return said or (current["status"] if current else "")


def _audit(asked: DecisionAsked, *, summary: str, risk: str, agent_id: str, extra: dict[str, Any]) -> None:
    details: dict[str, Any] = {
        "decision": asked.decision,
        "always": asked.always,
        "risk": risk,
        "approval_id": asked.approval_id,
        "agent_id": agent_id,
        "agent_name": asked.agent_name[:200],
        **extra,
    }
    if asked.via:
        details["via"] = asked.via
    if asked.batch_uid:
        details["bulk"] = asked.batch_uid
    audit_decision_note(
        idempotency_key=asked.idempotency_key, summary=summary, note=asked.note.strip(), details=details
    )


def _read_again(client: ServiceClient, asked: DecisionAsked, answer: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """The approval and its run as they are now: the answer has an open
    shape, so the page shows what a re-read knows."""
    try:
        current = selectors.approval_find(client=client, approval_id=asked.approval_id, agent_id=asked.agent_id or None)
    except errors.ApiError:
        current = None
    answered = as_dict(answer.get("approval"))
    if current is not None and read_approval(current)["status"] == "pending" and answered:
        current = None  # a list not caught up yet: the answer's approval is newer
    approval = read_approval(current or answered or {"id": asked.approval_id, "summary": asked.summary})
    if approval["status"] == "pending":
        # An answer without the approval and a list not caught up: the
        # decision just made is its status; the rest (summary, input) stands.
        approval["status"] = "approved" if asked.decision == "approve" else "rejected"
        approval["always"] = asked.always
    outcome: Any = answer.get("outcome")
    run_id = approval["run_id"] or text(as_dict(outcome).get("id"))
    if run_id:
        # The decision stands whatever this read does; on failure the answer's outcome is what we know.
        with contextlib.suppress(errors.ApiError):
            outcome = selectors.run_get(client=client, run_id=run_id)
    return approval, outcome


def _refused(
    client: ServiceClient, key: ApiKey, asked: DecisionAsked, exc: errors.ConflictError, *, risk: str
) -> DecisionOutcome:
    """The 409: the approval as the service has it now (one read, tolerated
    to fail), who decided it, and the audit line."""
    try:
        found = selectors.approval_find(client=client, approval_id=asked.approval_id, agent_id=asked.agent_id or None)
    except errors.ApiError:
        found = None
    current = read_approval(found) if found is not None else None
    who = decider(workspace_id=key.workspace_id, approval_id=asked.approval_id, service_said=exc.details) or (
        queue.decided_by_service(current["raw"]) if current else ""
    )
    already = already_words(status=_conflict_status(exc, current), who=who)
    summary = (current["summary"] if current else "") or asked.summary
    _audit(
        asked,
        summary=tried_words(asked, summary, already)[:300],
        risk=risk or (current["risk"] if current else ""),
        agent_id=asked.agent_id or (current["agent_id"] if current else ""),
        extra={"outcome": already},
    )
    return DecisionOutcome(ALREADY, approval=current, words=already, risk=risk, conflict=exc)


def approval_decision(
    *, key: ApiKey, client: ServiceClient, asked: DecisionAsked, risk_read: str | None = None, read_again: bool = True
) -> DecisionOutcome:
    """Decide one approval (the flow in this module's docstring). `risk_read`:
    the service's risk word for it, when the caller has just read it (then
    no read before the approve). `read_again`: read the approval and its run
    after the decision (a bulk step leaves that to the pages).

    Raises the service's error for anything but a 409."""
    risk = risk_read or ""
    if asked.decision == "approve" and risk_read is None:
        # A reject needs no read first: refusing an action is always safe to send.
        current = selectors.approval_to_decide(
            client=client, approval_id=asked.approval_id, agent_id=asked.agent_id or None
        )
        if current is None:
            return DecisionOutcome(GONE, words=GONE_WORDS)
        risk = read_approval(current)["risk"]
    if asked.decision == "approve" and risk in CONFIRM_RISKS and not asked.confirmed:
        return DecisionOutcome(
            NEEDS_CONFIRMATION,
            words=f"This {risk} action needs a confirmation: use “Approve…” and check the exact input first.",
            risk=risk,
        )
    try:
        answer = services.approval_decide(
            client=client,
            approval_id=asked.approval_id,
            decision=asked.decision,
            always=asked.always,
            idempotency_key=asked.idempotency_key,
        )
    except errors.ConflictError as exc:
        return _refused(client, key, asked, exc, risk=risk)
    if read_again:
        approval, run = _read_again(client, asked, as_dict(answer))
    else:
        approval = read_approval(
            {
                "id": asked.approval_id,
                "summary": asked.summary,
                "agent_id": asked.agent_id,
                "risk": risk,
                "status": "approved" if asked.decision == "approve" else "rejected",
                "always": asked.always,
            }
        )
        run = as_dict(answer).get("outcome")
    services.run_poll_soon(key=key, run_id=approval["run_id"])
    words = decision_words(decision=asked.decision, always=asked.always, summary=approval["summary"] or asked.summary)
    _audit(
        asked,
        summary=words[:300],
        # The service's word for it: read before an approve, re-read after a reject.
        risk=risk or approval["risk"],
        agent_id=asked.agent_id or approval["agent_id"],
        extra={},
    )
    return DecisionOutcome(DECIDED, approval=approval, run=run, words=words, risk=risk or approval["risk"])
