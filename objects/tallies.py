"""Counts of records the service cannot give: every record of a filter read
page by page (100 a page, the most the service sends), counted per group of
one field (a choice, yes/no, or a date's day, week or month) and, when asked,
one number or currency field summed (its average is the sum over the records
that hold a value). Charts and the kanban's column totals read them.

A tally is a row (`objects.models.RecordTally`), and its job has the shape of
the bulk jobs (objects/jobs.py): `objects.tally_step(tally_id)` claims the row
with a lease, reads at most `PAGES_PER_STEP` pages (or `STEP_SECONDS`) from
the cursor it stored, writes the sums so far and the next cursor in one
UPDATE (only while it still holds the lease, so a redelivered step never
counts a page twice) and sends itself again. A 429 or a failing service
waits (a countdown), never sleeps.

The row is also the cache: one per workspace, object and question (the
parameters' `signature`), fresh for `FRESH_SECONDS`; asking again later counts
again, in the same row.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone

from dashboard.api import errors
from dashboard.api.paths import api_path
from dashboard.keys.models import ApiKey, zone_named
from dashboard.live.leases import lease_take
from dashboard.outbox.services import outbox_send
from dashboard.web.htmx import poll_unchanged
from dashboard.web.reading import as_dict, text
from objects.fields import FieldDef, parse_stored_date, parse_stored_datetime, parse_stored_number
from objects.filters import remote_query
from objects.models import RecordTally
from objects.schema import CHOICE_TYPES, FieldType

logger = logging.getLogger("objects.tallies")

STEP_TASK = "objects.tally_step"  # objects/tasks.py
PAGE_SIZE = 100  # the service's largest page (api-spec.md, Conventions)
PAGES_PER_STEP = 10
STEP_SECONDS = 5.0
LEASE_SECONDS = 120
FRESH_SECONDS = 600
STALLED_SECONDS = 60
MAX_TRANSIENT_ERRORS = 6

DAY, WEEK, MONTH = "day", "week", "month"
BUCKETS = [(DAY, "Day"), (WEEK, "Week"), (MONTH, "Month")]
DATE_TYPES = frozenset({FieldType.DATE, FieldType.DATETIME})
# Fields a tally can group by: choices and yes/no as they are, dates by a bucket.
GROUP_TYPES = frozenset({*CHOICE_TYPES, FieldType.BOOLEAN, *DATE_TYPES})
EMPTY = ""  # the group of records without a value


def groupable(fields: list[FieldDef]) -> list[FieldDef]:
    return [f for f in fields if f.type in GROUP_TYPES]


def summable(fields: list[FieldDef]) -> list[FieldDef]:
    return [f for f in fields if f.is_number]


# --- the counting itself (pure) -------------------------------------------------


def bucket_of(day: dt.date, bucket: str) -> str:
    """A day's group: itself, its week's Monday, or its month (`2026-11`)."""
    if bucket == MONTH:
        return f"{day:%Y-%m}"
    if bucket == WEEK:
        return (day - dt.timedelta(days=day.weekday())).isoformat()
    return day.isoformat()


def group_keys(field: FieldDef, stored: Any, *, bucket: str, zone: dt.tzinfo) -> list[str]:
    """The groups a stored value falls in: one, none ("" when empty), or
    several for a multi select (a record tagged Hot and VIP counts in both)."""
    if stored is None or stored == "" or stored == []:
        return [EMPTY]
    if field.type in CHOICE_TYPES:
        values = stored if isinstance(stored, list) else [stored]
        keys = []
        for value in values:
            option = field.option_for(value)
            keys.append(option.id if option else text(value))
        return keys or [EMPTY]
    if field.type == FieldType.BOOLEAN:
        yes = stored is True or (isinstance(stored, str) and stored.strip().lower() == "true")
        return ["true" if yes else "false"]
    if field.type == FieldType.DATETIME:
        moment = parse_stored_datetime(stored)
        return [bucket_of(moment.astimezone(zone).date(), bucket)] if moment else [EMPTY]
    if field.type == FieldType.DATE:
        day = parse_stored_date(stored)
        return [bucket_of(day, bucket)] if day else [EMPTY]
    return [text(stored)]


@dataclass
class Counter:
    """Sums per group: records, the value field's total and how many held one."""

    groups: dict[str, list]

    def add(self, keys: list[str], number: decimal.Decimal | None) -> None:
        for key in keys:
            row = self.groups.setdefault(key, [0, "0", 0])
            row[0] += 1
            if number is not None:
                row[1] = str(decimal.Decimal(row[1]) + number)
                row[2] += 1


