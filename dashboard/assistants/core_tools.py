"""The core's own tools: the inbox (everything waiting for the person) and
the state of a held request. The console's database only: no service call."""

from __future__ import annotations

from typing import Any

from dashboard.assistants.answers import request_outcome
from dashboard.assistants.models import AssistantRequest
from dashboard.assistants.tools import AssistantTool, ToolCall, ToolRefusal, schema
from dashboard.inbox.selectors import inbox_item_record, inbox_items
from dashboard.inbox.sources import InboxViewer
from dashboard.tokens.scopes import READ


def _inbox(call: ToolCall) -> dict[str, Any]:
    viewer = InboxViewer(user=call.user, workspace_id=call.workspace.id)
    return {"items": [inbox_item_record(item) for item in inbox_items(viewer=viewer)]}


def _request_status(call: ToolCall) -> dict[str, Any]:
    value = call.arguments.get("request_id")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolRefusal("“request_id” is the number a held call answered with.")
    row = (
        AssistantRequest.objects.select_related("decided_by")
        .filter(pk=value, user=call.user, workspace_id=call.workspace.id)
        .first()
    )
    if row is None:
        raise ToolRefusal(f"No request {value} of yours in this workspace.")
    return request_outcome(row).data


INBOX_TOOL = AssistantTool(
    name="inbox_list",
    title="What waits for me",
    description="Everything waiting for the token's person in its workspace: approvals, questions, failed work "
    "(as the console last read them; no service call).",
    scope=READ,
    run=_inbox,
)
REQUEST_STATUS_TOOL = AssistantTool(
    name="assistant_request_status",
    title="A held request's state",
    description="The state of a write that waits for a person's approval (the request_id a held call answered "
    "with): waiting, rejected, approved, done (with its result) or failed (with why).",
    scope=READ,
    run=_request_status,
    input_schema=schema({"request_id": {"type": "integer", "minimum": 1}}, required=("request_id",)),
)
CORE_TOOLS = (INBOX_TOOL, REQUEST_STATUS_TOOL)
