"""The Agents and Approvals areas' tools of the console's MCP server
(dashboard/assistants): the waiting approvals (the console's database, as the
queue), a decision through the console's one decision flow (agents/decisions.py,
the queue's refusals and audit line "via token <name>"), an agent's runs and
one run (the run pages' one call each)."""

from __future__ import annotations

from typing import Any

from agents import decisions, queue, selectors
from agents.api import _approval as approval_shown
from agents.pages import decide_refusal
from dashboard.assistants.tools import AssistantTool, ToolCall, ToolRefusal, schema, text_argument
from dashboard.reach.selectors import claims_of
from dashboard.tokens.scopes import DECIDE, READ
from dashboard.web.reading import as_dict

RUNS_MOST = 50
DECISION_WORDS = {
    decisions.NEEDS_CONFIRMATION: "send confirmed: true once you have checked the exact input",
    decisions.NEEDS_STEP_UP: "send the person's current authenticator code as step_up_code",
}


def _approvals(call: ToolCall) -> dict[str, Any]:
    workspace_id = call.workspace.id
    approvals = [approval for _, approval in queue.pending_stored(workspace_id=workspace_id)]
    claims = claims_of(workspace_id=workspace_id, item_keys=[f"approval:{a['id']}" for a in approvals])
    return {"approvals": [approval_shown(a, claims.get(f"approval:{a['id']}")) for a in approvals]}


def _decide(call: ToolCall) -> dict[str, Any]:
    workspace = call.workspace
    refusal = decide_refusal(workspace=workspace, user=call.user)
    if refusal:
        raise ToolRefusal(refusal)
    decision = call.text("decision")
    if decision not in ("approve", "reject"):
        raise ToolRefusal("“decision” is approve or reject.")
    asked = decisions.DecisionAsked(
        approval_id=call.text("approval_id"),
        decision=decision,
        idempotency_key=call.idempotency_key,
        confirmed=call.arguments.get("confirmed") is True,
        note=call.text("note", required=False, limit=2000),
        via=call.via,
        step_up_code=call.text("step_up_code", required=False, limit=20),
    )
    decided = decisions.approval_decision(key=workspace.require_key(), client=workspace.client, asked=asked)
    if decided.outcome in DECISION_WORDS:
        raise ToolRefusal(f"{decided.words} Nothing was sent: {DECISION_WORDS[decided.outcome]}.")
    if decided.outcome not in (decisions.DECIDED, decisions.WAITING):
        raise ToolRefusal(f"{decided.words} Your decision was not sent.")
    return {
        "outcome": decided.outcome,
        "words": decided.tally or decided.words,
        "approval": approval_shown(decided.approval) if decided.approval else None,
    }


def _runs(call: ToolCall) -> dict[str, Any]:
    page = selectors.run_list(
        client=call.workspace.client,
        agent_id=call.text("agent_id"),
        status=call.text("status", required=False, limit=40) or None,
        cursor=call.text("cursor", required=False, limit=500) or None,
        limit=call.number("limit", default=20, most=RUNS_MOST),
    )
    return {"runs": page.items, "next_cursor": page.next_cursor}


def _run(call: ToolCall) -> dict[str, Any]:
    return as_dict(selectors.run_get(client=call.workspace.client, run_id=call.text("run_id")))


AGENT_TOOLS = (
    AssistantTool(
        name="runs_list",
        title="An agent's runs",
        description="One page of an agent's runs, newest first (the runs page's one call); `next_cursor` for more.",
        scope=READ,
        run=_runs,
        input_schema=schema(
            {
                "agent_id": text_argument("The agent's id."),
                "status": text_argument("Only runs in this status (running, waiting, succeeded, failed...).", limit=40),
                "cursor": text_argument("`next_cursor` of the page before.", limit=500),
                "limit": {"type": "integer", "minimum": 1, "maximum": RUNS_MOST, "default": 20},
            },
            required=("agent_id",),
        ),
    ),
    AssistantTool(
        name="run_get",
        title="Read a run",
        description="One run with its steps.",
        scope=READ,
        run=_run,
        input_schema=schema({"run_id": text_argument("The run's id.")}, required=("run_id",)),
    ),
)
APPROVAL_TOOLS = (
    AssistantTool(
        name="approvals_list",
        title="Waiting approvals",
        description="The workspace's approvals waiting for a decision, as the console last read them (no service "
        "call), with who claimed each.",
        scope=READ,
        run=_approvals,
    ),
    AssistantTool(
        name="approval_decide",
        title="Decide an approval",
        description="Approve or reject an agent's approval through the console's decision flow (the workspace's "
        "rules, quorum and confirmations apply), as the token's person.",
        scope=DECIDE,
        run=_decide,
        writes=True,
        write_explanation="Ask a workspace admin for a role that may write.",
        describe=lambda arguments: (
            f"{str(arguments.get('decision', '')).capitalize()} the approval {arguments.get('approval_id')}"
        ),
        input_schema=schema(
            {
                "approval_id": text_argument("The approval's id."),
                "decision": {"type": "string", "enum": ["approve", "reject"]},
                "note": text_argument("Why (kept in the audit trail).", limit=2000),
                "confirmed": {"type": "boolean", "description": "A destructive or spend action: you checked it."},
                "step_up_code": text_argument(
                    "The person's current authenticator code (destructive or spend).", limit=20
                ),
            },
            required=("approval_id", "decision"),
        ),
    ),
)