def count_records(
    counter: Counter, records: list, *, group: FieldDef, value: FieldDef | None, bucket: str, zone: dt.tzinfo
) -> int:
    """Add a page of records to the counter; returns how many were read."""
    for item in records:
        values = as_dict(as_dict(item).get("values"))
        number = parse_stored_number(values.get(value.key)) if value else None
        if number is not None and not number.is_finite():
            number = None
        counter.add(group_keys(group, values.get(group.key), bucket=bucket, zone=zone), number)
    return len(records)


# --- the row: asked for, stepped, read -----------------------------------------


def tally_params(
    *, filters: dict, search: str, group: FieldDef, bucket: str, value: FieldDef | None, zone_name: str
) -> dict:
    return {
        "filter": filters,
        "search": search or "",
        "group": group.key,
        "bucket": bucket if group.type in DATE_TYPES else "",
        "value": value.key if value else "",
        "zone": zone_name if group.type == FieldType.DATETIME else "",
    }


def signature_of(params: dict) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True, default=str).encode()).hexdigest()


def send_step(tally_id: int, countdown: float | None = None) -> None:
    """`objects.tally_step` through the outbox (published once the row commits).
    Tests stand a worker in here."""
    outbox_send(task=STEP_TASK, args=[tally_id], countdown=countdown, about=RecordTally(pk=tally_id))


def tally_get(*, workspace_id: str, object_key: str, params: dict) -> RecordTally | None:
    return RecordTally.objects.filter(
        workspace_id=workspace_id, object_key=object_key, signature=signature_of(params)
    ).first()


def tally_start(
    *, key: ApiKey, object_key: str, params: dict, again: bool = False, now: dt.datetime | None = None
) -> RecordTally:
    """The tally answering `params`: the stored one while it counts, is
    fresh or stopped, else (or `again`) counted from the first page, read
    with `key`. A count
    that nothing moved for a minute (a lost message) is sent on."""
    now = now or timezone.now()
    signature = signature_of(params)
    rows = RecordTally.objects.filter(workspace_id=key.workspace_id, object_key=object_key, signature=signature)
    tally = rows.first()
    if tally is None:
        try:
            with transaction.atomic():
                tally = RecordTally.objects.create(
                    owner_key=key, workspace_id=key.workspace_id, object_key=object_key, signature=signature,
                    params=params,
                )  # fmt: skip
                send_step(tally.pk)
            return tally
        except IntegrityError:  # asked twice at once: the other one counts
            tally = rows.get()
    if tally.status == RecordTally.COUNTING:
        free = tally.lease_until is None or tally.lease_until < now
        if free and tally.updated_at < now - timedelta(seconds=STALLED_SECONDS):
            send_step(tally.pk)
        return tally
    fresh = (
        tally.status == RecordTally.DONE
        and tally.finished_at
        and tally.finished_at > now - timedelta(seconds=FRESH_SECONDS)
    )
    # A stopped count stays stopped (its page says why) until someone asks again.
    if (fresh or tally.status == RecordTally.STOPPED) and not again:
        return tally
    with transaction.atomic():
        restarted = rows.filter(pk=tally.pk).exclude(status=RecordTally.COUNTING).update(
            owner_key=key, status=RecordTally.COUNTING, groups={}, cursor="", pages_read=0, records_read=0,
            message="", transient_errors=0, lease_until=None, lease_token="", finished_at=None, updated_at=now,
        )  # fmt: skip
        if restarted:
            send_step(tally.pk)
    tally.refresh_from_db()
    return tally


def tally_polled(request: HttpRequest, *, workspace_id: str, object_key: str, pk: int) -> HttpResponse | RecordTally:
    """What a poll of a count finds: 204 while the version it showed is
    still the row's (one query), else the row (this workspace's only: 404)."""
    rows = RecordTally.objects.filter(pk=pk, workspace_id=workspace_id, object_key=object_key)
    unchanged = poll_unchanged(request, lambda: tally_version(rows.first()))
    if unchanged is not None:
        return unchanged
    tally = rows.first()
    if tally is None:
        raise Http404("No such count.")
    return tally


def tally_version(tally: RecordTally | None) -> str:
    """What a poll compares: the row's last write and status."""
    return f"{tally.updated_at.timestamp():.6f}-{tally.status}" if tally else "none"


