"""Undo of a whole finished job, itself a job (objects/jobs.py, kind `undo`):

- a bulk edit: each record whose value is still what the job wrote gets the
  value it had before (kept on the edit's item when listed), by the safe-edit
  rule of objects/edits.py (re-read, compare, send only what is still the
  job's); a record changed since is skipped and listed with the fields that
  moved; the undo enters each record's history;
- an import: each record it created goes to the trash (objects/trash.py),
  each record it updated gets back the values it replaced, by the same rule
  (the item keeps both: `before` and `written`);
- a merge (objects/merge.py): the kept record gets back the values the
  merge wrote, by the same rule (refused in words for a field changed
  since), then the twins come back from the trash with their links, by the
  restore's two passes (objects/trash.py: `create`, then `link`).

Every write's Idempotency-Key is `uuid5(undo.uid, "undo:<record id>")`.
"""

from __future__ import annotations

import time

from django.conf import settings

from dashboard.api import errors
from dashboard.jobs.engine import step_for_error
from dashboard.jobs.kinds import MORE, Step
from dashboard.live.storable import storable_text
from dashboard.web.reading import as_dict, text
from objects import selectors, services
from objects.edits import plan_edit, same
from objects.fields import FieldDef, field_defs
from objects.history import field_or_text
from objects.jobs import RECORD_REFUSALS, chunk_size, count_progress, job_start, write_key
from objects.models import JobItem, ObjectJob, RecordChange
from objects.names import title_of
from objects.trash import record_delete_to_trash, restore_chunk

MERGE_LINKS_STAY = (
    "Its values before the merge are back. The links the merge copied to it stay: the service has no call "
    "that removes a link."
)
UNDOABLE_KINDS = frozenset({ObjectJob.KIND_EDIT, ObjectJob.KIND_IMPORT, ObjectJob.KIND_MERGE})


def undo_of(job: ObjectJob) -> ObjectJob | None:
    """The undo started for this job, if any (one per job)."""
    return ObjectJob.objects.filter(kind=ObjectJob.KIND_UNDO, params__undoes=job.pk).first()


def can_undo(job: ObjectJob) -> bool:
    return job.kind in UNDOABLE_KINDS and job.status == ObjectJob.DONE and bool(job.succeeded)


def undo_facts(job: ObjectJob) -> dict:
    """What a job's page says about undo: this job's undo (or the offer of
    one), the job an undo undoes, a restored record to open."""
    undoes = job.params.get("undoes") if job.kind == ObjectJob.KIND_UNDO else None
    undo_job = undo_of(job) if job.kind in UNDOABLE_KINDS else None
    return {
        "undo_job": undo_job,
        "can_undo": undo_job is None and can_undo(job),
        "undoes": ObjectJob.objects.filter(pk=undoes, started_by_id=job.started_by_id).first() if undoes else None,
        "restored": list(job.items.exclude(new_id="").order_by("position")[:1])
        if job.kind == ObjectJob.KIND_RESTORE and job.total == 1
        else [],
    }


def job_undo_start(*, user, workspace, job: ObjectJob, uid: str) -> ObjectJob:
    """The undo job of a finished bulk edit, import or merge (one per job: a second
    asking opens the first)."""
    existing = ObjectJob.objects.filter(uid=uid).first() or undo_of(job)
    if existing is not None:
        return existing
    done = job.items.filter(state=JobItem.DONE)
    if job.kind == ObjectJob.KIND_EDIT:
        done = done.exclude(before=None)
    items = done.order_by("position").values_list("record_id", "title", "before", "written")
    return job_start(
        uid=uid,
        owner_key=workspace.require_key(),
        started_by=user,
        workspace_id=job.workspace_id,
        object_key=job.object_key,
        object_name=job.object_name,
        kind=ObjectJob.KIND_UNDO,
        title=storable_text(f"Undo of “{job.title}”", limit=300),
        status=ObjectJob.RUNNING,
        params={
            "undoes": job.pk,
            "undoes_kind": job.kind,
            "changes": job.params.get("changes") or {},
            **({"kept": job.params.get("kept", "")} if job.kind == ObjectJob.KIND_MERGE else {}),
        },
        items=[
            JobItem(record_id=record_id, title=title, before=before, written=written)
            for record_id, title, before, written in items
        ],
    )


