"""Lookups and rollups of computed columns, over the values of a record's
linked records (pure domain logic, no Django: objects/computed.py reads the
links and the linked records within the page's budget).

A lookup shows a linked record's field (several linked records: their
values joined); a rollup summarises one field of every linked record:
count, sum, average, min, max, earliest, latest.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Mapping, Sequence
from typing import Any

from objects.formulas import DATE, NUMBER, TEXT, as_text, formula_value

ROLLUPS: list[tuple[str, str]] = [
    ("count", "Count"),
    ("sum", "Sum"),
    ("average", "Average"),
    ("min", "Min"),
    ("max", "Max"),
    ("earliest", "Earliest"),
    ("latest", "Latest"),
]
ROLLUP_LABELS = dict(ROLLUPS)
NUMBER_ROLLUPS = frozenset({"sum", "average", "min", "max"})
DATE_ROLLUPS = frozenset({"earliest", "latest"})
LOOKUP_JOINER = ", "


def rollup_type(function: str, field_type: str) -> str:
    """The result's formula type: a count is a number; earliest/latest a date."""
    if function == "count" or function in NUMBER_ROLLUPS:
        return NUMBER
    if function in DATE_ROLLUPS:
        return DATE
    return field_type


def rollup_problem(function: str, field_type: str, field_label: str) -> str:
    """Why a rollup cannot summarise a field, in words ("" when it can)."""
    if function not in ROLLUP_LABELS:
        return "Choose how to roll up: count, sum, average, min, max, earliest or latest."
    if function in NUMBER_ROLLUPS and field_type != NUMBER:
        return f"{ROLLUP_LABELS[function]} needs a number field, but {field_label} is not a number."
    if function in DATE_ROLLUPS and field_type != DATE:
        return f"{ROLLUP_LABELS[function]} needs a date field, but {field_label} is not a date."
    return ""


def rollup(function: str, field_type: str, raws: Sequence[Any]) -> Any:
    """One rollup over the linked records' stored values (None: nothing to show).
    Count counts the linked records that have a value (every linked record
    when no field is named: `field_type` "")."""
    if function == "count":
        if not field_type:
            return decimal.Decimal(len(raws))
        return decimal.Decimal(sum(1 for raw in raws if formula_value(field_type, raw) is not None))
    values = [v for v in (formula_value(field_type, raw) for raw in raws) if v is not None]
    if not values:
        return None
    if function == "sum":
        return sum(values, decimal.Decimal(0))
    if function == "average":
        return sum(values, decimal.Decimal(0)) / len(values)
    if function in ("min", "earliest"):
        return min(values)
    if function in ("max", "latest"):
        return max(values)
    return None


def lookup(field_type: str, raws: Sequence[Any], choices: Mapping[str, str] | None = None) -> Any:
    """A lookup's value: the one linked record's value, else all of them joined as text."""
    values = [v for v in (formula_value(field_type or TEXT, raw, choices) for raw in raws) if v is not None]
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return LOOKUP_JOINER.join(as_text(v) for v in values)


def is_date(value: Any) -> bool:
    return isinstance(value, dt.date)