def _fields_of(definition: dict, params: dict) -> tuple[FieldDef | None, FieldDef | None]:
    from objects.fields import field_defs

    by_key = {f.key: f for f in field_defs(definition)}
    return by_key.get(params.get("group", "")), by_key.get(params.get("value", ""))


def tally_step(*, tally_id: int) -> None:
    """One bounded chunk of a count (the task's body)."""
    from objects import selectors
    from objects.jobs import step_for_error

    rows = RecordTally.objects.filter(pk=tally_id, status=RecordTally.COUNTING)
    token = lease_take(rows, seconds=LEASE_SECONDS)
    if token is None:
        return
    tally = RecordTally.objects.select_related("owner_key__user").get(pk=tally_id)
    params = tally.params
    counter = Counter(groups={k: list(v) for k, v in tally.groups.items()})
    cursor = tally.cursor or None
    pages = records = 0
    status, message = RecordTally.COUNTING, ""
    countdown: float | None = None
    transient = tally.transient_errors
    try:
        if not tally.owner_key.user.is_active:
            raise PermissionError
        client = tally.owner_key.client(max_retries=0)
        definition = selectors.object_definition_get(
            client=client, workspace_id=tally.workspace_id, object_key=tally.object_key
        )
        group, value = _fields_of(definition, params)
        if group is None:
            status, message = RecordTally.STOPPED, "The field these records were grouped by is gone."
        else:
            query = {
                # Oldest first: a record edited meanwhile keeps its place (sorted by
                # update it would move to the end and be counted twice).
                **remote_query(filters=params.get("filter"), search=params.get("search") or None, sort="created_at"),
                "limit": PAGE_SIZE,
            }
            path = api_path("/v1/objects/{}/records", tally.object_key)
            zone = zone_named(params.get("zone"))
            started = time.monotonic()
            while pages < PAGES_PER_STEP and time.monotonic() - started < STEP_SECONDS:
                page = client.page(path, params={**query, **({"cursor": cursor} if cursor else {})}, item_key="records")
                pages += 1
                records += count_records(
                    counter, page.items, group=group, value=value, bucket=params.get("bucket") or DAY, zone=zone
                )
                cursor = page.next_cursor or None
                if not cursor:
                    status = RecordTally.DONE
                    break
            transient = 0
            countdown = 0 if status == RecordTally.COUNTING else None
    except PermissionError:
        status, message = RecordTally.STOPPED, "Stopped: the account whose key counted was deactivated."
    except errors.ApiError as exc:
        step = step_for_error(exc)
        if step.wait_seconds is not None and transient + 1 < MAX_TRANSIENT_ERRORS:
            transient += 1
            countdown = step.wait_seconds
            pages = records = 0  # nothing of this chunk is kept: it is read again
            counter = Counter(groups=tally.groups)
            cursor = tally.cursor or None
        else:
            status, message = RecordTally.STOPPED, step.stop_message or "The service kept failing."
    except Exception:
        logger.exception("record tally %s failed", tally_id)
        status, message = RecordTally.STOPPED, "The count stopped on an unexpected error; count again."
    now = timezone.now()
    updated = RecordTally.objects.filter(pk=tally_id, lease_token=token).update(
        groups=counter.groups if status != RecordTally.STOPPED else tally.groups,
        cursor=(cursor or "") if status != RecordTally.STOPPED else tally.cursor,
        pages_read=tally.pages_read + (pages if status != RecordTally.STOPPED else 0),
        records_read=tally.records_read + (records if status != RecordTally.STOPPED else 0),
        status=status, message=message, transient_errors=transient, updated_at=now,
        finished_at=now if status != RecordTally.COUNTING else None,
        lease_until=now + timedelta(seconds=max(0.0, countdown - 1)) if countdown else None, lease_token="",
    )  # fmt: skip
    if updated and countdown is not None:
        send_step(tally_id, countdown=countdown or None)


# --- what pages show -------------------------------------------------------------


@dataclass(frozen=True)
class Group:
    key: str
    count: int
    total: decimal.Decimal
    numbered: int

    @property
    def average(self) -> decimal.Decimal | None:
        return self.total / self.numbered if self.numbered else None


def tally_groups(tally: RecordTally) -> dict[str, Group]:
    result = {}
    for key, row in (tally.groups or {}).items():
        try:
            count, total, numbered = int(row[0]), decimal.Decimal(str(row[1])), int(row[2])
        except (TypeError, ValueError, IndexError, decimal.InvalidOperation):
            continue
        result[key] = Group(key, count, total, numbered)
    return result
