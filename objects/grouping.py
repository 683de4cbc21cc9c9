"""The records table grouped by one field, and its footers (pure logic).

A table is grouped by a single choice (select or stage, with a group of the
records without one), a yes/no, or a date's month (a datetime's month in the
workspace's time zone); the group keys are the tallies' (objects/tallies.py
`group_keys`, by month). Each column's footer says one aggregate of its
values, chosen per column (`AGGREGATES`; count by default): how many hold a
value, and how many are empty, for every column; the sum and the average of
a number or currency; the earliest and latest of numbers and dates.

A `Summary` folds values one at a time and is kept as a JSON row, so the
table's footers over every record of a filter are folded page by page in
the background by the tally that counts the table's total (objects/tallies.py,
`footers` in its question), and the page's own groups by the same code.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from dashboard.web import local_formats
from dashboard.web.reading import as_dict
from objects.buckets import EMPTY, MONTH, group_keys
from objects.fields import (
    FieldDef,
    format_date,
    format_datetime,
    format_number,
    parse_stored_date,
    parse_stored_datetime,
    parse_stored_number,
    yes_no,
)
from objects.schema import SINGLE_CHOICE_TYPES, FieldType

GROUP_TYPES = frozenset({*SINGLE_CHOICE_TYPES, FieldType.BOOLEAN, FieldType.DATE, FieldType.DATETIME})

COUNT, SUM, AVERAGE, MIN, MAX, EMPTIES = "count", "sum", "average", "min", "max", "empty"
AGGREGATES = ((COUNT, "Count"), (SUM, "Sum"), (AVERAGE, "Average"), (MIN, "Min"), (MAX, "Max"), (EMPTIES, "Empty"))
DEFAULT_AGGREGATE = COUNT
LABELS = dict(AGGREGATES)
DATE_SUMMARY_TYPES = frozenset({FieldType.DATE, FieldType.DATETIME})


def groupable_fields(fields: list[FieldDef]) -> list[FieldDef]:
    """The fields a table can be grouped by."""
    return [f for f in fields if f.type in GROUP_TYPES]


def aggregates_for(f: FieldDef) -> list[str]:
    """The aggregates a column's footer may say."""
    if f.is_number:
        return [COUNT, SUM, AVERAGE, MIN, MAX, EMPTIES]
    if f.type in DATE_SUMMARY_TYPES:
        return [COUNT, MIN, MAX, EMPTIES]
    return [COUNT, EMPTIES]


def aggregate_choice(f: FieldDef, raw: str) -> str:
    """The aggregate asked for a column when it can say it, else the default."""
    return raw if raw in aggregates_for(f) else DEFAULT_AGGREGATE


# --- folding values -----------------------------------------------------------


def _number(stored: object) -> decimal.Decimal | None:
    number = parse_stored_number(stored)
    return number if number is not None and number.is_finite() else None


def _day(stored: object) -> str | None:
    day = parse_stored_date(stored)
    return day.isoformat() if day else None


def _moment(stored: object) -> str | None:
    moment = parse_stored_datetime(stored)
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _none(stored: object) -> None:
    return None


def _comparer(f: FieldDef) -> Callable[[object], decimal.Decimal | str | None]:
    """How min and max compare a field's values: a number, a day
    (`YYYY-MM-DD`) or a moment in UTC at microseconds (a fixed width, so
    strings compare); nothing for the other types."""
    if f.is_number:
        return _number
    if f.type == FieldType.DATE:
        return _day
    if f.type == FieldType.DATETIME:
        return _moment
    return _none


def _empty(stored: object) -> bool:
    return stored is None or stored == "" or stored == []


@dataclass
class Summary:
    """One column's values folded: records seen, values held, their sum (numbers), min and max."""

    records: int = 0
    filled: int = 0
    total: decimal.Decimal = field(default_factory=decimal.Decimal)
    low: decimal.Decimal | str | None = None
    high: decimal.Decimal | str | None = None

    def add(self, compare: Callable[[object], decimal.Decimal | str | None], stored: object) -> None:
        """One more record's value (`compare`: the field's `_comparer`)."""
        self.records += 1
        if _empty(stored):
            return
        self.filled += 1
        value = compare(stored)
        if value is None:
            return
        if isinstance(value, decimal.Decimal):
            self.total += value
        if self.low is None or value < self.low:  # type: ignore[operator]
            self.low = value
        if self.high is None or value > self.high:  # type: ignore[operator]
            self.high = value

    def merge(self, other: Summary) -> None:
        """Another part's summary added (the groups' into the page's)."""
        self.records += other.records
        self.filled += other.filled
        self.total += other.total
        if other.low is not None and (self.low is None or other.low < self.low):  # type: ignore[operator]
            self.low = other.low
        if other.high is not None and (self.high is None or other.high > self.high):  # type: ignore[operator]
            self.high = other.high

    def value(self, aggregate: str) -> decimal.Decimal | str | int | None:
        """The aggregate's value (None: nothing to say, such as the average of no numbers)."""
        if aggregate == COUNT:
            return self.filled
        if aggregate == EMPTIES:
            return self.records - self.filled
        if aggregate == SUM:
            return self.total
        if aggregate == AVERAGE:
            numbered = self.filled if isinstance(self.low, decimal.Decimal) else 0
            return self.total / numbered if numbered else None
        if aggregate == MIN:
            return self.low
        if aggregate == MAX:
            return self.high
        return None

    # A JSON row (the background tally keeps one per column).
    def to_row(self) -> list:
        def kept(v: decimal.Decimal | str | None) -> str | None:
            return None if v is None else str(v)

        return [self.records, self.filled, str(self.total), kept(self.low), kept(self.high)]

    @classmethod
    def from_row(cls, f: FieldDef, row: object) -> Summary:
        """A kept row read back; anything malformed reads as nothing counted."""
        if not isinstance(row, (list, tuple)) or len(row) != 5:
            return cls()
        records, filled, total, low, high = row
        try:
            summary = cls(records=int(records), filled=int(filled), total=decimal.Decimal(str(total)))
            if f.is_number:
                summary.low = None if low is None else decimal.Decimal(str(low))
                summary.high = None if high is None else decimal.Decimal(str(high))
            else:
                summary.low, summary.high = (None if v is None else str(v) for v in (low, high))
        except (TypeError, ValueError, decimal.InvalidOperation):
            return cls()
        return summary


