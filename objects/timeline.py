"""One timeline per record (#39 item 3): what the console knows happened to
a record, newest first, in one list: its history entries (edits, links made
and removed, put-backs, restores: objects/history.py), its comments
(objects/comments.py), its trips to the trash (objects/trash.py)
and the jobs that touched it (bulk edits, imports, merges, undos:
objects/jobs.py). Each entry keeps its own way back where one exists: the
history's Undo and Put back, the job's page (whose Undo undoes the whole
job), the trash's Restore.

Every source is read once, newest first, at most `SHOWN` rows (one query
each, however long the record's past), merged by time; past `SHOWN` the page
says it shows the newest ones. Only the console's own rows are read: changes
made outside the console (another tool, the service's own screens) are not
in it, and the page says so."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from objects.comments import CommentRow, record_comments
from objects.fields import FieldDef, format_datetime
from objects.history import HistoryRow, history_rows, undoable_change
from objects.models import JobItem, ObjectJob, RecordChange, TrashedRecord

SHOWN = 100  # entries a timeline shows: the newest of every source together

CHANGE, COMMENT, TRASHED, JOB = "change", "comment", "trashed", "job"
KINDS = [
    ("", "Everything"),
    (CHANGE, "Changes and links"),
    (COMMENT, "Comments"),
    (JOB, "Jobs"),
    (TRASHED, "Trash"),
]
LABELS = dict(KINDS)


@dataclass(frozen=True)
class Entry:
    """One thing that happened: `kind` says which of the fields below it fills."""

    kind: str
    at: dt.datetime
    when: str
    change: HistoryRow | None = None
    comment: CommentRow | None = None
    trashed: TrashedRecord | None = None
    job: ObjectJob | None = None
    item: JobItem | None = None


@dataclass(frozen=True)
class Timeline:
    entries: list[Entry]
    more: bool  # more than SHOWN entries: the oldest are left out
    counts: dict[str, int]  # entries shown per filter kind ("" for all)
    undoable: RecordChange | None  # the history's one Undo (objects/history.py undoable_change)


def record_timeline(
    *,
    user: Any,
    workspace_id: str,
    object_key: str,
    record_id: str,
    fields: list[FieldDef],
    zone: dt.tzinfo,
    kind: str = "",
    hidden: frozenset[str] = frozenset(),
) -> Timeline:
    """The record's timeline, newest first; `kind` keeps one filter's entries."""
    where = {"workspace_id": workspace_id, "object_key": object_key, "record_id": record_id}
    changes = list(RecordChange.objects.filter(**where).order_by("-created_at", "-pk")[: SHOWN + 1])
    comments = record_comments(user=user, workspace_id=workspace_id, object_key=object_key, record_id=record_id)
    # A record sent to the trash under this id, or one restored as this id.
    trash = list(
        TrashedRecord.objects.filter(workspace_id=workspace_id, object_key=object_key)
        .filter(Q(record_id=record_id) | Q(restored_id=record_id))
        .order_by("-deleted_at")[: SHOWN + 1]
    )
    items = list(
        JobItem.objects.filter(job__workspace_id=workspace_id, job__object_key=object_key)
        .filter(Q(record_id=record_id) | Q(new_id=record_id))
        .select_related("job", "job__started_by")
        .order_by("-job__created_at", "-pk")[: SHOWN + 1]
    )
    more = any(len(rows) > SHOWN for rows in (changes, comments, trash, items))

    def when(at: dt.datetime) -> str:
        return format_datetime(at.isoformat(), zone=zone)

    entries = [
        Entry(kind=CHANGE, at=row.change.created_at, when=row.when, change=row)
        for row in history_rows(changes[:SHOWN], fields=fields, zone=zone, hidden=hidden)
    ]
    entries += [
        Entry(kind=COMMENT, at=row.comment.created_at, when=when(row.comment.created_at), comment=row)
        for row in comments[-SHOWN:]
    ]
    # Its restore is a history entry of the restored record (objects/trash.py
    # moves the history to the new id and adds "Restored from the trash").
    entries += [Entry(kind=TRASHED, at=row.deleted_at, when=when(row.deleted_at), trashed=row) for row in trash[:SHOWN]]
    entries += [
        Entry(kind=JOB, at=item.job.created_at, when=when(item.job.created_at), job=item.job, item=item)
        for item in items[:SHOWN]
    ]
    entries.sort(key=lambda entry: entry.at, reverse=True)
    more = more or len(entries) > SHOWN
    entries = entries[:SHOWN]
    counts = {"": len(entries)}
    for entry in entries:
        counts[entry.kind] = counts.get(entry.kind, 0) + 1
    if kind:
        entries = [entry for entry in entries if entry.kind == kind]
    return Timeline(entries=entries, more=more, counts=counts, undoable=undoable_change(changes))
