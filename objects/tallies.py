"""Counts of records the service cannot give: every record of a filter read
page by page (100 a page, the most the service sends), each checked against
the conditions the service cannot check (the table's `RecordFilter.plan`,
objects/filters.py), counted in all (the table's total: no group) or per
group of one field (a choice, yes/no, or a date's day, week or month) and,
when asked, one number or currency field summed (its average is the sum over
the records that hold a value), or every column's footer summary (`footers`:
objects/grouping.py). The table's total and footers, charts and the kanban's
column totals read them: one model, one task, one poll.

A tally is a row (`objects.models.RecordTally`), stepped by the core's
engine (dashboard/jobs/engine.py) as the kind `objects.tally`: each step's
chunk (`tally_chunk`) reads at most `PAGES_PER_STEP` pages (or
`STEP_SECONDS`) from the cursor it stored; the engine writes the sums so far
and the next cursor in one UPDATE (only while the step still holds the
lease, so a redelivered step never counts a page twice) and sends the next
step. A 429 or a failing service waits (a countdown), never sleeps.

The row is also the cache: one per workspace, object and question (the
parameters' `signature`), fresh for `OBJECTS_COUNT_FRESH_SECONDS`; asking
again later counts again, in the same row (the last total kept as
`previous`, "about N" meanwhile). At most `OBJECTS_COUNT_MAX_PAGES` pages are
read: past them the count stops, keeping what it counted ("at least N").
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.http import QueryDict
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext

from dashboard.api.paths import api_path
from dashboard.jobs import engine
from dashboard.jobs.kinds import MORE, JobKind, Step
from dashboard.keys.models import ApiKey, zone_named
from dashboard.web.reading import as_dict
from objects.access import access_from_params, access_params, narrow
from objects.buckets import DATE_TYPES, DAY, group_keys
from objects.fields import FieldDef, parse_stored_number
from objects.filters import RecordFilter, remote_query
from objects.grouping import summaries_fold
from objects.models import RecordTally

if TYPE_CHECKING:
    from dashboard.frame.workspace import Workspace

logger = logging.getLogger("objects.tallies")

KIND = "objects.tally"  # the engine's name of this kind (dashboard/jobs)
PAGE_SIZE = 100  # the service's largest page (api-spec.md, Conventions)
PAGES_PER_STEP = 10
STEP_SECONDS = 5.0


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
    counter: Counter,
    records: list,
    *,
    group: FieldDef | None,
    value: FieldDef | None,
    bucket: str,
    zone: dt.tzinfo,
    keep: Callable[[Any], bool] = lambda record: True,
) -> int:
    """Add the records of a page the filter keeps to the counter (no group:
    counted only); returns how many it kept."""
    kept = 0
    for item in records:
        record = as_dict(item)
        if not keep(record):
            continue  # a condition the service cannot check (objects/filters.py)
        kept += 1
        if group is None:
            continue
        values = as_dict(record.get("values"))
        number = parse_stored_number(values.get(value.key)) if value else None
        if number is not None and not number.is_finite():
            number = None
        counter.add(group_keys(group, values.get(group.key), bucket=bucket, zone=zone), number)
    return kept


# --- the row: asked for, stepped, read -----------------------------------------


def tally_params(
    *, record_filter: RecordFilter, group: FieldDef | None, bucket: str, value: FieldDef | None, zone_name: str
) -> dict:
    """The question a tally answers: the table's search and conditions (as its
    URL says them: the step plans them again, remote and console-side), the
    group ("" for a total), the bucket of a date, the summed field, and the
    zone (days of datetimes, of "before" and "within the last N days")."""
    return {
        **access_params(record_filter.access),
        "query": urlencode(record_filter.pairs()),
        "group": group.key if group else "",
        "bucket": bucket if group is not None and group.type in DATE_TYPES else "",
        "value": value.key if value else "",
        "zone": zone_name,
    }


def signature_of(params: dict) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True, default=str).encode()).hexdigest()


def tally_get(*, workspace_id: str, object_key: str, params: dict) -> RecordTally | None:
    return RecordTally.objects.filter(
        workspace_id=workspace_id, object_key=object_key, signature=signature_of(params)
    ).first()


def tally_start(
    *, key: ApiKey, object_key: str, params: dict, again: bool = False, now: dt.datetime | None = None
) -> RecordTally:
    """The tally answering `params`: the stored one while it counts, is
    fresh or stopped, else (or `again`) counted from the first page, read
    with `key`."""
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
                engine.send_step(KIND, tally.pk)
            return tally
        except IntegrityError:  # asked twice at once: the other one counts
            tally = rows.get()
    if tally.status == RecordTally.COUNTING:
        return tally  # a count whose message was lost goes on by the engine's watch (dashboard/jobs)
    # A finished count serves while fresh; a stopped one stays stopped (its page
    # says why: no restart loop on a refused key) until "Count again" or, for
    # pages without that button (a table's total), until it is as old.
    # A console write to the object's records since the count began makes it stale at once.
    fresh = bool(
        tally.finished_at
        and tally.finished_at > now - timedelta(seconds=settings.OBJECTS_COUNT_FRESH_SECONDS)
        and tally.written_at is None
    )
    if fresh and not again:
        return tally
    # The last finished count stays on as "about N" while it is counted again.
    previous = tally.records_read if tally.status == RecordTally.DONE else tally.previous
    with transaction.atomic():
        restarted = rows.filter(pk=tally.pk).exclude(status=RecordTally.COUNTING).update(
            owner_key=key, status=RecordTally.COUNTING, groups={}, cursor="", pages_read=0, records_read=0,
            previous=previous, written_at=None,
            message="", transient_errors=0, lease_until=None, lease_token="", finished_at=None, updated_at=now,
        )  # fmt: skip
        if restarted:
            engine.send_step(KIND, tally.pk)
    tally.refresh_from_db()
    return tally


def records_written(*, workspace_id: str, object_key: str, now: dt.datetime | None = None) -> int:
    """Every count of this object's records is stale: the console wrote one
    (a create, edit, delete, restore, import or bulk edit through
    objects/services.py). One UPDATE, whatever the counts; each is counted
    again when next asked (its last total shown as "about N" meanwhile), a
    count under way when it finishes. Returns the counts marked."""
    if not workspace_id:
        return 0
    return RecordTally.objects.filter(workspace_id=workspace_id, object_key=object_key).update(
        written_at=now or timezone.now()
    )


def tally_rows(*, workspace_id: str, object_key: str, pk: int) -> QuerySet[RecordTally]:
    """The count `pk` of this workspace's object (none for any other: a poll's 404)."""
    return RecordTally.objects.filter(pk=pk, workspace_id=workspace_id, object_key=object_key)


def tally_version(tally: RecordTally | None) -> str:
    """What a poll compares: the row's last write and status."""
    return f"{tally.updated_at.timestamp():.6f}-{tally.status}" if tally else "none"


