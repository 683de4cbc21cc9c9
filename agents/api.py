"""The approvals part of the console's API (dashboard/console_api): the
workspace's waiting approvals as the console stores them (no service call),
and a decision through the console's one decision flow (agents/decisions.py):
the same refusals as the queue, the same audit line, named "via token <name>"."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from ninja import Router, Schema

from agents import decisions, queue
from agents.pages import decide_refusal
from dashboard.console_api.api import ApiRefusal, require_idempotency_key, require_scope, via_token
from dashboard.reach.selectors import claims_of
from dashboard.tokens.scopes import DECIDE, READ

router = Router(tags=["approvals"])


def _approval(approval: dict[str, Any], claim: Any = None) -> dict[str, Any]:
    return {
        "id": approval["id"],
        "summary": approval["summary"],
        "risk": approval["risk"],
        "agent_id": approval["agent_id"],
        "agent_name": approval["agent_name"],
        "run_id": approval["run_id"],
        "status": approval["status"],
        "requested_at": approval["requested_at"].isoformat() if approval.get("requested_at") else None,
        "input": approval["input"],
        "needs_confirmation": approval["needs_confirmation"],
        "claimed_by": claim.user.get_username() if claim is not None else None,
    }


@router.get("/approvals", summary="Approvals waiting in the token's workspace (as the console last read them)")
def approvals_waiting(request: HttpRequest) -> dict[str, Any]:
    require_scope(request, READ)
    workspace_id = request.workspace.id  # type: ignore[attr-defined]
    approvals = [approval for _, approval in queue.pending_stored(workspace_id=workspace_id)]
    claims = claims_of(workspace_id=workspace_id, item_keys=[f"approval:{a['id']}" for a in approvals])
    return {"data": [_approval(a, claims.get(f"approval:{a['id']}")) for a in approvals]}


class DecisionIn(Schema):
    decision: Literal["approve", "reject"]
    note: str = ""
    # A destructive or spend action: the caller says it checked the exact input (as the queue's "Approve…").
    confirmed: bool = False
    always: bool = False
    # A destructive or spend approve asks for a fresh second factor (dashboard/accounts/step_up.py): the person's
    # current authenticator code, sent with this decision (a token has no session to remember one in).
    step_up_code: str = ""


@router.post(
    "/approvals/{remote_id:approval_id}/decision", summary="Approve or reject, through the console's decision flow"
)
def approval_decide(request: HttpRequest, approval_id: str, body: DecisionIn) -> dict[str, Any]:
    require_scope(request, DECIDE)
    refusal = decide_refusal(workspace=request.workspace, user=request.user)  # type: ignore[attr-defined,arg-type]
    if refusal:
        raise ApiRefusal(403, "decide_refused", refusal)
    key_header = require_idempotency_key(request, one_per="decision")
    if len(body.note) > 2000:
        raise ApiRefusal(422, "note_too_long", "A note is at most 2,000 characters: nothing was sent.")
    workspace = request.workspace  # type: ignore[attr-defined]
    asked = decisions.DecisionAsked(
        approval_id=approval_id,
        decision=body.decision,
        idempotency_key=key_header,
        always=body.always,
        confirmed=body.confirmed,
        note=body.note,
        via=via_token(request),
        step_up_code=body.step_up_code,
    )
    decided = decisions.approval_decision(key=workspace.require_key(), client=workspace.client, asked=asked)
    if decided.outcome == decisions.GONE:
        raise ApiRefusal(404, "approval_gone", decided.words)
    if decided.outcome == decisions.NEEDS_CONFIRMATION:
        raise ApiRefusal(409, "needs_confirmation", decided.words.replace("use “Approve…”", "send confirmed: true"))
    if decided.outcome == decisions.ALREADY:
        raise ApiRefusal(409, "already_decided", f"{decided.words}: your decision was not sent.")
    if decided.outcome == decisions.NEEDS_STEP_UP:
        raise ApiRefusal(403, "step_up_required", f"{decided.words} Send it as step_up_code with the decision.")
    if decided.outcome == decisions.NO_SECOND_FACTOR:
        raise ApiRefusal(403, "no_second_factor", decided.words)
    if decided.outcome == decisions.NEEDS_PASSKEY:
        # A passkey answers in a browser only: the person approves there (or rejects here).
        raise ApiRefusal(403, "step_up_passkey", f"{decided.words} Approve it in the console in a browser.")
    if decided.outcome == decisions.REFUSED:
        raise ApiRefusal(403, "rule_refused", decided.words)
    approval = _approval(decided.approval) if decided.approval else None
    if decided.outcome == decisions.WAITING:
        # The vote is counted; the workspace's rule waits for more approvals: nothing was sent yet.
        return {"outcome": "waiting", "words": decided.tally or decided.words, "approval": approval}
    return {"outcome": "decided", "words": decided.words, "tally": decided.tally or None, "approval": approval}
