"""Likely twins among an object's records, by one field: pure (no I/O).

A value is normalised by the kind of its field before records are grouped:

- text (and anything else): case folded, accents kept, punctuation dropped,
  runs of spaces made one: "ACME Corp." and "  acme   corp" are one key;
- email: trimmed and case folded, nothing more. Gmail's dots and `+tags` are
  NOT folded: `a.b@gmail.com` and `ab+x@gmail.com` reach one inbox, but they
  are often two people of one family or two roles of one person on purpose,
  and a merge sends a record to the trash, so only the address itself counts;
- phone: its digits only; a leading country code is tolerated, so
  "+1 (555) 010-2000" and "555 010 2000" are one key (the last ten digits
  when there are more than ten, an international "00" prefix dropped).

`exact` groups by the value as stored (text compared as is), for a person
who wants no folding at all. Empty values never make a group.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

EXACT = "exact"
NORMALISED = "normalised"
MODES = (NORMALISED, EXACT)

PHONE_DIGITS = 10  # the national number kept when a country code leads
_SPACES = re.compile(r"\s+")


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(sorted(_text(v) for v in value))
    if isinstance(value, dict):
        return " ".join(f"{k}={_text(v)}" for k, v in sorted(value.items()))
    return str(value)


def normalise_text(value: Any) -> str:
    """Case folded, punctuation dropped, spaces made one: "ACME Corp." -> "acme corp"."""
    folded = unicodedata.normalize("NFKC", _text(value)).casefold()
    kept = "".join(ch if not unicodedata.category(ch).startswith(("P", "S")) else " " for ch in folded)
    return _SPACES.sub(" ", kept).strip()


def normalise_email(value: Any) -> str:
    """Trimmed and case folded; dots and +tags kept (see the module's note)."""
    return _text(value).strip().casefold()


def normalise_phone(value: Any) -> str:
    """Digits only, a leading country code tolerated; '' below 5 digits."""
    digits = "".join(ch for ch in _text(value) if ch.isdigit())
    if digits.startswith("00") and len(digits) > PHONE_DIGITS:
        digits = digits[2:]
    if len(digits) > PHONE_DIGITS:
        digits = digits[-PHONE_DIGITS:]
    return digits if len(digits) >= 5 else ""


def value_key(value: Any, *, field_type: str, mode: str = NORMALISED) -> str:
    """The grouping key of one value ('' when it makes no group)."""
    if mode == EXACT:
        return _text(value).strip() if value not in (None, "", [], {}) else ""
    if field_type == "email":
        return normalise_email(value)
    if field_type == "phone":
        return normalise_phone(value)
    return normalise_text(value)


@dataclass
class Group:
    """Records sharing one key; `ids` in the order they were read."""

    key: str
    ids: list[str] = field(default_factory=list)
    shown: str = ""  # the first record's value, as a person would read it


def duplicate_groups(
    records: Iterable[dict], *, field_key: str, field_type: str, mode: str = NORMALISED
) -> list[Group]:
    """Groups of two or more records whose values of `field_key` share a
    key, largest first (then as read). A record without an id is passed over."""
    groups: dict[str, Group] = {}
    for record in records:
        if not isinstance(record, dict):
            continue
        record_id = _text(record.get("id"))
        values = _values(record)
        value = values.get(field_key)
        key = value_key(value, field_type=field_type, mode=mode)
        if not record_id or not key:
            continue
        group = groups.get(key)
        if group is None:
            group = groups[key] = Group(key=key, shown=_text(value))
        if record_id not in group.ids:
            group.ids.append(record_id)
    found = [g for g in groups.values() if len(g.ids) > 1]
    order = {g.key: n for n, g in enumerate(found)}
    return sorted(found, key=lambda g: (-len(g.ids), order[g.key]))


def _values(record: dict) -> dict:
    values = record.get("values")
    return values if isinstance(values, dict) else {}


def is_empty(value: Any) -> bool:
    return value in (None, "", [], {})


def default_choices(records: list[dict], field_keys: Iterable[str]) -> dict[str, int]:
    """Per field, which record's value a merge keeps by default: the kept
    record's (the first) when it has one, else the first non-empty one."""
    chosen: dict[str, int] = {}
    for key in field_keys:
        chosen[key] = 0
        for n, record in enumerate(records):
            values = _values(record)
            if not is_empty(values.get(key)):
                chosen[key] = n
                break
    return chosen
