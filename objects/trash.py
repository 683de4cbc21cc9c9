"""The trash: a delete through the console (single or bulk) first keeps the
record as it was (values, title, links both ways) in a `TrashedRecord` row,
for OBJECTS_TRASH_DAYS; the service itself cannot undo a delete.

Restoring is a job (objects/jobs.py, kind `restore`) in two passes over its
items:

1. re-create each record (`POST`, Idempotency-Key `uuid5(job.uid,
   "restore:<old id>")`), keeping the new id on the item and on the trash
   row (the map old → new: old addresses redirect, the history moves over);
2. re-link each restored record: every link whose other end exists, the
   other end being followed to its new id when it was restored too (in this
   job or before). A link between two records of the same job is made once,
   from its source. What could not be restored is said on the item, with why.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from dashboard.api import errors
from dashboard.jobs.engine import step_for_error
from dashboard.jobs.kinds import MORE, Step
from dashboard.live.storable import storable, storable_text
from dashboard.web.reading import as_dict, text
from objects import selectors, services
from objects.fields import editable_fields, field_defs, title_field_key
from objects.jobs import RECORD_REFUSALS, chunk_size, count_progress, object_job_start, write_key
from objects.links import link_from
from objects.models import JobItem, ObjectJob, RecordChange, TrashedRecord


def _title(definition: dict, values: dict) -> str:
    key = title_field_key(definition)
    value = values.get(key) if key else None
    return storable_text(text(value), limit=300) if value not in (None, "") else "Untitled"


def record_keep(
    *, client, workspace_id: str, object_key: str, record_id: str, definition: dict | None, title: str = "", user=None
) -> TrashedRecord:
    """Read the record and its links (both directions) and keep them in the
    trash. A record already gone raises NotFoundError, as the delete would."""
    record = as_dict(selectors.record_get(client=client, object_key=object_key, record_id=record_id))
    values = as_dict(record.get("values"))
    links = []
    for raw in selectors.relationship_list(client=client, object_key=object_key, record_id=record_id):
        if not isinstance(raw, dict):
            continue
        link = link_from(raw, object_key=object_key, record_id=record_id)
        if link.record_id:
            links.append(
                {
                    "relation_key": link.relation_key,
                    "direction": link.direction,
                    "object": link.object_key,
                    "id": link.record_id,
                    "label": link.label,
                    "metadata": link.metadata,
                    "title": link.title,
                }
            )
    row, _ = TrashedRecord.objects.update_or_create(
        workspace_id=workspace_id,
        object_key=object_key,
        record_id=record_id,
        defaults={
            "title": _title(definition, values) if definition is not None else storable_text(title, limit=300),
            "values": storable(values),
            "links": storable(links),
            "deleted_by": user if getattr(user, "is_authenticated", False) else None,
            "actor": getattr(user, "get_username", lambda: "")() or "",
            "deleted_at": timezone.now(),
            "restored_id": "",
            "restored_at": None,
        },
    )
    return row


def record_delete_to_trash(
    *,
    client,
    workspace_id: str,
    object_key: str,
    record_id: str,
    idempotency_key: str,
    definition: dict | None,
    title: str = "",
    user=None,
) -> TrashedRecord:
    """Keep the record in the trash, then delete it. A refusal of the delete
    (it still exists) takes it out of the trash again; a failure that may
    have deleted it (timeout, 5xx) leaves it there."""
    try:
        row = record_keep(
            client=client,
            workspace_id=workspace_id,
            object_key=object_key,
            record_id=record_id,
            definition=definition,
            title=title,
            user=user,
        )
    except errors.NotFoundError:
        # Gone already: kept by an earlier attempt of this very delete (a
        # redelivered job step)? Then the DELETE below replays its answer.
        kept = trash_list(workspace_id=workspace_id, object_key=object_key).filter(record_id=record_id).first()
        if kept is None:
            raise
        row = kept
    try:
        services.record_delete(
            client=client,
            object_key=object_key,
            record_id=record_id,
            idempotency_key=idempotency_key,
            workspace_id=workspace_id,
        )
    except errors.NotFoundError:
        pass  # deleted meanwhile: what was read just before is what is kept
    except (errors.ServerError, errors.ApiTimeoutError, errors.ApiConnectionError):
        raise
    except errors.ApiError:
        row.delete()
        raise
    return row


# --- reading the trash -----------------------------------------------------------


def trash_list(*, workspace_id: str, object_key: str):
    """What is in this object's trash (not restored), newest first."""
    return TrashedRecord.objects.filter(workspace_id=workspace_id, object_key=object_key, restored_id="")


def restored_address(*, workspace_id: str, object_key: str, record_id: str) -> str:
    """The new id of a record restored from the trash, or ''."""
    row = (
        TrashedRecord.objects.filter(workspace_id=workspace_id, object_key=object_key, record_id=record_id)
        .exclude(restored_id="")
        .values_list("restored_id", flat=True)
        .first()
    )
    return row or ""


