"""Which group a stored value falls in (pure): a choice's option, yes or
no, a date's day, week or month, or empty. The counts of objects/tallies.py,
the grid's groups and footers (objects/grouping.py), the kanban's columns and
the charts all bucket records by these rules, so a record is in the same group
on every look. Kept apart from the tallies so the grouping can use them while
the tallies fold the grouping's footers (no import cycle)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from dashboard.web.reading import text
from objects.fields import FieldDef, parse_stored_date, parse_stored_datetime
from objects.schema import CHOICE_TYPES, FieldType

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
