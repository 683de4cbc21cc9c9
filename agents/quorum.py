"""Quorum and separation of duties, as workspace policy (`ApprovalRule`, set
by Administrators per agent and risk): how many approvals an approval needs
(M of N), who may give one (console roles, named people), whether the person
whose action started the run may, and what happens at the deadline
(agents/deadline_outcomes.py).

Votes are the console's own (`ApprovalVote`); the service hears of them only
once, when the quorum is met or a rejection vetoes. Every vote locks its
approval's `ApprovalTally` row (SELECT ... FOR UPDATE), so two approvers
clicking at the same moment on two processes are counted one after the
other, and only the vote that completes the quorum claims the decision
(state OPEN -> SENDING, with the one Idempotency-Key the service will see; a
retry after a failed call sends it again with the same key, so the service
replays). The deadline claims the same row by a conditional UPDATE.

Who started a run is known when it was started through the console (a chat
message or a rerun whose run it is: tracked invocations); otherwise the
console says it does not know and does not block.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import translation
from django.utils.translation import gettext, gettext_lazy, ngettext

from agents.live import INVOCATION_KIND
from agents.models import ApprovalRule, ApprovalTally, ApprovalVote
from dashboard.live.models import TrackedOperation
from dashboard.people.backends import role_of

APPROVE = "approve"
REJECT = "reject"

# What one vote came to.
WAITING = "waiting"  # counted; more approvals are needed: nothing sent
SEND = "send"  # this vote met the quorum (or vetoes): send `key` to the service
CLOSED = "closed"  # the tally was decided or claimed before this vote: nothing sent


def rule_for(*, workspace_id: str, agent_id: str, risk: str) -> ApprovalRule | None:
    """The rule of this agent's approvals of this risk: the agent's own, else
    the one for every agent, else None (one approval by any Approver)."""
    rules = {
        rule.agent_id: rule
        for rule in ApprovalRule.objects.filter(workspace_id=workspace_id, risk=risk, agent_id__in=[agent_id, ""])
    }
    return rules.get(agent_id) or rules.get("")


def run_starter(*, workspace_id: str, run_id: str) -> Any:
    """The console person whose action started run `run_id`: the chat
    message (or rerun) sent from the console whose run it is (a tracked
    invocation: its run id learnt from the answer or its stream), or None:
    unknown (started by the API, a webhook, a schedule). A row that only
    follows a run (`agents.run`: someone opened its page) says nothing of who started it."""
    if not run_id:
        return None
    rows = TrackedOperation.objects.select_related("started_by").filter(
        owner_key__workspace_id=workspace_id, kind=INVOCATION_KIND
    )
    op = (
        rows.filter(context__run_id=run_id).order_by("created_at", "id").first()
        or rows.filter(snapshot__run_id=run_id).order_by("created_at", "id").first()
    )
    return op.started_by if op is not None else None


def _name(user: Any) -> str:
    return (user.get_full_name() or user.get_username()) if user is not None else ""


# The roles as a group of people ("Administrators, or dana").
ROLE_GROUPS = {
    "viewer": gettext_lazy("Viewers"),
    "member": gettext_lazy("Members"),
    "approver": gettext_lazy("Approvers"),
    "auditor": gettext_lazy("Auditors"),
    "administrator": gettext_lazy("Administrators"),
}

# Stored words (an audit summary) are English, for operators, whoever's language made them.
STORED_LANGUAGE = "en"


def may_approve_words(rule: ApprovalRule) -> str:
    """Who may approve under a rule, in words: "Administrators, or dana"."""
    from django.contrib.auth import get_user_model

    roles = ", ".join(str(ROLE_GROUPS.get(role, role)) for role in rule.approver_roles)
    people = ", ".join(
        sorted(_name(user) for user in get_user_model().objects.filter(pk__in=[int(pk) for pk in rule.approver_ids]))
    )
    if roles and people:
        return gettext("%(roles)s, or %(people)s") % {"roles": roles, "people": people}
    return roles or people


def approve_refusal(*, rule: ApprovalRule, user: Any, workspace_id: str, run_id: str) -> str:
    """Why this person may not approve under `rule` ("" when they may)."""
    if rule.approver_roles or rule.approver_ids:
        allowed = role_of(user, workspace_id) in rule.approver_roles or user.pk in {int(pk) for pk in rule.approver_ids}
        if not allowed:
            return f"This workspace's policy lets only {may_approve_words(rule)} approve these actions."
    if not rule.starter_may_approve:
        starter = run_starter(workspace_id=workspace_id, run_id=run_id)
        if starter is not None and starter.pk == user.pk:
            return "You started this run: by this workspace's policy someone else must approve it."
    return ""


@dataclass
class Vote:
    result: str  # WAITING, SEND or CLOSED
    tally: ApprovalTally
    approvers: list[str] = field(default_factory=list)  # who approved so far, in order
    key: str = ""  # SEND: the one decision's Idempotency-Key
    decision: str = ""  # SEND / CLOSED: what was (or is being) decided
    again: bool = False  # this person had voted before (a retry, or a second click)

    @property
    def words(self) -> str:
        return tally_words(self.tally, self.approvers)


def _tally_locked(*, workspace_id: str, approval_id: str, agent_id: str, risk: str, needed: int) -> ApprovalTally:
    """The approval's tally, made if missing, locked for this transaction."""
    try:
        with transaction.atomic():
            ApprovalTally.objects.get_or_create(
                workspace_id=workspace_id,
                approval_id=approval_id,
                defaults={"agent_id": agent_id, "risk": risk, "needed": needed},
            )
    except IntegrityError:
        pass  # made at the same moment by another process: it is there now
    return ApprovalTally.objects.select_for_update().get(workspace_id=workspace_id, approval_id=approval_id)


