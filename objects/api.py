"""Records in the console's API (dashboard/console_api), through the
console's safe edits, as the records pages write them:

- the list is the records table's read (objects/records.py `records_read`:
  the same search, filters, sort, page size and cursor; the definition
  cached, then one page), a record is `records.record_read` (both as the object's access policy lets the person see them);
- a create is `services.record_create` (in the record's history); an edit
  is planned by objects/edits.py against the values the caller last read
  (`shown`): only what it changed is sent, and a field someone else changed
  meanwhile (differently) is a 409 with both values, never a lost update;
- a delete keeps the record in the trash first (objects/trash.py), a
  restore and an undo of a job (objects/job_undo.py) are jobs of the one
  job engine, followed at `GET /objects/jobs/{id}`.

Reads need the scope `read`; writes the pages' write guard (in the pages'
words) and `write:objects`, before any remote call. Every write needs an
Idempotency-Key, reused on retry: the service's key for a record write, the
job's uid (derived per person) for a restore or an undo."""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, JsonResponse
from ninja import Router, Schema, Status

from dashboard.api import errors
from dashboard.console_api.api import (
    ApiRefusal,
    require_idempotency_key,
    require_scope,
    require_write,
)
from dashboard.tokens.scopes import READ, WRITE_OBJECTS
from dashboard.web.api_answers import api_error
from dashboard.web.reading import as_dict
from objects import computed, job_undo, services, trash
from objects.access_reads import record_read, record_seen_or_hidden, write_refused
from objects.edits import plan_edit
from objects.fields import FieldDef, field_defs
from objects.forms import RESERVED_NAMES
from objects.models import ObjectJob
from objects.records import READ_ONLY, object_definition, records_read

router = Router(tags=["records"])

TRASH_LISTED = 200  # rows one answer lists, as the trash page shows


def _workspace(request: HttpRequest) -> Any:
    return request.workspace  # type: ignore[attr-defined]


def _writing(request: HttpRequest, *, one_per: str = "write") -> str:
    """The pages' write guard first (a console role or a workspace key that only reads is told what the
    records pages tell it, in their words), then the token's scope, then the write's key: all before
    any remote call."""
    require_write(request, READ_ONLY)
    require_scope(request, WRITE_OBJECTS)
    return require_idempotency_key(request, one_per=one_per)


