"""When nobody answers: an Administrator's rule (`ApprovalRule.at_deadline`,
per agent and risk) decides an approval still pending past its deadline
(agents/deadlines.py). "Escalate only" leaves it to the core's escalation
(dashboard/reach); "Reject" rejects it; "Approve" approves it, but never a
destructive or spend action (the form refuses that rule, and this module
skips one that got in anyway).

Applied once: a worker claims the approval's tally by a conditional UPDATE
(agents/quorum.py `deadline_claim`), so two workers sweeping at the same
moment send one decision; its Idempotency-Key is derived from the approval,
the same on every try. A call that fails opens the tally again, and the
next sweep tries again with that key (the service replays a decision it
took). The decision goes through the one decision flow (via "deadline"),
with a working key of the workspace: the rule's author's, else any, and
says in the audit trail "Rejected at its deadline by the console's policy".
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime

from django.utils import timezone

from agents import queue
from agents.deadlines import approval_due_at, deadline_overrides
from agents.decisions import VIA_DEADLINE, DecisionAsked, approval_decision
from agents.models import ApprovalRule, ApprovalTally
from agents.quorum import deadline_claim
from agents.reading import CONFIRM_RISKS
from dashboard.api import errors
from dashboard.keys.models import ApiKey
from dashboard.keys.selectors import workspace_working_keys

logger = logging.getLogger("agents.deadline_outcomes")

DEADLINE_KEYS = uuid.UUID("6f1d7a52-3c1e-4d55-9a57-1c5b8f0e2d41")


def deadline_key(*, workspace_id: str, approval_id: str) -> str:
    """The one Idempotency-Key of an approval's deadline decision."""
    return str(uuid.uuid5(DEADLINE_KEYS, f"{workspace_id}:{approval_id}"))


def _key_for(workspace_id: str, rule: ApprovalRule) -> ApiKey | None:
    keys = workspace_working_keys(workspace_id=workspace_id)
    return next((key for key in keys if key.user_id == rule.set_by_id), keys[0] if keys else None)


def _rules(workspace_id: str) -> dict[tuple[str, str], ApprovalRule]:
    return {(rule.agent_id, rule.risk): rule for rule in ApprovalRule.objects.filter(workspace_id=workspace_id)}


def deadline_outcome_apply(*, workspace_id: str, approval: dict, rule: ApprovalRule) -> str:
    """Decide one overdue approval by its rule, once: the outcome's word
    ("decided", "already", ...), or "" when this worker did not claim it."""
    decision = rule.at_deadline
    if decision == ApprovalRule.APPROVE and approval["risk"] in CONFIRM_RISKS:
        logger.warning("deadline: a rule approving %s actions is never applied", approval["risk"])
        return ""
    key = _key_for(workspace_id, rule)
    if key is None:
        return ""  # no working key in the workspace: nothing can decide; the escalation still goes
    idempotency_key = deadline_key(workspace_id=workspace_id, approval_id=approval["id"])
    claimed = deadline_claim(
        workspace_id=workspace_id,
        approval_id=approval["id"],
        agent_id=approval["agent_id"],
        risk=approval["risk"],
        decision=decision,
        key=idempotency_key,
    )
    if not claimed:
        return ""
    asked = DecisionAsked(
        approval_id=approval["id"],
        decision=decision,
        idempotency_key=idempotency_key,
        agent_id=approval["agent_id"],
        agent_name=approval["agent_name"],
        summary=approval["summary"],
        via=VIA_DEADLINE,
    )
    try:
        decided = approval_decision(key=key, client=key.client(), asked=asked, read_again=False)
    except errors.ApiError:
        # Open again: the next sweep tries with the same key (the service replays one it took).
        ApprovalTally.objects.filter(
            workspace_id=workspace_id, approval_id=approval["id"], decision_key=idempotency_key
        ).update(state=ApprovalTally.OPEN, decided_by="", decision="", decision_key="")
        logger.warning("deadline: deciding approval %s failed; tried again on the next sweep", approval["id"])
        return ""
    return decided.outcome


def deadline_outcomes_due(*, now: datetime | None = None) -> int:
    """The sweep (beat): every kept pending approval past its deadline whose
    rule decides at the deadline, decided once. Returns how many it decided."""
    now = now or timezone.now()
    done = 0
    deciding = ApprovalRule.objects.exclude(at_deadline=ApprovalRule.ESCALATE)
    for workspace_id in sorted(set(deciding.values_list("workspace_id", flat=True))):
        rules = _rules(workspace_id)
        overrides = deadline_overrides(workspace_id=workspace_id)
        for _, approval in queue.pending_stored(workspace_id=workspace_id):
            rule = rules.get((approval["agent_id"], approval["risk"])) or rules.get(("", approval["risk"]))
            if rule is None or rule.at_deadline == ApprovalRule.ESCALATE:
                continue
            due = approval_due_at(
                requested_at=approval["requested_at"],
                agent_id=approval["agent_id"],
                risk=approval["risk"],
                overrides=overrides,
            )
            if due is None or due > now:
                continue
            if deadline_outcome_apply(workspace_id=workspace_id, approval=approval, rule=rule):
                done += 1
    return done
