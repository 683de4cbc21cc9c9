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

Before the call, the workspace's rules, whatever the path (a bulk item, a
message's confirmation page and a deadline included): an approve of a
destructive or spend action needs a fresh second factor (dashboard/accounts/step_up.py:
the asked decision carries the session and, once asked, the code); under an
Administrator's `ApprovalRule` (agents/quorum.py) the person must be allowed
to approve, must not have started the run, and their vote is counted: the
service is called once, by the vote that meets the quorum (or a reject,
which vetoes), with that vote's Idempotency-Key.

Errors other than a 409 are the caller's to word (a view shows the remote
error in place; a bulk step waits or stops by its rule).
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_noop

from agents import queue, quorum, selectors, services
from agents.events import approval_decided
from agents.reading import CONFIRM_RISKS, read_approval
from dashboard.accounts import step_up
from dashboard.api import ServiceClient, errors
from dashboard.audit.services import audit_console_write, audit_decision_note
from dashboard.keys.models import ApiKey
from dashboard.people.backends import may_in, role_label
from dashboard.people.roles import DECIDE_APPROVALS
from dashboard.web.reading import as_dict, as_list, text

# What the outcome of one asked decision is.
DECIDED = "decided"
ALREADY = "already"  # the service refused it: decided before (409)
GONE = "gone"  # the service lists the approval nowhere: nothing was sent
NEEDS_CONFIRMATION = "needs-confirmation"  # a destructive or spend approve without its confirmation: nothing sent
NEEDS_STEP_UP = "needs-step-up"  # a destructive or spend approve without a fresh second factor: nothing sent
NO_SECOND_FACTOR = "no-second-factor"  # the same, from a person who has none: they cannot approve it
NEEDS_PASSKEY = "needs-passkey"  # the same, from a person whose factor is a passkey: confirm with it first
REFUSED = "refused"  # the workspace's rule does not let this person approve it: nothing sent
WAITING = "waiting"  # the vote is counted; the rule needs more approvals: nothing sent

