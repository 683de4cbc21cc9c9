"""The Objects area's tools of the console's MCP server (dashboard/assistants):
records listed, read, created, changed and deleted through the same services
as the record pages. A read is the page's one call; a delete moves the record
to the trash first (restorable) and, by the workspace's policy, always waits
for an Approver (dashboard/assistants/policy.py)."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict

from dashboard.assistants.tools import AssistantTool, ToolCall, ToolRefusal, schema, text_argument
from dashboard.tokens.scopes import READ, WRITE_OBJECTS
from dashboard.web.reading import as_dict
from objects import computed, services
from objects.access_reads import record_read, record_seen_or_hidden, write_refused
from objects.fields import field_defs
from objects.records import READ_ONLY, object_definition, records_read
from objects.trash import record_delete_to_trash

OBJECT = text_argument("The object's key, as in its address (/objects/<key>/).", limit=100)
RECORD = text_argument("The record's id.")
VALUES = {"type": "object", "description": "Field keys and their values (null clears a field)."}
LIST_LIMIT = 50


def _list(call: ToolCall) -> dict[str, Any]:
    """The records table's own read: the object's access policy applies as on its pages;
    the computed columns' values beside the service's (`computed`, said as the console's)."""
    workspace, object_key = call.workspace, call.text("object", limit=100)
    query = QueryDict(mutable=True)
    query.update(
        {
            "q": call.text("search", required=False) or "",
            "cursor": call.text("cursor", required=False, limit=500) or "",
            "limit": str(call.number("limit", default=25, most=LIST_LIMIT)),
        }
    )
    page = records_read(workspace=workspace, object_key=object_key, query=query).page
    shown = computed.records_with_computed(workspace=workspace, object_key=object_key, records=page.items)
    return {**shown, "next_cursor": page.next_cursor}


def _get(call: ToolCall) -> dict[str, Any]:
    workspace, object_key = call.workspace, call.text("object", limit=100)
    record = as_dict(record_read(workspace=workspace, object_key=object_key, record_id=call.text("record_id")))
    return computed.record_with_computed(workspace=workspace, object_key=object_key, record=record)


def _writable(workspace: Any, object_key: str, values: dict[str, Any]) -> None:
    refusal = write_refused(workspace=workspace, object_key=object_key, keys=values)
    if refusal:
        raise ToolRefusal(refusal)


def _create(call: ToolCall) -> dict[str, Any]:
    workspace = call.workspace
    object_key = call.text("object", limit=100)
    definition = object_definition(workspace=workspace, object_key=object_key)
    _writable(workspace, object_key, call.mapping("values"))
    created = services.record_create(
        client=workspace.client,
        object_key=object_key,
        values=call.mapping("values"),
        idempotency_key=call.idempotency_key,
        user=call.user,
        workspace_id=workspace.id,
        fields=field_defs(definition),
    )
    return as_dict(created)


def _update(call: ToolCall) -> dict[str, Any]:
    """Only the keys that differ from the record as it is now are sent (the page's rule), into its history."""
    workspace = call.workspace
    object_key, record_id = call.text("object", limit=100), call.text("record_id")
    values = call.mapping("values")
    definition = object_definition(workspace=workspace, object_key=object_key)
    _writable(workspace, object_key, values)
    current = as_dict(
        as_dict(record_read(workspace=workspace, object_key=object_key, record_id=record_id)).get("values")
    )
    changes = {key: value for key, value in values.items() if current.get(key) != value}
    if not changes:
        return {"id": record_id, "changed": [], "words": "Nothing to change: the record already has these values."}
    updated = services.record_update(
        client=workspace.client,
        object_key=object_key,
        record_id=record_id,
        changes=changes,
        idempotency_key=call.idempotency_key,
        user=call.user,
        workspace_id=workspace.id,
        before={key: current.get(key) for key in changes},
        fields=field_defs(definition),
    )
    return {**as_dict(updated), "changed": sorted(changes)}


def _delete(call: ToolCall) -> dict[str, Any]:
    workspace = call.workspace
    object_key, record_id = call.text("object", limit=100), call.text("record_id")
    record_seen_or_hidden(workspace=workspace, object_key=object_key, record_id=record_id)
    definition = object_definition(workspace=workspace, object_key=object_key)
    kept = record_delete_to_trash(
        client=workspace.client,
        workspace_id=workspace.id,
        object_key=object_key,
        record_id=record_id,
        idempotency_key=call.idempotency_key,
        definition=definition,
        user=call.user,
    )
    return {"deleted": record_id, "title": kept.title, "words": f"“{kept.title}” moved to the trash (restorable)."}


def _described(verb: str):
    def describe(arguments: dict[str, Any]) -> str:
        record = f" {arguments.get('record_id')}" if arguments.get("record_id") else ""
        values = f": {', '.join(sorted(as_dict(arguments.get('values'))))}" if arguments.get("values") else ""
        return f"{verb} record{record} of {arguments.get('object')}{values}"

    return describe


RECORD_TOOLS = (
    AssistantTool(
        name="records_list",
        title="List records",
        description=(
            "One page of an object's records (the records page's one call); `next_cursor` for the next. Each"
            " record's `computed` holds the console's computed columns (`computed_columns`): not the service's fields."
        ),
        scope=READ,
        run=_list,
        input_schema=schema(
            {
                "object": OBJECT,
                "search": text_argument("Words the records contain (the service's search)."),
                "cursor": text_argument("`next_cursor` of the page before.", limit=500),
                "limit": {"type": "integer", "minimum": 1, "maximum": LIST_LIMIT, "default": 25},
            },
            required=("object",),
        ),
    ),
    AssistantTool(
        name="record_get",
        title="Read a record",
        description="One record with all its values, and its computed columns' under `computed` (the console's).",
        scope=READ,
        run=_get,
        input_schema=schema({"object": OBJECT, "record_id": RECORD}, required=("object", "record_id")),
    ),
    AssistantTool(
        name="record_create",
        title="Create a record",
        description="A new record of an object, in its history as the token's person.",
        scope=WRITE_OBJECTS,
        run=_create,
        writes=True,
        write_explanation=READ_ONLY,
        describe=_described("Create a"),
        input_schema=schema({"object": OBJECT, "values": VALUES}, required=("object", "values")),
    ),
    AssistantTool(
        name="record_update",
        title="Change a record",
        description="Change some values of a record: only what differs from it now is sent, into its history.",
        scope=WRITE_OBJECTS,
        run=_update,
        writes=True,
        write_explanation=READ_ONLY,
        describe=_described("Change"),
        input_schema=schema(
            {"object": OBJECT, "record_id": RECORD, "values": VALUES}, required=("object", "record_id", "values")
        ),
    ),
    AssistantTool(
        name="record_delete",
        title="Delete a record",
        description="Move a record to the trash (restorable) and delete it and its links from the service.",
        scope=WRITE_OBJECTS,
        run=_delete,
        writes=True,
        write_explanation=READ_ONLY,
        needs_person="Deleting a record always waits for an Approver (the workspace's policy).",
        destructive=True,
        describe=_described("Delete"),
        input_schema=schema({"object": OBJECT, "record_id": RECORD}, required=("object", "record_id")),
    ),
)
