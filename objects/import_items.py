"""What an import's rows did to records, kept as the job's items
(objects.models.JobItem), one per record:

- by the import: a record it made (the values it wrote, so its undo leaves
  a record changed since) or one it updated (the values it replaced, in
  `before`, and what it wrote, in `written`, so its undo puts the old ones
  back by the safe-edit rule: objects/job_undo.py);
- by its dry run (state FORESEEN): each record as the import will have
  left it, by its key's text, so a later row repeating the key (in this
  chunk or a later one) is foreseen as the import will do it. Dropped
  before writing (objects/imports.py `reset_for_writing`).
"""

from __future__ import annotations

from typing import Any

from dashboard.live.storable import storable, storable_text
from dashboard.web.reading import as_dict
from objects.models import JobItem, ObjectJob


def item_written(
    written: dict[str, JobItem],
    *,
    job: ObjectJob,
    position: int,
    record_id: Any,
    values: dict | None,
    read: dict | None,
    changes: dict | None,
) -> None:
    """A row's write: `values` for a record it made, else the record as
    `read` and the `changes` sent. A record two rows wrote is one item: the
    first row's old values, the last row's writing."""
    record_id = storable_text(str(record_id or ""), limit=200)
    if not record_id:
        return
    if values is not None:
        item = JobItem(job=job, position=position, record_id=record_id, state=JobItem.DONE, before=storable(values))
    else:
        had = as_dict(as_dict(read).get("values"))
        item = JobItem(
            job=job,
            position=position,
            record_id=record_id,
            state=JobItem.DONE,
            before=storable({key: had.get(key) for key in changes or {}}),
            written=storable(changes or {}),
        )
    earlier = written.get(record_id)
    written[record_id] = item if earlier is None else _merged(earlier, item)


def _merged(earlier: JobItem, later: JobItem) -> JobItem:
    """One record written by two rows of the file (a repeated key)."""
    later_wrote = as_dict(later.written)
    if earlier.written is None:  # made by this import, then updated: it wrote the later values
        earlier.before = {**as_dict(earlier.before), **later_wrote}
        return earlier
    had = as_dict(later.before)
    earlier.before = {**{k: had.get(k) for k in later_wrote}, **as_dict(earlier.before)}
    earlier.written = {**as_dict(earlier.written), **later_wrote}
    return earlier


def items_written_save(job: ObjectJob, written: dict[str, JobItem]) -> None:
    """A chunk's items, merged with an earlier chunk's item of the same
    record (one per record: objects_item_once)."""
    if not written:
        return
    for earlier in JobItem.objects.filter(job=job, record_id__in=list(written)).exclude(state=JobItem.FORESEEN):
        written[earlier.record_id] = _merged(earlier, written[earlier.record_id])
    JobItem.objects.bulk_create(
        list(written.values()),
        update_conflicts=True,
        unique_fields=["job", "record_id"],
        update_fields=["before", "written"],
    )


def foreseen_recall(job: ObjectJob, keys: set[str]) -> dict[str, dict]:
    """What earlier chunks of the dry run foresaw for these keys (one query)."""
    if not keys:
        return {}
    items = JobItem.objects.filter(job=job, state=JobItem.FORESEEN, title__in=keys)
    return {item.title: {"id": item.record_id, "values": as_dict(item.before)} for item in items}


def item_foreseen(foreseen: dict[str, JobItem], *, job: ObjectJob, position: int, record: dict, key: str) -> None:
    record_id = storable_text(str(record.get("id") or ""), limit=200)
    foreseen[record_id] = JobItem(
        job=job,
        position=position,
        record_id=record_id,
        state=JobItem.FORESEEN,
        title=key,
        before=storable(as_dict(record.get("values"))),
    )


def items_foreseen_save(foreseen: dict[str, JobItem]) -> None:
    JobItem.objects.bulk_create(
        list(foreseen.values()),
        update_conflicts=True,
        unique_fields=["job", "record_id"],
        update_fields=["title", "before"],
    )