# Which path decided (kept in the audit entry's details; the line names it after the fact).
VIA_ONE = ""
VIA_BULK = "bulk"
VIA_REINSTRUCT = "re-instruct"
VIA_DEADLINE = "deadline"
# A message's Approve / Reject (agents/message_decisions.py), after its confirmation page or Slack button.
VIA_EMAIL, VIA_SLACK, VIA_TEAMS, VIA_PUSH = "email", "slack", "teams", "push"
# English: the event a decision sends keeps these words; the audit page
# translates them when it shows them (agents/audit_words.py).
VIA_WORDS = {
    VIA_BULK: gettext_noop("in a bulk decision"),
    VIA_REINSTRUCT: gettext_noop("to send a corrected instruction"),
    VIA_DEADLINE: gettext_noop("by the console, not a person"),
    VIA_EMAIL: gettext_noop("from email"),
    VIA_SLACK: gettext_noop("from Slack"),
    VIA_TEAMS: gettext_noop("from Teams"),
    VIA_PUSH: gettext_noop("from a phone's notification"),
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
    # Where a fresh second factor is remembered (a Django session; None: a path without one, e.g. a worker).
    session: Any = field(default=None, compare=False, repr=False)
    step_up_code: str = field(default="", repr=False)  # the code the step-up asked for, when given


@dataclass
class DecisionOutcome:
    outcome: str  # DECIDED, ALREADY, GONE or NEEDS_CONFIRMATION
    approval: dict[str, Any] | None = None  # as read again (ALREADY: as the service has it now, if it lists it)
    run: Any = None  # the resumed run, read again (or the answer's outcome)
    words: str = ""  # ALREADY: "Already decided by Dana (approved)"; a refusal's reason; DECIDED: the audit line
    risk: str = ""  # the service's word for the approval's risk, when read
    tally: str = ""  # under a rule: "1 of 2 approved: Dana; waiting for one more", "Approved by Dana and Sam, 2 of 2"
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


def _step_up(key: ApiKey, asked: DecisionAsked, risk: str) -> DecisionOutcome | None:
    """An approve of a destructive or spend action without a fresh second
    factor: asked for (or refused), nothing sent; None when it may go."""
    user = key.user
    needed = step_up.step_up_needed(user=user, approval=risk, session=asked.session)
    if needed == step_up.SET_UP:
        return DecisionOutcome(NO_SECOND_FACTOR, words=step_up.set_up_words(), risk=risk)
    if needed == step_up.PASSKEY:
        return DecisionOutcome(NEEDS_PASSKEY, words=step_up.passkey_words(risk), risk=risk)
    if needed == step_up.CODE:
        if not asked.step_up_code.strip():
            return DecisionOutcome(NEEDS_STEP_UP, words=step_up.FIELD_WORDS.format(risk=risk), risk=risk)
        refused = step_up.step_up_verify(user=user, code=asked.step_up_code, session=asked.session)
        if refused:
            return DecisionOutcome(NEEDS_STEP_UP, words=refused, risk=risk)
    return None


def _vote_audit(key: ApiKey, asked: DecisionAsked, *, summary: str, words: str, risk: str, agent_id: str) -> None:
    """A vote that sent nothing (the rule waits for more), in the trail."""
    audit_console_write(
        actor=key.user,
        workspace_id=key.workspace_id,
        key=key,
        area="approvals",
        action="approval.vote",
        path=f"/approvals/{asked.approval_id}/decide",
        summary=f"Voted to {asked.decision}: {summary or 'an action'} ({words})",
        details={
            "decision": asked.decision,
            "approval_id": asked.approval_id,
            "agent_id": agent_id,
            "risk": risk,
            "via": asked.via,
        },
    )


def decider_refusal(key: ApiKey, asked: DecisionAsked) -> str:
    """Who may decide, asked once more whatever the path (a page's guard, a
    message's token, an assistant, a bulk step in a task): the person's role
    in the approval's workspace, the key's (roles differ per workspace, and
    a path outside a request has no workspace of its own). A deadline's
    outcome is the workspace's rule, not a person's decision."""
    if asked.via == VIA_DEADLINE:
        return ""
    person = key.user
    if may_in(person, DECIDE_APPROVALS, key.workspace_id):
        return ""
    return f"Your console role in this workspace ({role_label(person, key.workspace_id)}) does not decide approvals."


def _count_vote(
    key: ApiKey, client: ServiceClient, asked: DecisionAsked, *, current: dict[str, Any] | None, risk: str
) -> tuple[DecisionAsked, quorum.Vote | None, DecisionOutcome | None]:
    """Under a rule: the person's vote counted (the tally row locked). Gives
    the decision to send (with the key of the vote that met the quorum), the
    vote, or the outcome when nothing is to be sent (refused, waiting, closed)."""
    agent_id = asked.agent_id or (current["agent_id"] if current else "")
    workspace_id = key.workspace_id
    if asked.via == VIA_DEADLINE:
        needed = 1  # claimed by the deadline (agents/deadline_outcomes.py): its vote resends the claimed key
    elif asked.decision == "approve":
        rule = quorum.rule_for(workspace_id=workspace_id, agent_id=agent_id, risk=risk)
        if rule is None:
            return asked, None, None
        if current is None:
            # Its risk was read by the caller (a bulk step): its run, for who started it, is read now.
            found = selectors.approval_to_decide(
                client=client, approval_id=asked.approval_id, agent_id=agent_id or None
            )
            if found is None:
                return asked, None, DecisionOutcome(GONE, words=GONE_WORDS)
            current = read_approval(found)
        refusal = quorum.approve_refusal(
            rule=rule, user=key.user, workspace_id=workspace_id, run_id=current["run_id"] if current else ""
        )
        if refusal:
            return asked, None, DecisionOutcome(REFUSED, approval=current, words=refusal, risk=risk)
        needed = rule.approvals_needed
    elif quorum.tally_exists(workspace_id=workspace_id, approval_id=asked.approval_id):
        needed = 1  # the tally is there: its own count stands
    else:
        return asked, None, None  # a reject with no votes counted: refusing is always safe to send
    vote = quorum.tally_vote(
        needed=needed,
        workspace_id=workspace_id,
        approval_id=asked.approval_id,
        agent_id=agent_id,
        risk=risk,
        user=key.user,
        decision=asked.decision,
        idempotency_key=asked.idempotency_key,
        via=asked.via,
    )
    summary = (current["summary"] if current else "") or asked.summary
    if vote.result == quorum.WAITING:
        if not vote.again:
            _vote_audit(key, asked, summary=summary, words=vote.words, risk=risk, agent_id=agent_id)
        words = vote.words + (" (you approved already)" if vote.again else "")
        return asked, vote, DecisionOutcome(WAITING, approval=current, words=words, risk=risk, tally=vote.words)
    if vote.result == quorum.CLOSED:
        words = f"Already decided: {vote.words[0].lower()}{vote.words[1:]}"
        return asked, vote, DecisionOutcome(ALREADY, approval=current, words=words, risk=risk, tally=vote.words)
    return dataclasses.replace(asked, idempotency_key=vote.key), vote, None


def approval_decision(
    *, key: ApiKey, client: ServiceClient, asked: DecisionAsked, risk_read: str | None = None, read_again: bool = True
) -> DecisionOutcome:
    """Decide one approval (the flow in this module's docstring). `risk_read`:
    the service's risk word for it, when the caller has just read it (then
    no read before the approve). `read_again`: read the approval and its run
    after the decision (a bulk step leaves that to the pages).

    Raises the service's error for anything but a 409."""
    refusal = decider_refusal(key, asked)
    if refusal:
        return DecisionOutcome(REFUSED, words=refusal)
    risk = risk_read or ""
    current: dict[str, Any] | None = None
    if asked.decision == "approve" and risk_read is None:
        # A reject needs no read first: refusing an action is always safe to send.
        found = selectors.approval_to_decide(
            client=client, approval_id=asked.approval_id, agent_id=asked.agent_id or None
        )
        if found is None:
            return DecisionOutcome(GONE, words=GONE_WORDS)
        current = read_approval(found)
        risk = current["risk"]
    if asked.decision == "approve" and risk in CONFIRM_RISKS and not asked.confirmed:
        return DecisionOutcome(
            NEEDS_CONFIRMATION,
            words=f"This {risk} action needs a confirmation: use “Approve…” and check the exact input first.",
            risk=risk,
        )
    if asked.decision == "approve" and risk in step_up.step_up_risks():
        stepped = _step_up(key, asked, risk)
        if stepped is not None:
            return stepped
    asked, vote, counted = _count_vote(key, client, asked, current=current, risk=risk)
    if counted is not None:
        return counted
    try:
        answer = services.approval_decide(
            client=client,
            approval_id=asked.approval_id,
            decision=asked.decision,
            always=asked.always,
            idempotency_key=asked.idempotency_key,
        )
    except errors.ConflictError as exc:
        if vote is not None:
            quorum.tally_decided(vote.tally)
        return _refused(client, key, asked, exc, risk=risk)
    tally = ""
    if vote is not None:
        quorum.tally_decided(vote.tally)
        tally = vote.words
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
    if asked.via == VIA_DEADLINE:
        words = f"{quorum.deadline_words(asked.decision)}: {approval['summary'] or asked.summary}"
    _audit(
        asked,
        summary=(f"{words} ({tally})" if tally and vote is not None and vote.tally.needed > 1 else words)[:300],
        # The service's word for it: read before an approve, re-read after a reject.
        risk=risk or approval["risk"],
        agent_id=asked.agent_id or approval["agent_id"],
        extra={"tally": tally} if tally else {},
    )
    approval_decided(
        workspace_id=key.workspace_id,
        approval={**approval, "id": approval["id"] or asked.approval_id},
        decision=asked.decision,
        decided_by=key.user.get_username(),
        via=via_words(asked.via) or "in the console",
        note=asked.note.strip(),
        agent_name=asked.agent_name,
    )
    return DecisionOutcome(DECIDED, approval=approval, run=run, words=words, risk=risk or approval["risk"], tally=tally)