def approvers_of(tally: ApprovalTally) -> list[str]:
    return [vote.username for vote in tally.votes.all() if vote.decision == APPROVE]


def tally_exists(*, workspace_id: str, approval_id: str) -> bool:
    return ApprovalTally.objects.filter(workspace_id=workspace_id, approval_id=approval_id).exists()


def tally_vote(
    *,
    needed: int,
    workspace_id: str,
    approval_id: str,
    agent_id: str,
    risk: str,
    user: Any,
    decision: str,
    idempotency_key: str,
    via: str = "",
) -> Vote:
    """Count one person's approve or reject (one transaction, the tally row
    locked): an approve that meets the quorum claims the decision with its
    key; a reject vetoes (claims a reject) while the tally is open; a vote on
    a claimed tally is refused (CLOSED), except the claimer's own retry, which
    sends the claimed key again."""
    with transaction.atomic():
        tally = _tally_locked(
            workspace_id=workspace_id,
            approval_id=approval_id,
            agent_id=agent_id,
            risk=risk,
            needed=max(1, needed),
        )
        mine = tally.votes.filter(user_id=user.pk).first()
        if tally.state != ApprovalTally.OPEN:
            resend = tally.state == ApprovalTally.SENDING and tally.decision_key == idempotency_key
            return Vote(
                SEND if resend else CLOSED,
                tally,
                approvers_of(tally),
                key=tally.decision_key if resend else "",
                decision=tally.decision,
                again=mine is not None,
            )
        if mine is None:
            ApprovalVote.objects.create(
                tally=tally, user=user, username=_name(user)[:150], decision=decision, via=via[:32]
            )
        elif mine.decision != decision:
            # Approved first, now rejects: the rejection is what this person says now (it vetoes).
            mine.decision = decision
            mine.save(update_fields=["decision"])
        approvers = approvers_of(tally)
        if decision == REJECT or len(approvers) >= tally.needed:
            tally.state, tally.decision = ApprovalTally.SENDING, decision
            tally.decided_by, tally.decision_key = ApprovalTally.BY_VOTES, idempotency_key
            tally.save(update_fields=["state", "decision", "decided_by", "decision_key", "updated_at"])
            return Vote(SEND, tally, approvers, key=idempotency_key, decision=decision, again=mine is not None)
        return Vote(WAITING, tally, approvers, again=mine is not None)