UNCOUNTED_COMPUTED = (
    "A count over every record cannot read a lookup or rollup (each record's links would be one read each):"
    " count by a field or a formula instead."
)


def _fields_of(fields: list[FieldDef], params: dict) -> tuple[FieldDef | None, FieldDef | None]:
    by_key = {f.key: f for f in fields}
    return by_key.get(params.get("group") or ""), by_key.get(params.get("value") or "")


def tally_chunk(tally: RecordTally) -> Step:
    """At most PAGES_PER_STEP pages (or STEP_SECONDS) of a count, from the
    cursor it stored (the engine's chunk: dashboard/jobs/engine.py). Nothing
    of a chunk that fails is kept: the engine waits or stops, and the pages
    are read again."""
    from objects import computed, selectors
    from objects.fields import field_defs
    from objects.link_filters import query_linked_fields, read_links

    if not tally.owner_key.user.is_active:
        return Step(stop_message="Stopped: the account whose key counted was deactivated.")
    params = tally.params
    client = tally.owner_key.client(max_retries=0)
    definition = selectors.object_definition_get(
        client=client, workspace_id=tally.workspace_id, object_key=tally.object_key
    )
    fields = field_defs(definition)
    # Formula columns are computed on every record read (no remote call); a lookup or rollup cannot be counted.
    formulas = computed.counted_specs(workspace_id=tally.workspace_id, object_key=tally.object_key, fields=fields)
    counted = computed.counted_fields(formulas)
    group, value = _fields_of([*fields, *counted], params)
    filter_query = QueryDict(params.get("query") or "")
    named = (computed.computed_keys_named(filter_query) | {params.get("group"), params.get("value")}) - {None, ""}
    if any(key.startswith(computed.COMPUTED_PREFIX) for key in named - {f.key for f in counted}):
        return Step(stop_message=UNCOUNTED_COMPUTED)
    if params.get("group") and group is None:
        return Step(stop_message="The field these records were grouped by is gone.")
    zone = zone_named(params.get("zone"))
    # The table's plan: the service's part sent, the rest checked on every record read.
    linked, _problems = query_linked_fields(
        filter_query,
        lambda key: selectors.object_definition_get(client=client, workspace_id=tally.workspace_id, object_key=key),
    )
    plan = RecordFilter.from_query(filter_query, fields, linked, counted).plan(fields, zone=zone)
    # Only the records the person who asked may see (objects/access.py).
    narrow(plan, access_from_params(params), fields, zone=zone)
    if plan.linked:
        # Read again by each step (the links from their cache): a step never trusts a step before.
        read_links(plan, client=client, workspace_id=tally.workspace_id, object_key=tally.object_key, zone=zone)
    query = {
        # Oldest first: a record edited meanwhile keeps its place (sorted by
        # update it would move to the end and be counted twice).
        **remote_query(filters=plan.remote, search=plan.search or None, sort="created_at"),
        "limit": PAGE_SIZE,
    }
    path = api_path("/v1/objects/{}/records", tally.object_key)
    counter = Counter(groups={k: list(v) for k, v in tally.groups.items()})
    cursor = tally.cursor or None
    pages = records = 0
    started = time.monotonic()
    while pages < PAGES_PER_STEP and time.monotonic() - started < STEP_SECONDS:
        page = client.page(path, params={**query, **({"cursor": cursor} if cursor else {})}, item_key="records")
        pages += 1
        items = computed.with_formula_values(page.items, formulas, today=dt.datetime.now(zone).date())
        if params.get("footers"):
            # Every column's footer (objects/grouping.py), folded into the kept rows.
            kept = [item for item in items if plan.matches(as_dict(item))]
            counter.groups = summaries_fold(counter.groups, kept, fields)
            records += len(kept)
        else:
            records += count_records(
                counter,
                items,
                group=group,
                value=value,
                bucket=params.get("bucket") or DAY,
                zone=zone,
                keep=plan.matches,
            )
        cursor = page.next_cursor or None
        if not cursor:
            tally.status = RecordTally.DONE
            if plan.partial:
                tally.message = " ".join(plan.partial)
            break
        if tally.pages_read + pages >= settings.OBJECTS_COUNT_MAX_PAGES:
            # What was counted is kept: "at least N".
            tally.status = RecordTally.STOPPED
            tally.message = f"Only the first {tally.pages_read + pages:,} pages of records were counted."
            break
    tally.groups, tally.cursor = counter.groups, cursor or ""
    tally.pages_read += pages
    tally.records_read += records
    return MORE