def _fold(
    summaries: dict[str, Summary], records: Iterable[object], fields: list[FieldDef], valued: set[str] | None = None
) -> dict[str, Summary]:
    """`valued`: the fields whose values are read (sum, average, min, max),
    the others only counted, filled or empty; None: every field's."""
    folding = [(f.key, _comparer(f) if valued is None or f.key in valued else _none, summaries[f.key]) for f in fields]
    for item in records:
        values = as_dict(as_dict(item).get("values"))
        for key, compare, summary in folding:
            summary.add(compare, values.get(key))
    return summaries


def summarise(
    records: Iterable[object], fields: list[FieldDef], *, valued: set[str] | None = None
) -> dict[str, Summary]:
    """Every field's summary over these records (`valued`: as `_fold`)."""
    return _fold({f.key: Summary() for f in fields}, records, fields, valued)


def valued_keys(aggregates: dict[str, str]) -> set[str]:
    """The fields whose footer reads their values (not a count nor the empties)."""
    return {key for key, aggregate in aggregates.items() if aggregate not in (COUNT, EMPTIES)}


def summaries_merged(parts: Iterable[dict[str, Summary]], fields: list[FieldDef]) -> dict[str, Summary]:
    """The summaries of several parts (the groups of a page) as one."""
    merged = {f.key: Summary() for f in fields}
    for part in parts:
        for key, summary in part.items():
            if key in merged:
                merged[key].merge(summary)
    return merged


def summaries_fold(rows: dict, records: Iterable[object], fields: list[FieldDef]) -> dict:
    """Kept rows (a tally's JSON) with these records folded in: page by page."""
    kept = {f.key: Summary.from_row(f, rows.get(f.key)) if f.key in rows else Summary() for f in fields}
    return {key: summary.to_row() for key, summary in _fold(kept, records, fields).items()}


def summaries_read(rows: dict, fields: list[FieldDef]) -> dict[str, Summary]:
    return {f.key: Summary.from_row(f, rows.get(f.key)) for f in fields if f.key in rows}


def aggregate_text(f: FieldDef, aggregate: str, summary: Summary, *, zone: dt.tzinfo) -> str:
    """A footer's value in words, in the language's formats: "12", "USD 1,204.50" ("1.204,50 $"
    in German), "2026-11-03"; "—" when there is none."""
    value = summary.value(aggregate)
    if value is None:
        return "—"
    formats = local_formats.active()
    if aggregate in (COUNT, EMPTIES):
        return formats.integer(int(value))
    if f.is_number:
        places = 2 if f.type == FieldType.CURRENCY or aggregate == AVERAGE else None
        shown = format_number(value, places=places, formats=formats)
        return formats.amount(shown, f.raw.get("currency") or "") if f.type == FieldType.CURRENCY else shown
    if f.type == FieldType.DATE:
        return format_date(value, formats=formats)
    if f.type == FieldType.DATETIME:
        return format_datetime(value, zone=zone, formats=formats)
    return str(value)


# --- groups -------------------------------------------------------------------


@dataclass
class RecordGroup:
    key: str
    label: str
    records: list[dict] = field(default_factory=list)


def group_key(f: FieldDef, stored: object, *, zone: dt.tzinfo) -> str:
    """The one group a record falls in ("" without a value)."""
    keys = group_keys(f, stored, bucket=MONTH, zone=zone)
    return keys[0] if keys else EMPTY


def group_label(f: FieldDef, key: str) -> str:
    if key == EMPTY:
        return f"No {f.label.lower()}"
    if f.type in SINGLE_CHOICE_TYPES:
        option = f.option_for(key)
        return option.label if option else key
    if f.type == FieldType.BOOLEAN:
        return yes_no(key == "true")
    try:
        return local_formats.active().month(dt.date.fromisoformat(f"{key}-01"))
    except ValueError:
        return key


def _order(f: FieldDef, key: str) -> tuple:
    """Groups in the field's order: options as defined, yes before no, months
    oldest first; the empty group last."""
    if key == EMPTY:
        return (2, 0, "")
    if f.type in SINGLE_CHOICE_TYPES:
        ids = [option.id for option in f.options]
        return (0, ids.index(key), "") if key in ids else (1, 0, key)
    if f.type == FieldType.BOOLEAN:
        return (0, 0 if key == "true" else 1, "")
    return (0, 0, key)


def records_grouped(records: Iterable[object], f: FieldDef, *, zone: dt.tzinfo) -> list[RecordGroup]:
    """The records in their groups (each group keeps the records' order)."""
    groups: dict[str, RecordGroup] = {}
    for item in records:
        record = as_dict(item)
        key = group_key(f, as_dict(record.get("values")).get(f.key), zone=zone)
        if key not in groups:
            groups[key] = RecordGroup(key=key, label=group_label(f, key))
        groups[key].records.append(record)
    return sorted(groups.values(), key=lambda g: _order(f, g.key))