def tally_decided(tally: ApprovalTally) -> None:
    """The service took the claimed decision (or said it was decided before)."""
    ApprovalTally.objects.filter(pk=tally.pk).update(state=ApprovalTally.DECIDED)
    tally.state = ApprovalTally.DECIDED


def deadline_claim(*, workspace_id: str, approval_id: str, agent_id: str, risk: str, decision: str, key: str) -> bool:
    """Claim the deadline's decision of one approval: True for the one process
    whose conditional UPDATE found the tally still open (two workers sweeping
    at once: the other gets False and sends nothing)."""
    ApprovalTally.objects.get_or_create(
        workspace_id=workspace_id, approval_id=approval_id, defaults={"agent_id": agent_id, "risk": risk}
    )
    claimed = ApprovalTally.objects.filter(
        workspace_id=workspace_id, approval_id=approval_id, state=ApprovalTally.OPEN
    ).update(state=ApprovalTally.SENDING, decision=decision, decided_by=ApprovalTally.BY_DEADLINE, decision_key=key)
    return claimed == 1


def deadline_words(decision: str) -> str:
    verb = "Approved" if decision == APPROVE else "Rejected"
    return f"{verb} at its deadline by the console's policy"


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def tally_words(tally: ApprovalTally, approvers: list[str] | None = None) -> str:
    """What the card says: "1 of 2 approved: Dana; waiting for one more",
    "Approved by Dana and Sam, 2 of 2", "Rejected by Sam (a rejection vetoes)",
    "Rejected at its deadline by the console's policy"."""
    approvers = approvers_of(tally) if approvers is None else approvers
    if tally.decided_by == ApprovalTally.BY_DEADLINE:
        return deadline_words(tally.decision)
    if tally.state != ApprovalTally.OPEN and tally.decision == REJECT:
        rejecters = [vote.username for vote in tally.votes.all() if vote.decision == REJECT]
        return f"Rejected by {_and(rejecters) if rejecters else 'a person'}" + (
            " (a rejection vetoes)" if tally.needed > 1 else ""
        )
    if tally.state != ApprovalTally.OPEN and tally.decision == APPROVE:
        return f"Approved by {_and(approvers)}, {len(approvers)} of {tally.needed}"
    if not approvers:
        return f"Needs {tally.needed} approvals"
    left = tally.needed - len(approvers)
    more = "one more" if left == 1 else f"{left} more"
    return f"{len(approvers)} of {tally.needed} approved: {_and(approvers)}; waiting for {more}"


def tallies_words(*, workspace_id: str, approval_ids: list[str]) -> dict[str, str]:
    """Approval id -> its tally in words, for a page of cards (two queries)."""
    if not approval_ids:
        return {}
    tallies = ApprovalTally.objects.filter(workspace_id=workspace_id, approval_id__in=approval_ids).prefetch_related(
        "votes"
    )
    return {tally.approval_id: tally_words(tally) for tally in tallies if tally.votes.all() or tally.decided_by}


