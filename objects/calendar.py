"""The calendar of an object's records by one date or datetime field: a
month's weeks (Monday first), each day with its records as links, and the
same records as an agenda list (small screens, screen readers).

The service filters by exact values only (no range), so the month is found
by sorting on the field itself (oldest first; empty values come last, or
anywhere in another implementation: they are skipped) and reading pages of
100 until a record falls after the month, skipping the ones before it. At
most `PAGE_BUDGET` pages are read; when the budget runs out before the month
ends, the page says so (how many records were read) and offers to read
further (a larger budget, up to `MAX_PAGE_BUDGET`).
"""

from __future__ import annotations

import calendar as month_math
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from dashboard.web.reading import as_dict, text
from objects import selectors
from objects.fields import FieldDef, parse_stored_date, parse_stored_datetime, title_field_key
from objects.schema import FieldType

PAGE_SIZE = 100  # the service's largest page
PAGE_BUDGET = 20  # pages one calendar page reads (2,000 records)...
MAX_PAGE_BUDGET = 100  # ...or, asked to read further, at most this many
DATE_TYPES = frozenset({FieldType.DATE, FieldType.DATETIME})


def date_fields(fields: list[FieldDef]) -> list[FieldDef]:
    return [f for f in fields if f.type in DATE_TYPES]


def month_of(raw: str | None, *, today: dt.date) -> dt.date:
    """`YYYY-MM` as its first day; this month when missing or unreadable."""
    if raw:
        try:
            year, month = (int(part) for part in raw.split("-", 1))
            if 1 <= year <= 9999 and 1 <= month <= 12:
                return dt.date(year, month, 1)
        except ValueError:
            pass
    return today.replace(day=1)


def shift_month(first: dt.date, months: int) -> dt.date:
    index = first.year * 12 + first.month - 1 + months
    year, month = divmod(index, 12)
    return dt.date(min(max(year, 1), 9999), month + 1, 1)


@dataclass
class Entry:
    id: str
    title: str
    time: str  # "09:30" for a datetime field, "" for a date


@dataclass
class Day:
    date: dt.date
    in_month: bool
    today: bool
    entries: list[Entry] = field(default_factory=list)


@dataclass
class Month:
    first: dt.date
    weeks: list[list[Day]]
    pages_read: int = 0
    records_read: int = 0
    budget: int = PAGE_BUDGET
    complete: bool = True  # False: the page budget ran out before the month's end

    @property
    def further_budget(self) -> int:
        """The budget "Read further" asks for (0: none larger allowed)."""
        return min(self.budget * 2, MAX_PAGE_BUDGET) if self.budget < MAX_PAGE_BUDGET else 0

    @property
    def days_with_records(self) -> list[Day]:
        return [day for week in self.weeks for day in week if day.in_month and day.entries]

    @property
    def count(self) -> int:
        return sum(len(day.entries) for day in self.days_with_records)


def empty_month(first: dt.date, *, today: dt.date) -> Month:
    weeks = month_math.Calendar(firstweekday=0).monthdatescalendar(first.year, first.month)
    return Month(
        first=first,
        weeks=[[Day(date=d, in_month=d.month == first.month, today=d == today) for d in week] for week in weeks],
    )


def _day_and_time(by: FieldDef, stored: Any, zone: dt.tzinfo) -> tuple[dt.date | None, str]:
    if by.type == FieldType.DATETIME:
        moment = parse_stored_datetime(stored)
        if moment is None:
            return None, ""
        local = moment.astimezone(zone)
        return local.date(), f"{local:%H:%M}"
    return parse_stored_date(stored), ""


def month_records(
    *,
    client,
    object_key: str,
    definition: dict,
    by: FieldDef,
    first: dt.date,
    today: dt.date,
    zone: dt.tzinfo,
    filters: dict,
    search: str,
    budget: int = PAGE_BUDGET,
) -> Month:
    """The month's records (see the module's note), at most `budget` pages read."""
    month = empty_month(first, today=today)
    month.budget = min(max(budget, 1), MAX_PAGE_BUDGET)
    days = {day.date: day for week in month.weeks for day in week if day.in_month}
    last = shift_month(first, 1) - dt.timedelta(days=1)
    title_key = title_field_key(definition)
    next_cursor: str | None = None
    while True:
        if month.pages_read >= month.budget:
            month.complete = False
            break
        page = selectors.record_list(
            client=client,
            object_key=object_key,
            filters=filters,
            search=search or None,
            sort=by.key,
            cursor=next_cursor,
            limit=PAGE_SIZE,
        )
        month.pages_read += 1
        past = False
        for item in page.items:
            record = as_dict(item)
            values = as_dict(record.get("values"))
            day, time = _day_and_time(by, values.get(by.key), zone)
            month.records_read += 1
            if day is None or day < first:
                continue
            if day > last:
                past = True
                break
            title = values.get(title_key) if title_key else None
            days[day].entries.append(
                Entry(
                    id=text(record.get("id")), title=text(title) if title not in (None, "") else "Untitled", time=time
                )
            )
        next_cursor = page.next_cursor
        if past or not next_cursor:
            break
    for shown in days.values():
        shown.entries.sort(key=lambda e: e.time)
    return month
