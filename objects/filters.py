"""A records filter, in one place: read from the URL, checked against the
object's fields, turned into the service's query, and shown as the filter bar.

URL parameters (all optional):

- `q`: search text (the service's `search`);
- `f.<field key>`: an exact-value filter (repeat it for a multi-select: the
  record must contain every option given); choice filters carry option ids,
  booleans `true`/`false`;
- `empty`: a field key whose value must be empty (repeatable).

The service's query: `filter` is URL-encoded JSON of `{field key: value}`
(`null` for "is empty"), `search` and `sort` as given.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict

from objects.fields import FieldDef, parse_stored_date, parse_stored_number
from objects.schema import NUMBER_TYPES, SINGLE_CHOICE_TYPES, FieldType

FILTER_PREFIX = "f."
MAX_SEARCH_LENGTH = 500


def filterable(field_def: FieldDef) -> bool:
    """Fields with an exact-value control in the filter bar (every field can
    be filtered as "is empty"). Datetimes need the exact instant, so they
    only get "is empty"; image and file addresses likewise."""
    return field_def.type not in {FieldType.DATETIME, FieldType.IMAGE, FieldType.FILE, FieldType.LONG_TEXT}


def filter_value(field_def: FieldDef, raw: str | list[str]) -> Any:
    """A filter bar entry as the service's `filter` wants it: choice by
    option id, booleans `true`/`false`, numbers as numbers, a multi-select
    as the list of option ids the record must contain. ValueError (with a
    message for the person) when it can't be read."""
    kind = field_def.type
    if kind == FieldType.MULTI_SELECT:
        values = raw if isinstance(raw, list) else [raw]
        return [v for v in values if v]
    value = raw[0] if isinstance(raw, list) else raw
    if kind == FieldType.BOOLEAN:
        return value == "true"
    if kind in NUMBER_TYPES:
        number = parse_stored_number(value)
        if number is None or not number.is_finite():
            raise ValueError(f"{field_def.label}: enter a number.")
        return int(number) if number == number.to_integral_value() else float(number)
    if kind == FieldType.DATE:
        parsed = parse_stored_date(value)
        if parsed is None:
            raise ValueError(f"{field_def.label}: enter a date as YYYY-MM-DD.")
        return parsed.isoformat()
    return value


@dataclass
class RecordFilter:
    search: str = ""
    filters: dict[str, list[str]] = field(default_factory=dict)
    empty: list[str] = field(default_factory=list)

    @classmethod
    def from_query(cls, query: QueryDict, fields: list[FieldDef]) -> RecordFilter:
        """What the URL asks for, keeping only the object's own filterable fields."""
        known = {f.key: f for f in fields}
        filters: dict[str, list[str]] = {}
        for name in query:
            if not name.startswith(FILTER_PREFIX):
                continue
            key = name[len(FILTER_PREFIX) :]
            values = [v.strip() for v in query.getlist(name) if v.strip()]
            if key in known and values and filterable(known[key]):
                filters[key] = values
        empty = [key for key in dict.fromkeys(query.getlist("empty")) if key in known]
        return cls(search=query.get("q", "").strip()[:MAX_SEARCH_LENGTH], filters=filters, empty=empty)

    def service_filter(self, fields: list[FieldDef]) -> tuple[dict, list[str]]:
        """The service's `filter` object, and a message for each entry that
        could not be read (that entry is left out, the rest still apply)."""
        known = {f.key: f for f in fields}
        result: dict = {}
        problems: list[str] = []
        for key, values in self.filters.items():
            if key in self.empty:
                continue
            try:
                result[key] = filter_value(known[key], values)
            except ValueError as exc:
                problems.append(str(exc))
        for key in self.empty:
            result[key] = None
        return result, problems

    def pairs(self) -> list[tuple[str, str]]:
        """This filter as URL query pairs."""
        pairs: list[tuple[str, str]] = []
        if self.search:
            pairs.append(("q", self.search))
        for key, values in self.filters.items():
            pairs.extend((FILTER_PREFIX + key, value) for value in values)
        pairs.extend(("empty", key) for key in self.empty)
        return pairs

    @property
    def active_count(self) -> int:
        return len(self.filters) + len(self.empty)


def remote_query(*, filters: dict | None, search: str | None, sort: str | None) -> dict[str, str]:
    """The records list's query for the service (httpx URL-encodes `filter`)."""
    params: dict[str, str] = {}
    if filters:
        params["filter"] = json.dumps(filters, separators=(",", ":"), ensure_ascii=False)
    if search:
        params["search"] = search
    if sort:
        params["sort"] = sort
    return params


@dataclass
class FilterControl:
    """One field's entry in the filter bar."""

    field: FieldDef
    control: str  # choice, multi, boolean, number, date, text, empty_only
    values: list[str]
    is_empty: bool

    @property
    def name(self) -> str:
        return FILTER_PREFIX + self.field.key

    @property
    def value(self) -> str:
        return self.values[0] if self.values else ""


def filter_controls(fields: list[FieldDef], record_filter: RecordFilter) -> list[FilterControl]:
    controls = []
    for f in fields:
        if not filterable(f):
            control = "empty_only"
        elif f.type in SINGLE_CHOICE_TYPES:
            control = "choice"
        elif f.type == FieldType.MULTI_SELECT:
            control = "multi"
        elif f.type == FieldType.BOOLEAN:
            control = "boolean"
        elif f.type in NUMBER_TYPES:
            control = "number"
        elif f.type == FieldType.DATE:
            control = "date"
        else:
            control = "text"
        controls.append(
            FilterControl(
                field=f,
                control=control,
                values=record_filter.filters.get(f.key, []),
                is_empty=f.key in record_filter.empty,
            )
        )
    return controls
