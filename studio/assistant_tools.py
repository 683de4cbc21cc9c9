"""The Studio area's tools of the console's MCP server (dashboard/assistants):
the workspace's recent conversations (the console's tracked rows, no service
call), one page of a library list (the library page's one call), and a new
turn (the Studio home's start, studio/services.py): it spends credits, so by
the workspace's policy it always waits for an Approver."""

from __future__ import annotations

from typing import Any

from dashboard.assistants.tools import AssistantTool, ToolCall, ToolRefusal, schema, text_argument
from dashboard.tokens.scopes import READ, WRITE_STUDIO
from dashboard.web.pager import CursorPager
from studio.forms import MESSAGE_MAX_LENGTH, READ_ONLY, STUDIO_LABELS
from studio.library import KINDS, library_page
from studio.selectors import conversations_recent
from studio.services import turn_start

CONVERSATIONS_MOST = 50


def _conversations(call: ToolCall) -> dict[str, Any]:
    found = conversations_recent(
        workspace_id=call.workspace.id, limit=call.number("limit", default=20, most=CONVERSATIONS_MOST)
    )
    return {
        "conversations": [
            {
                "turn_id": summary.latest.op.remote_id,
                "studio": summary.studio,
                "status": summary.latest.op.status,
                "turns": summary.turn_count,
                "started_by": summary.started_by,
                "last_activity": summary.latest.op.created_at.isoformat(),
                "artifact": {
                    key: summary.artifact.get(key) for key in ("id", "name", "type") if key in summary.artifact
                },
                "path": summary.latest.page_url,
            }
            for summary in found
        ]
    }


def _items(call: ToolCall) -> dict[str, Any]:
    slug = call.text("kind", limit=20)
    kind = KINDS.get(slug)
    if kind is None:
        raise ToolRefusal(f"“kind” is one of {', '.join(KINDS)}.")
    items, cursor = library_page(
        client=call.workspace.client,
        kind=kind,
        pager=CursorPager(cursor=call.text("cursor", required=False, limit=500)),
        board_id=call.text("board_id", required=False),
    )
    shown = [{**item, "updated": item["updated"].isoformat() if item.get("updated") else None} for item in items]
    return {"items": shown, "next_cursor": cursor}


def _turn(call: ToolCall) -> dict[str, Any]:
    studio = call.text("studio", limit=20)
    if studio not in MESSAGE_MAX_LENGTH:
        raise ToolRefusal(f"“studio” is one of {', '.join(MESSAGE_MAX_LENGTH)}.")
    message = str(call.arguments.get("message") or "").strip()
    if not message or len(message) > MESSAGE_MAX_LENGTH[studio]:
        raise ToolRefusal(f"“message” is needed, at most {MESSAGE_MAX_LENGTH[studio]:,} characters for {studio}.")
    op = turn_start(
        key=call.workspace.require_key(), studio=studio, message=message, idempotency_key=call.idempotency_key
    )
    return {"turn_id": op.remote_id, "studio": studio, "status": op.status}


STUDIO_TOOLS = (
    AssistantTool(
        name="studio_conversations_list",
        title="Studio conversations",
        description="The workspace's latest Studio conversations, each with its latest turn and artifact "
        "(the console's own rows; no service call).",
        scope=READ,
        run=_conversations,
        input_schema=schema({"limit": {"type": "integer", "minimum": 1, "maximum": CONVERSATIONS_MOST, "default": 20}}),
    ),
    AssistantTool(
        name="studio_items_list",
        title="Studio library",
        description="One page of a library list (websites, documents, apps, boards, images, videos); "
        "`next_cursor` for the next.",
        scope=READ,
        run=_items,
        input_schema=schema(
            {
                "kind": {"type": "string", "enum": list(KINDS)},
                "cursor": text_argument("`next_cursor` of the page before.", limit=500),
                "board_id": text_argument("Images of one board only (kind images)."),
            },
            required=("kind",),
        ),
    ),
    AssistantTool(
        name="studio_turn_start",
        title="Start a Studio turn",
        description="Send a message to a studio's director (a new conversation): the turn is followed by the "
        "console and listed in studio_conversations_list.",
        scope=WRITE_STUDIO,
        run=_turn,
        writes=True,
        write_explanation=READ_ONLY,
        needs_person="A Studio turn spends credits: it always waits for an Approver (the workspace's policy).",
        spends=True,
        describe=lambda arguments: (
            f"Start a {STUDIO_LABELS.get(str(arguments.get('studio')), 'Studio')} turn: "
            f"“{str(arguments.get('message', ''))[:200]}”"
        ),
        input_schema=schema(
            {
                "studio": {"type": "string", "enum": list(MESSAGE_MAX_LENGTH)},
                "message": {"type": "string", "minLength": 1, "maxLength": max(MESSAGE_MAX_LENGTH.values())},
            },
            required=("studio", "message"),
        ),
    ),
)