def card_words(*, workspace_id: str, approval: dict[str, Any]) -> str:
    """What an approval's card says of its rule: the tally when votes were
    counted, else (pending, under a rule) what it needs: "Needs 2 approvals
    (Administrators, or Dana); not by the person who started the run (the
    console does not know who started it)"."""
    approval_id = str(approval.get("id") or "")
    said = tallies_words(workspace_id=workspace_id, approval_ids=[approval_id]).get(approval_id, "")
    if said or approval.get("status") != "pending":
        return said
    rule = rule_for(
        workspace_id=workspace_id, agent_id=str(approval.get("agent_id") or ""), risk=str(approval.get("risk") or "")
    )
    if rule is None:
        return ""
    needed = max(1, rule.approvals_needed)
    who = may_approve_words(rule)
    if who:
        first = ngettext("Needs %(count)s approval (%(who)s)", "Needs %(count)s approvals (%(who)s)", needed) % {
            "count": needed,
            "who": who,
        }
    else:
        first = ngettext("Needs %(count)s approval", "Needs %(count)s approvals", needed) % {"count": needed}
    parts = [first]
    if not rule.starter_may_approve:
        starter = run_starter(workspace_id=workspace_id, run_id=str(approval.get("run_id") or ""))
        parts.append(
            gettext("not by %(name)s, who started the run") % {"name": _name(starter)}
            if starter is not None
            else gettext("not by the person who started the run (the console does not know who started it)")
        )
    return "; ".join(parts)


# --- the rules, as Administrators set them ----------------------------------------------


def rule_set(*, workspace_id: str, key: Any, user: Any, agent_name: str, data: dict[str, Any]) -> ApprovalRule:
    """An Administrator's rule saved (made, or changed in place), audited."""
    from dashboard.audit.services import audit_console_write

    rule, _ = ApprovalRule.objects.update_or_create(
        workspace_id=workspace_id,
        agent_id=data["agent_id"] or "",
        risk=data["risk"],
        defaults={
            "agent_name": agent_name[:200],
            "approvals_needed": data["approvals_needed"],
            "approver_roles": sorted(data["approver_roles"]),
            "approver_ids": sorted(int(pk) for pk in data["approver_ids"]),
            "starter_may_approve": data["starter_may_approve"],
            "at_deadline": data["at_deadline"],
            "set_by": user,
        },
    )
    audit_console_write(
        actor=user,
        workspace_id=workspace_id,
        key=key,
        area="approvals",
        action="approval.rule",
        path="/agents/rules/",
        summary=f"Set the rule of {rule.risk} approvals of {agent_name or 'every agent'}: {rule_stored_words(rule)}",
        details={"agent_id": rule.agent_id, "risk": rule.risk, "rule_id": rule.pk},
    )
    return rule


def rule_remove(*, workspace_id: str, key: Any, user: Any, rule_id: int) -> bool:
    from dashboard.audit.services import audit_console_write

    rule = ApprovalRule.objects.filter(workspace_id=workspace_id, pk=rule_id).first()
    if rule is None:
        return False
    rule.delete()
    audit_console_write(
        actor=user,
        workspace_id=workspace_id,
        key=key,
        area="approvals",
        action="approval.rule_removed",
        path="/agents/rules/",
        summary=f"Removed the rule of {rule.risk} approvals of {rule.agent_name or 'every agent'}",
        details={"agent_id": rule.agent_id, "risk": rule.risk},
    )
    return True


def rule_words(rule: ApprovalRule) -> str:
    """A rule in one line, in the reader's language: "2 approvals
    (Administrators); not by who started the run; rejected at the deadline"."""
    needed = max(1, rule.approvals_needed)
    who = may_approve_words(rule)
    if who:
        first = ngettext("%(count)s approval (%(who)s)", "%(count)s approvals (%(who)s)", needed) % {
            "count": needed,
            "who": who,
        }
    else:
        first = ngettext("%(count)s approval", "%(count)s approvals", needed) % {"count": needed}
    starter = (
        gettext("the run's starter may approve") if rule.starter_may_approve else gettext("not by who started the run")
    )
    deadline = {
        ApprovalRule.REJECT: gettext("rejected at the deadline"),
        ApprovalRule.APPROVE: gettext("approved at the deadline"),
    }.get(rule.at_deadline) or gettext("escalated at the deadline")
    return "; ".join((first, starter, deadline))


def rule_stored_words(rule: ApprovalRule) -> str:
    """The rule in one line as an audit summary stores it: English, for operators."""
    with translation.override(STORED_LANGUAGE):
        return rule_words(rule)