def _job_uid(request: HttpRequest, key: str) -> uuid.UUID:
    """A job's uid from the caller's Idempotency-Key: the same on a retry, never another person's."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"console-api/{request.user.pk}/{key}")


def _record_fields(definition: dict) -> list[FieldDef]:
    """The fields a record form edits (the object's, without the form's own names)."""
    return [f for f in field_defs(definition) if f.key not in RESERVED_NAMES]


def _known_values(values: dict[str, Any], fields: list[FieldDef], definition: dict) -> None:
    unknown = sorted(set(values) - {f.key for f in fields})
    if unknown:
        name = definition.get("plural_name") or definition.get("key") or "this object"
        raise ApiRefusal(
            422, "unknown_field", f"{name} has no field {', '.join(unknown)}: nothing was sent (see its definition)."
        )


def _writable(workspace: Any, object_key: str, values: dict[str, Any]) -> None:
    refusal = write_refused(workspace=workspace, object_key=object_key, keys=values)
    if refusal:
        raise ApiRefusal(403, "read_only_field", refusal + " Nothing was sent.")


def _job(job: ObjectJob) -> dict[str, Any]:
    return {
        "id": job.pk,
        "kind": job.kind,
        "title": job.title,
        "object_key": job.object_key,
        "status": job.status,
        "is_final": job.is_final,
        "total": job.total,
        "processed": job.processed,
        "succeeded": job.succeeded,
        "failed": job.failed,
        "message": job.message,
        "created_at": job.created_at.isoformat() if job.created_at else None,
    }


def _own_job(request: HttpRequest, job_id: int) -> ObjectJob:
    """One of this person's jobs in the token's workspace (another's, or another workspace's, is not found)."""
    job = ObjectJob.objects.filter(
        pk=job_id, started_by_id=request.user.pk, workspace_id=_workspace(request).id
    ).first()
    if job is None:
        raise ApiRefusal(404, "not_found", "You have no job with this id in this workspace.")
    return job


# --- reading -----------------------------------------------------------------------------------


@router.get(
    "/objects/{remote_id:object_key}/records",
    summary="One page of an object's records, with the records table's search (q), filters, sort, limit and cursor",
)
def records_list(request: HttpRequest, object_key: str) -> Any:
    require_scope(request, READ)
    workspace = _workspace(request)
    read = records_read(workspace=workspace, object_key=object_key, query=request.GET)
    page = read.page
    # The computed columns' values beside each record's (marked as the console's: the service has none).
    shown = computed.records_with_computed(
        workspace=workspace, object_key=object_key, records=page.items, fields=read.fields, columns=read.columns
    )
    return {
        "data": shown["records"],
        "computed_columns": shown["computed_columns"],
        "computed_problem": shown["computed_problem"],
        "next": page.next_cursor,
        "more": page.next_cursor is not None,
        "limit": read.state.limit,
        # The console narrowed the service's pages itself (a condition its filter cannot say): how far it read.
        "narrowed": page.narrowed,
        "budget_spent": page.budget_spent,
        "filter_problems": list(read.plan.problems),
        # A sort by a computed column read this far (its words; "" when it read every record).
        "sort_partial": read.sort_note,
    }


@router.get("/objects/{remote_id:object_key}/records/{remote_id:record_id}", summary="One record with all its values")
def record_one(request: HttpRequest, object_key: str, record_id: str) -> Any:
    require_scope(request, READ)
    workspace = _workspace(request)
    try:
        record = record_read(workspace=workspace, object_key=object_key, record_id=record_id)
    except errors.NotFoundError:
        # A record restored from the trash has a new id: the old one says where it went.
        restored = trash.restored_address(workspace_id=workspace.id, object_key=object_key, record_id=record_id)
        if not restored:
            raise
        raise ApiRefusal(404, "restored_elsewhere", f"This record was restored from the trash as {restored}.") from None
    return computed.record_with_computed(workspace=workspace, object_key=object_key, record=as_dict(record))


@router.get(
    "/objects/{remote_id:object_key}/trash",
    summary="What is in an object's trash (deleted through the console), newest first",
)
def trash_rows(request: HttpRequest, object_key: str) -> Any:
    require_scope(request, READ)
    rows = trash.trash_list(workspace_id=_workspace(request).id, object_key=object_key)
    return {
        "data": [
            {
                "id": row.pk,
                "record_id": row.record_id,
                "title": row.title,
                "values": row.values,
                "links": len(row.links or []),
                "deleted_by": row.actor,
                "deleted_at": row.deleted_at.isoformat(),
            }
            for row in rows[:TRASH_LISTED]
        ],
        "count": rows.count(),
    }


@router.get(
    "/objects/jobs/{pk:job_id}",
    summary="One of your object jobs (a restore, an undo, a bulk edit...) and how far it is",
)
def job_one(request: HttpRequest, job_id: int) -> Any:
    require_scope(request, READ)
    return _job(_own_job(request, job_id))


# --- writing -----------------------------------------------------------------------------------


class RecordIn(Schema):
    values: dict[str, Any]


class RecordChangeIn(Schema):
    # What the caller wants: only the fields it changes.
    values: dict[str, Any]
    # What it last read of those fields (the record's values when it read it): a field someone else
    # changed since is a conflict, answered 409 with both values, and nothing is sent.
    shown: dict[str, Any]


@router.post(
    "/objects/{remote_id:object_key}/records",
    response={201: dict[str, Any]},
    summary="Create a record (in its history); a retry with the same key makes it once",
)
def record_create(request: HttpRequest, object_key: str, body: RecordIn) -> Any:
    key = _writing(request, one_per="record")
    workspace = _workspace(request)
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = _record_fields(definition)
    _known_values(body.values, fields, definition)
    _writable(workspace, object_key, body.values)
    created = services.record_create(
        client=workspace.client,
        object_key=object_key,
        values=body.values,
        idempotency_key=key,
        user=request.user,
        workspace_id=workspace.id,
        fields=fields,
    )
    return Status(201, created)


def _conflict_answer(conflicts: list[Any]) -> JsonResponse:
    words = "; ".join(
        f"{c.field.label} is now {json.dumps(c.theirs, default=str)} (you read {json.dumps(c.shown, default=str)})"
        for c in conflicts
    )
    body = json.loads(
        api_error(
            409, "edit_conflict", f"Changed by someone else since you read it: {words}. Nothing was sent."
        ).content
    )
    # Both values of each field, to settle: send again with `shown` set to "theirs" to keep yours.
    body["conflicts"] = [
        {"field": c.key, "label": c.field.label, "shown": c.shown, "yours": c.mine, "theirs": c.theirs}
        for c in conflicts
    ]
    return JsonResponse(body, status=409, encoder=DjangoJSONEncoder)


@router.patch(
    "/objects/{remote_id:object_key}/records/{remote_id:record_id}",
    summary="Change a record: only the fields you changed, against what you read (409 with both values on a conflict)",
)
def record_change(request: HttpRequest, object_key: str, record_id: str, body: RecordChangeIn) -> Any:
    key = _writing(request, one_per="edit")
    workspace = _workspace(request)
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = _record_fields(definition)
    _known_values(body.values, fields, definition)
    _writable(workspace, object_key, body.values)
    unread = sorted(set(body.values) - set(body.shown))
    if unread:
        raise ApiRefusal(
            422,
            "shown_required",
            f"Send in `shown` the value you last read of each field you change ({', '.join(unread)}): "
            "the console compares it with the record now, so that nobody's change is lost.",
        )
    # Re-read just before writing: what the plan is checked against, and what the history keeps as "before".
    record = as_dict(record_read(workspace=workspace, object_key=object_key, record_id=record_id))
    plan = plan_edit(fields=fields, shown=body.shown, wanted=body.values, current=as_dict(record.get("values")))
    if plan.conflicts:
        return _conflict_answer(plan.conflicts)
    updated = services.record_update_plan(
        client=workspace.client,
        object_key=object_key,
        record_id=record_id,
        plan=plan,
        idempotency_key=key,
        user=request.user,
        workspace_id=workspace.id,
        fields=fields,
    )
    # Nothing changed by this edit (or already so, as on a retry): no call, the record as it is.
    return {"changed": sorted(plan.changes), "record": updated if updated is not None else record}


@router.delete(
    "/objects/{remote_id:object_key}/records/{remote_id:record_id}",
    summary="Delete a record to the trash (its values and links kept, so it can be restored)",
)
def record_delete(request: HttpRequest, object_key: str, record_id: str) -> Any:
    key = _writing(request, one_per="delete")
    workspace = _workspace(request)
    record_seen_or_hidden(workspace=workspace, object_key=object_key, record_id=record_id)
    kept = trash.record_delete_to_trash(
        client=workspace.client,
        workspace_id=workspace.id,
        object_key=object_key,
        record_id=record_id,
        idempotency_key=key,
        definition=object_definition(workspace=workspace, object_key=object_key),
        user=request.user,
    )
    return {"trash_id": kept.pk, "record_id": kept.record_id, "title": kept.title}


@router.post(
    "/objects/{remote_id:object_key}/trash/{pk:trash_id}/restore",
    response={202: dict[str, Any]},
    summary="Restore a record from the trash: a job (its links too), followed at /objects/jobs/{id}",
)
def trash_restore(request: HttpRequest, object_key: str, trash_id: int) -> Any:
    key = _writing(request, one_per="restore")
    workspace, uid = _workspace(request), _job_uid(request, key)
    started = ObjectJob.objects.filter(uid=uid, started_by_id=request.user.pk).first()
    if started is not None:
        return Status(202, _job(started))  # a retry: the job this key started
    row = trash.trash_list(workspace_id=workspace.id, object_key=object_key).filter(pk=trash_id).first()
    if row is None:
        raise ApiRefusal(404, "not_in_trash", "This record is no longer in the trash (restored, or removed for good).")
    job = trash.restore_start(
        user=request.user,
        workspace=workspace,
        object_key=object_key,
        definition=object_definition(workspace=workspace, object_key=object_key),
        rows=[row],
        uid=str(uid),
    )
    return Status(202, _job(job))


@router.post(
    "/objects/jobs/{pk:job_id}/undo",
    response={202: dict[str, Any]},
    summary="Undo one of your finished bulk edits or imports: a job, followed at /objects/jobs/{id}",
)
def job_undo_begin(request: HttpRequest, job_id: int) -> Any:
    key = _writing(request, one_per="undo")
    job = _own_job(request, job_id)
    existing = job_undo.undo_of(job)
    if existing is None and not job_undo.can_undo(job):
        raise ApiRefusal(
            409, "not_undoable", "Only a finished bulk edit or import that changed something can be undone."
        )
    undo = existing or job_undo.job_undo_start(
        user=request.user, workspace=_workspace(request), job=job, uid=str(_job_uid(request, key))
    )
    return Status(202, _job(undo))