def trash_purge(*, workspace_id: str, object_key: str, pks: list[int]) -> int:
    """Remove records from the trash for good (never a restored row: it is the map to the new id)."""
    deleted, _ = trash_list(workspace_id=workspace_id, object_key=object_key).filter(pk__in=pks).delete()
    return deleted


def trash_expire(now=None) -> int:
    """Rows in the trash longer than OBJECTS_TRASH_DAYS go (beat, daily); the
    map of a restored record stays."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=int(settings.OBJECTS_TRASH_DAYS))
    deleted, _ = TrashedRecord.objects.filter(restored_id="", deleted_at__lt=cutoff).delete()
    return deleted


# --- restoring: a job ------------------------------------------------------------


def restore_start(*, user, workspace, object_key: str, definition: dict, rows: list[TrashedRecord], uid: str):
    """The restore job of these trash rows (one per form: its idempotency key is the job's uid)."""
    existing = ObjectJob.objects.filter(uid=uid).first()
    if existing is not None:
        return existing
    count = len(rows)
    return object_job_start(
        uid=uid,
        user=user,
        workspace=workspace,
        object_key=object_key,
        definition=definition,
        kind=ObjectJob.KIND_RESTORE,
        title=f"Restore {count} record{'' if count == 1 else 's'} from the trash",
        status=ObjectJob.RUNNING,
        params={"pass": "create"},
        items=[JobItem(record_id=row.record_id, title=row.title) for row in rows],
    )


def _client(job: ObjectJob):
    return job.owner_key.client(max_retries=0)


def restore_chunk(job: ObjectJob) -> Step:
    if job.params.get("pass") == "link":
        return _link_chunk(job)
    return _create_chunk(job)


def _deadline() -> float:
    return time.monotonic() + float(settings.OBJECTS_JOB_CHUNK_SECONDS)


def _create_chunk(job: ObjectJob) -> Step:
    """Re-create a bounded chunk of the job's records."""
    client = _client(job)
    items = list(JobItem.objects.filter(job=job, state=JobItem.PENDING).order_by("position")[: chunk_size()])
    if not items:
        job.params = {**job.params, "pass": "link"}
        return MORE
    definition = selectors.object_definition_get(
        client=client, workspace_id=job.workspace_id, object_key=job.object_key
    )
    fields = field_defs(definition)
    writable = {f.key for f in editable_fields(fields)}
    rows = {
        r.record_id: r
        for r in TrashedRecord.objects.filter(
            workspace_id=job.workspace_id, object_key=job.object_key, record_id__in=[i.record_id for i in items]
        )
    }
    deadline = _deadline()
    handled: list[JobItem] = []
    step: Step = MORE
    for item in items:
        if handled and time.monotonic() > deadline:
            break
        row = rows.get(item.record_id)
        if row is None:
            item.state, item.message = JobItem.FAILED, "No longer in the trash (purged or expired)."
        elif row.restored_id:
            item.state, item.new_id, item.message = JobItem.CREATED, row.restored_id, ""
        else:
            values = {k: v for k, v in as_dict(row.values).items() if k in writable and v is not None}
            dropped = sorted(k for k, v in as_dict(row.values).items() if k not in writable and v is not None)
            try:
                created = services.record_create(
                    client=client,
                    object_key=job.object_key,
                    values=values,
                    idempotency_key=write_key(job, f"restore:{item.record_id}"),
                    workspace_id=job.workspace_id,
                )
            except RECORD_REFUSALS as exc:
                item.state, item.message = JobItem.FAILED, storable_text(f"Not restored: {exc.message}")
                item.request_id = storable_text(exc.request_id or "", limit=128)
            except errors.ApiError as exc:
                step = step_for_error(exc)
                job.message = storable_text(f"Waiting: {exc.message}") if step.wait_seconds is not None else ""
                break
            else:
                new_id = storable_text(text(as_dict(created).get("id")), limit=200)
                item.state, item.new_id = JobItem.CREATED, new_id
                item.message = (
                    storable_text(f"Values of fields no longer on the object were left out: {', '.join(dropped)}.")
                    if dropped
                    else ""
                )
                _mark_restored(job, row, new_id)
        handled.append(item)
    JobItem.objects.bulk_update(handled, ["state", "message", "request_id", "new_id"])
    failed = sum(1 for i in handled if i.state == JobItem.FAILED)
    count_progress(job, processed=failed, failed=failed)
    if step is MORE and handled:
        job.message = ""
    return step


def _mark_restored(job: ObjectJob, row: TrashedRecord, new_id: str) -> None:
    """The map old → new, the history moved to the new id, and its entry."""
    now = timezone.now()
    with transaction.atomic():
        TrashedRecord.objects.filter(pk=row.pk).update(restored_id=new_id, restored_at=now)
        RecordChange.objects.filter(
            workspace_id=job.workspace_id, object_key=job.object_key, record_id=row.record_id
        ).update(record_id=new_id)
        # Links made through the console, seen from other records, follow too.
        RecordChange.objects.create(
            workspace_id=job.workspace_id,
            object_key=job.object_key,
            record_id=new_id,
            user=job.started_by,
            actor=job.started_by.get_username(),
            action=RecordChange.Action.RESTORE,
            changes=[],
            source_record_id=row.record_id,
        )


def _other_end(link: dict, in_job: dict[str, str], kept: dict[tuple[str, str], TrashedRecord], object_key: str):
    """(object, id, why not): where the other end of a kept link is now."""
    other_object, other_id = text(link.get("object")), text(link.get("id"))
    name = text(link.get("title")) or "the other record"
    if other_object == object_key and other_id in in_job:
        new_id = in_job[other_id]
        return (other_object, new_id, "") if new_id else ("", "", f"“{name}” could not be restored")
    row = kept.get((other_object, other_id))
    if row is not None:
        if row.restored_id:
            return other_object, row.restored_id, ""
        return "", "", f"“{row.title or name}” is in the trash"
    return other_object, other_id, ""


def _kept_ends(job: ObjectJob, rows, in_job: dict[str, str]) -> dict[tuple[str, str], TrashedRecord]:
    """The trash rows of a chunk's other ends outside the job, in one query."""
    ends = {
        (text(as_dict(link).get("object")), text(as_dict(link).get("id")))
        for row in rows
        for link in (row.links if isinstance(row.links, list) else [])
    }
    ends = {end for end in ends if not (end[0] == job.object_key and end[1] in in_job)}
    if not ends:
        return {}
    found = TrashedRecord.objects.filter(workspace_id=job.workspace_id, record_id__in={i for _o, i in ends})
    return {(r.object_key, r.record_id): r for r in found if (r.object_key, r.record_id) in ends}


def _link_chunk(job: ObjectJob) -> Step:
    """Re-link a bounded chunk of re-created records."""
    client = _client(job)
    items = list(JobItem.objects.filter(job=job, state=JobItem.CREATED).order_by("position")[: chunk_size()])
    if not items:
        return Step(done=True)
    # (The undo of a merge also holds the kept record, which stayed: not one of the restored.)
    in_job = dict(
        JobItem.objects.filter(job=job).exclude(record_id=job.params.get("kept", "")).values_list("record_id", "new_id")
    )
    rows = {
        r.record_id: r
        for r in TrashedRecord.objects.filter(
            workspace_id=job.workspace_id, object_key=job.object_key, record_id__in=[i.record_id for i in items]
        )
    }
    kept = _kept_ends(job, rows.values(), in_job)
    deadline = _deadline()
    handled: list[JobItem] = []
    step: Step = MORE
    for item in items:
        if handled and time.monotonic() > deadline:
            break
        row = rows.get(item.record_id)
        missing: list[str] = []
        try:
            for n, link in enumerate(row.links if row is not None and isinstance(row.links, list) else []):
                reason = _relink(job, client, item, n, as_dict(link), in_job, kept)
                if reason:
                    missing.append(f"{text(as_dict(link).get('relation_key'))} ({reason})")
        except errors.ApiError as exc:
            step = step_for_error(exc)
            job.message = storable_text(f"Waiting: {exc.message}") if step.wait_seconds is not None else ""
            break
        item.state = JobItem.DONE
        if missing:
            said = f"{len(missing)} link{'' if len(missing) == 1 else 's'} not restored: {'; '.join(missing)}."
            item.message = storable_text(f"{item.message} {said}".strip())
        handled.append(item)
    JobItem.objects.bulk_update(handled, ["state", "message"])
    count_progress(job, processed=len(handled), succeeded=len(handled))
    if step is MORE and handled:
        job.message = ""
    return step


def _relink(job: ObjectJob, client, item: JobItem, n: int, link: dict, in_job: dict[str, str], kept: dict) -> str:
    """Make one kept link again from the new record; '' when made (or made by
    its other end), else why not. Errors of the whole service propagate."""
    other_object, other_id = text(link.get("object")), text(link.get("id"))
    # Both ends in this job: made once, from the source's side (unless the source was not restored).
    if link.get("direction") == "incoming" and other_object == job.object_key and in_job.get(other_id):
        return ""
    target_object, target_id, why = _other_end(link, in_job, kept, job.object_key)
    if why:
        return why
    here = (job.object_key, item.new_id)
    there = (target_object, target_id)
    source, target = (here, there) if link.get("direction") != "incoming" else (there, here)
    try:
        services.relationship_create(
            client=client,
            object_key=source[0],
            record_id=source[1],
            relation_key=text(link.get("relation_key")),
            target_object=target[0],
            target_id=target[1],
            label=text(link.get("label")),
            metadata=as_dict(link.get("metadata")),
            idempotency_key=write_key(job, f"link:{item.record_id}:{n}"),
        )
    except errors.NotFoundError:
        return f"“{text(link.get('title')) or 'the other record'}” no longer exists"
    except RECORD_REFUSALS as exc:
        return storable_text(exc.message, limit=300)
    return ""


def job_items_said(job: ObjectJob) -> Any:
    """What a restore or an undo says per item: failed, skipped, or done with a remark."""
    from django.db.models import Q

    return job.items.filter(Q(state__in=[JobItem.FAILED, JobItem.SKIPPED]) | ~Q(message="")).order_by("position")
