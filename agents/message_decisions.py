"""Approvals decided from a message (email, Slack, Microsoft Teams): the
Agents area's `ApprovalDecider` for the core's decision tokens
(dashboard/reach/decision_tokens.py). What a message says of an approval
comes from the inbox refresh's stored rows; the confirmation page shows
the queue's own card (its reading and partial, without the queue's form);
the decision goes through the one decision flow (agents/decisions.py) as
the token's person, with their own key and the token's Idempotency-Key,
its path named in the audit line ("from email")."""

from __future__ import annotations

from typing import Any

from agents import decisions, queue, selectors
from agents.pages import approval_row
from agents.reading import read_approval
from dashboard.accounts import step_up
from dashboard.keys.models import ApiKey
from dashboard.reach.decision_tokens import ApprovalPreview, ApprovalShown, Decided
from dashboard.reach.models import DecisionToken
from dashboard.web.reading import pretty_json

CARD = "agents/approvals.html#approval_row"
VIA = {
    "email": decisions.VIA_EMAIL,
    "slack": decisions.VIA_SLACK,
    "teams": decisions.VIA_TEAMS,
    "push": decisions.VIA_PUSH,
}


class AgentsApprovalDecider:
    def previews(self, *, workspace_id: str, approval_ids: list[str]) -> dict[str, ApprovalPreview]:
        wanted = set(approval_ids)
        return {
            approval["id"]: ApprovalPreview(
                approval_id=approval["id"],
                agent_id=approval["agent_id"],
                summary=approval["summary"],
                risk=approval["risk"],
                needs_confirmation=approval["needs_confirmation"],
                agent_name=approval["agent_name"],
                input_text=pretty_json(approval["input"]) if approval["input"] is not None else "",
            )
            for _, approval in queue.pending_stored(workspace_id=workspace_id)
            if approval["id"] in wanted
        }

    def shown(self, *, key: ApiKey, token: DecisionToken, session: Any = None) -> ApprovalShown | None:
        """The approval as the service has it now, as the queue's card (no form: the page has its own)."""
        found = selectors.approval_to_decide(
            client=key.client(), approval_id=token.approval_id, agent_id=token.agent_id or None
        )
        if found is None:
            return None
        approval = read_approval(found)
        names = queue.stored_agent_names(workspace_id=key.workspace_id)
        who = ""
        if approval["status"] != "pending":
            who = decisions.decider(workspace_id=key.workspace_id, approval_id=approval["id"], service_said=found)
        row = approval_row(approval, agent_names=names, may_decide=False, decided_by=who)
        words = decisions.already_words(status=approval["status"], who=who) if approval["status"] != "pending" else ""
        return ApprovalShown(
            status=approval["status"],
            summary=approval["summary"],
            needs_confirmation=approval["needs_confirmation"],
            template=CARD,
            context={"row": row, "workspace_zone": key.zone},
            words=words,
            step_up=step_up.step_up_needed(user=key.user, approval=approval, session=session)
            if approval["status"] == "pending"
            else "",
        )

    def decide(
        self, *, key: ApiKey, token: DecisionToken, decision: str, session: Any = None, code: str = ""
    ) -> Decided:
        asked = decisions.DecisionAsked(
            approval_id=token.approval_id,
            decision=decision,
            idempotency_key=token.idempotency_key,
            # The confirmation page showed the exact input and its own "Yes, approve exactly this".
            confirmed=True,
            agent_id=token.agent_id,
            agent_name=queue.stored_agent_names(workspace_id=key.workspace_id).get(token.agent_id, ""),
            via=VIA.get(token.via, decisions.VIA_EMAIL),
            # Step-up (dashboard/accounts/step_up.py): the page's session remembers a fresh code; the code typed beside the buttons.
            session=session,
            step_up_code=code,
        )
        decided = decisions.approval_decision(key=key, client=key.client(), asked=asked)
        if decided.outcome == decisions.DECIDED:
            return Decided(True, decided.decided, decided.words)
        if decided.outcome == decisions.WAITING:
            # The person's vote is counted under the workspace's rule: this link has done its part.
            return Decided(False, "", decided.tally or decided.words, final=True, counted=True)
        if decided.outcome == decisions.NEEDS_STEP_UP:
            return Decided(False, "", decided.words, final=False, needs_code=True)
        status = decided.approval["status"] if decided.approval else ""
        # Decided before, or gone: the token is spent. Anything else the flow refused before sending
        # (a confirmation, or whatever the flow asks first) leaves it usable for another try.
        final = decided.outcome in (decisions.ALREADY, decisions.GONE)
        return Decided(False, status if status in ("approved", "rejected") else "", decided.words, final=final)


DECIDER = AgentsApprovalDecider()