def undo_chunk(job: ObjectJob) -> Step:
    if job.params.get("undoes_kind") == ObjectJob.KIND_MERGE and job.params.get("pass") not in (None, "values"):
        return restore_chunk(job)  # the twins back from the trash, then their links
    client = job.owner_key.client(max_retries=0)
    merge = job.params.get("undoes_kind") == ObjectJob.KIND_MERGE
    pending = JobItem.objects.filter(job=job, state=JobItem.PENDING)
    items = list((pending.filter(position=0) if merge else pending).order_by("position")[: chunk_size()])
    if not items:
        if merge:  # the kept record is done: its twins come back next
            job.params = {**job.params, "pass": "create"}
            return MORE
        return Step(done=True)
    definition = selectors.object_definition_get(
        client=client, workspace_id=job.workspace_id, object_key=job.object_key
    )
    fields = field_defs(definition)
    deadline = time.monotonic() + float(settings.OBJECTS_JOB_CHUNK_SECONDS)
    handled: list[JobItem] = []
    step: Step = MORE
    for item in items:
        if handled and time.monotonic() > deadline:
            break
        try:
            if merge:
                _put_back(job, client, item, fields, written=as_dict(item.written))
                if item.state == JobItem.DONE:
                    item.message = MERGE_LINKS_STAY
            elif job.params.get("undoes_kind") != ObjectJob.KIND_IMPORT:
                # A grid paste's item wrote its own values (objects/grid_paste.py); a bulk edit's, the job's.
                wrote = item.written if item.written is not None else job.params.get("changes")
                _put_back(job, client, item, fields, written=as_dict(wrote))
            elif item.written is not None:  # a record the import updated
                _put_back(job, client, item, fields, written=as_dict(item.written), definition=definition)
            else:
                _trash_created(job, client, item, definition)
        except errors.NotFoundError:
            item.state, item.message = JobItem.SKIPPED, "This record no longer exists."
        except RECORD_REFUSALS as exc:
            item.state, item.message = JobItem.FAILED, storable_text(exc.message)
            item.request_id = storable_text(exc.request_id or "", limit=128)
        except errors.ApiError as exc:
            step = step_for_error(exc)
            job.message = storable_text(f"Waiting: {exc.message}") if step.wait_seconds is not None else ""
            break
        handled.append(item)
    JobItem.objects.bulk_update(handled, ["state", "message", "request_id", "title"])
    count_progress(
        job,
        processed=len(handled),
        succeeded=sum(1 for i in handled if i.state == JobItem.DONE),
        failed=sum(1 for i in handled if i.state in {JobItem.FAILED, JobItem.SKIPPED}),
    )
    if step is MORE and handled:
        job.message = ""
    return step


def _put_back(
    job: ObjectJob, client, item: JobItem, fields: list[FieldDef], *, written: dict, definition: dict | None = None
) -> None:
    """The old values, where the record still holds what the job wrote (a
    field changed since is left, and the record listed with it)."""
    before = as_dict(item.before)
    by_key = {f.key: f for f in fields}
    undo_fields = [field_or_text(key, "", by_key) for key in written]
    record = as_dict(selectors.record_get(client=client, object_key=job.object_key, record_id=item.record_id))
    if definition is not None and not item.title:  # an import's update kept no title: named for the report
        item.title = storable_text(title_of(record, definition), limit=300)
    plan = plan_edit(fields=undo_fields, shown=written, wanted=before, current=as_dict(record.get("values")))
    if plan.conflicts:
        names = ", ".join(c.field.label for c in plan.conflicts)
        item.state, item.message = (
            JobItem.SKIPPED,
            storable_text(f"Changed since the job wrote it ({names}): left as it is."),
        )
        return
    if plan.changes:
        services.record_update(
            client=client,
            object_key=job.object_key,
            record_id=item.record_id,
            changes=plan.changes,
            idempotency_key=write_key(job, f"undo:{item.record_id}"),
            user=job.started_by,
            workspace_id=job.workspace_id,
            before=plan.before,
            fields=undo_fields,
            action=RecordChange.Action.UNDO,
        )
    item.state, item.message = JobItem.DONE, ""


def _trash_created(job: ObjectJob, client, item: JobItem, definition: dict) -> None:
    """A record the import created goes to the trash, unless it was changed
    since: then it is left and listed, as a bulk edit's undo does."""
    written = as_dict(item.before)
    if written:  # (imports before what they wrote was kept: trashed as they are)
        record = as_dict(selectors.record_get(client=client, object_key=job.object_key, record_id=item.record_id))
        current = as_dict(record.get("values"))
        by_key = {f.key: f for f in field_defs(definition)}
        changed = [
            field.label
            for field in (field_or_text(key, "", by_key) for key in written)
            if not same(field, current.get(field.key), written[field.key])
        ]
        if changed:
            item.title = storable_text(title_of(record, definition), limit=300) or item.title
            item.state, item.message = (
                JobItem.SKIPPED,
                storable_text(f"Changed since the import made it ({', '.join(changed)}): left as it is."),
            )
            return
    record_delete_to_trash(
        client=client,
        workspace_id=job.workspace_id,
        object_key=job.object_key,
        record_id=item.record_id,
        idempotency_key=write_key(job, f"undo:{item.record_id}"),
        definition=definition,
        user=job.started_by,
    )
    item.state, item.message = JobItem.DONE, ""
    if not item.title:
        item.title = text(item.record_id)
