"""Totals of a filtered records table. The service's lists carry no total, so
a table whose first page does not tell it (more pages after, or a page the
console narrowed within its budget) asks for a background count: a
`RecordCount` row, stepped by the Celery task `objects.count_step` over the
service's pages (`PAGES_PER_STEP` a run, `OBJECTS_COUNT_MAX_PAGES` in all),
each record checked against the conditions the service cannot check. The row
is the cache: a finished count serves every page asking within
`OBJECTS_COUNT_TTL_SECONDS`; then the next page asking counts again, showing
the last number as "about N" meanwhile. The page polls the row only.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from datetime import timedelta
from typing import TYPE_CHECKING
from urllib.parse import urlencode
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import QueryDict
from django.utils import timezone

from dashboard.api import errors
from dashboard.live.leases import lease_take
from dashboard.outbox.services import outbox_send
from objects import selectors
from objects.fields import field_defs
from objects.filters import RecordFilter
from objects.jobs import step_for_error
from objects.models import RecordCount

if TYPE_CHECKING:
    from dashboard.frame.workspace import Workspace

COUNT_STEP_TASK = "objects.count_step"  # objects/tasks.py
PAGES_PER_STEP = 10  # a task run reads at most this many pages of 100, then sends the next
LEASE_SECONDS = 120
# Oldest first, so records changed while the count runs do not move across its pages.
COUNT_SORT = "created_at"


def count_digest(*, workspace_id: str, object_key: str, query: str) -> str:
    return hashlib.sha256(f"{workspace_id}\n{object_key}\n{query}".encode("utf-8", "surrogatepass")).hexdigest()


def _fresh(row: RecordCount, now: dt.datetime) -> bool:
    if row.status == RecordCount.RUNNING:
        # A running count nothing moved for a while lost its step: count again.
        return row.updated_at > now - timedelta(seconds=LEASE_SECONDS * 2)
    return row.finished_at is not None and row.finished_at > now - timedelta(seconds=settings.OBJECTS_COUNT_TTL_SECONDS)


def record_count_start(*, workspace: Workspace, object_key: str, record_filter: RecordFilter) -> RecordCount:
    """This filter's count: the row when it is fresh, else counted (again),
    with the key of the person asking."""
    query = urlencode(record_filter.pairs())
    digest = count_digest(workspace_id=workspace.id, object_key=object_key, query=query)
    now = timezone.now()
    row = RecordCount.objects.filter(digest=digest).first()
    if row is not None and _fresh(row, now):
        return row
    key = workspace.require_key()
    restart = {
        "owner_key": key,
        "zone": getattr(workspace.zone, "key", "UTC"),
        "status": RecordCount.RUNNING,
        "counted": 0,
        "pages_read": 0,
        "cursor": "",
        "message": "",
        "lease_until": None,
        "lease_token": "",
        "finished_at": None,
    }
    try:
        with transaction.atomic():
            if row is None:
                row = RecordCount.objects.create(
                    workspace_id=workspace.id, object_key=object_key, query=query, digest=digest, **restart
                )
            else:
                if row.status in (RecordCount.DONE, RecordCount.PARTIAL):
                    row.previous = row.counted
                for name, value in restart.items():
                    setattr(row, name, value)
                row.save()
            outbox_send(task=COUNT_STEP_TASK, args=[row.pk], about=row)
    except IntegrityError:
        # Another page started the same count a moment ago: that one.
        row = RecordCount.objects.get(digest=digest)
    return row


def record_count_get(*, workspace: Workspace, count_id: int) -> RecordCount | None:
    """A count this person may see: one of their workspace's (access follows the key)."""
    return RecordCount.objects.filter(pk=count_id, workspace_id=workspace.id).first()


def record_count_version(*, workspace: Workspace, count_id: int) -> str:
    row = RecordCount.objects.filter(pk=count_id, workspace_id=workspace.id).only("updated_at", "status").first()
    return row.version if row else "gone"


def count_text(row: RecordCount) -> str:
    """The count in words, as the table's toolbar shows it."""
    if row.status == RecordCount.DONE:
        return f"{row.counted:,} in all"
    if row.status == RecordCount.PARTIAL:
        return f"at least {row.counted:,} (the first {row.pages_read:,} pages counted)"
    if row.status == RecordCount.FAILED:
        return f"the total could not be counted: {row.message}"
    if row.previous is not None:
        return f"about {row.previous:,} in all (counting again)"
    if row.counted:
        return f"about {row.counted:,} so far, counting…"
    return "counting the total…"


def count_step(*, count_id: int) -> None:
    """One run of a count: up to PAGES_PER_STEP pages from where it stopped;
    sends itself again while there are more. Under the core's lease, so a
    duplicated message never counts a page twice."""
    token = lease_take(RecordCount.objects.filter(pk=count_id, status=RecordCount.RUNNING), seconds=LEASE_SECONDS)
    if token is None:
        return
    row = RecordCount.objects.select_related("owner_key").get(pk=count_id)
    changes: dict = {"lease_token": "", "lease_until": None}
    countdown: float | None = None
    try:
        changes.update(_count_pages(row))
        if changes["status"] == RecordCount.RUNNING:
            countdown = 0
    except errors.ApiError as exc:
        step = step_for_error(exc)
        if step.wait_seconds is not None:
            countdown = step.wait_seconds
        else:
            changes.update(status=RecordCount.FAILED, message=step.stop_message, finished_at=timezone.now())
    now = timezone.now()
    with transaction.atomic():
        updated = RecordCount.objects.filter(pk=row.pk, lease_token=token).update(**changes, updated_at=now)
        if updated and countdown is not None:
            outbox_send(task=COUNT_STEP_TASK, args=[row.pk], countdown=countdown or None, about=row)


def _count_pages(row: RecordCount) -> dict:
    client = row.owner_key.client(max_retries=0)
    definition = selectors.object_definition_get(
        client=client, workspace_id=row.workspace_id, object_key=row.object_key
    )
    fields = field_defs(definition)
    try:
        zone: dt.tzinfo = ZoneInfo(row.zone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = dt.UTC
    plan = RecordFilter.from_query(QueryDict(row.query), fields).plan(fields, zone=zone)
    counted, pages, cursor = row.counted, row.pages_read, row.cursor or None
    for _ in range(PAGES_PER_STEP):
        page = selectors.record_list(
            client=client,
            object_key=row.object_key,
            filters=plan.remote,
            search=plan.search,
            sort=COUNT_SORT,
            cursor=cursor,
            limit=selectors.SCAN_PAGE_SIZE,
        )
        pages += 1
        counted += sum(1 for record in page.items if plan.matches(record))
        progress = {"counted": counted, "pages_read": pages}
        if not page.next_cursor or page.next_cursor == cursor:
            return {**progress, "cursor": "", "status": RecordCount.DONE, "finished_at": timezone.now()}
        cursor = page.next_cursor
        if pages >= settings.OBJECTS_COUNT_MAX_PAGES:
            return {**progress, "cursor": "", "status": RecordCount.PARTIAL, "finished_at": timezone.now()}
    return {"counted": counted, "pages_read": pages, "cursor": cursor or "", "status": RecordCount.RUNNING}