RECORD_TALLY = JobKind(
    name=KIND,
    model=RecordTally,
    chunk=tally_chunk,
    active=(RecordTally.COUNTING,),
    done=RecordTally.DONE,
    stopped=RecordTally.STOPPED,
    unexpected="The count stopped on an unexpected error; count again.",
    select_related=("owner_key__user",),
    unwritten=frozenset({"written_at"}),  # a write meanwhile is kept: the count is stale when it ends
    finished_event=False,  # a table's count is not a job a receiver waits for
)


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


# --- the table's total ---------------------------------------------------------


def records_total_start(*, workspace: Workspace, object_key: str, record_filter: RecordFilter) -> RecordTally:
    """The total of a filtered table whose first page cannot tell it: a tally
    with no group, read with the key of the person asking."""
    params = tally_params(
        record_filter=record_filter, group=None, bucket="", value=None, zone_name=workspace.timezone_name
    )
    return tally_start(key=workspace.require_key(), object_key=object_key, params=params)


def records_footers_start(*, workspace: Workspace, object_key: str, record_filter: RecordFilter) -> RecordTally:
    """Every column's footers over every record of a filter the page holds
    not all of (objects/grouping.py): a tally with no group whose rows are
    the columns' summaries, read with the key of the person asking."""
    params = tally_params(
        record_filter=record_filter, group=None, bucket="", value=None, zone_name=workspace.timezone_name
    )
    return tally_start(key=workspace.require_key(), object_key=object_key, params={**params, "footers": "all"})


def total_text(tally: RecordTally) -> str:
    """A table's total in words, as its toolbar shows it."""
    read = number_format(tally.records_read, force_grouping=True)  # in the reader's language
    if tally.status == RecordTally.DONE:
        if tally.written_at is not None:  # the console wrote a record while it counted: no fact any more
            return gettext("about {count} in all (records changed since it was counted)").format(count=read)
        return gettext("{count} in all").format(count=read)
    if tally.status == RecordTally.STOPPED:
        if tally.cursor and tally.pages_read >= settings.OBJECTS_COUNT_MAX_PAGES:
            pages = number_format(tally.pages_read, force_grouping=True)
            return gettext("at least {count} (the first {pages} pages counted)").format(count=read, pages=pages)
        return gettext("the total could not be counted: {reason}").format(reason=tally.message)
    if tally.previous is not None:
        return gettext("about {count} in all (counting again)").format(
            count=number_format(tally.previous, force_grouping=True)
        )
    if tally.records_read:
        return gettext("about {count} so far, counting…").format(count=read)
    return gettext("counting the total…")
