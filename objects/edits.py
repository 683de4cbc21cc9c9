"""Safe edits: a form carries the values it showed, so an edit sends only
what the person changed relative to them, and a field changed meanwhile by
someone else (and differently) is a conflict the person settles.

The same rule serves the record form, an inline cell edit and an undo:

- `shown` is what the person saw (the record when the form was rendered,
  carried in the form as JSON; for an undo, the values the change left);
- `wanted` is what the person asks for (the form's values; the values
  before the change);
- `current` is the record re-read just before writing.

A field the person changed is a conflict when `current` differs from both
`shown` and `wanted`. The person's choice for it (mine or theirs) is posted
with the value it was made against (`seen`): if the field moved again since,
the choice no longer applies and the conflict is shown anew.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from objects.fields import FieldDef, cell, comparable

SHOWN_FIELD = "shown_values"
CHOICE_PREFIX = "resolve."
SEEN_PREFIX = "seen."
MINE = "mine"
THEIRS = "theirs"
MAX_SHOWN_LENGTH = 200_000


def encode_values(values: Mapping[str, Any], fields: Iterable[FieldDef]) -> str:
    """The values of these fields as carried in a form (compact JSON)."""
    return json.dumps({f.key: values.get(f.key) for f in fields}, sort_keys=True, separators=(",", ":"), default=str)


def decode_values(raw: str | None, *, limit: int = MAX_SHOWN_LENGTH) -> dict | None:
    """The carried values, or None when absent or unreadable (a form from
    before this rule, or one changed by hand): the caller then compares with
    the record re-read at submit, as before. (`limit`: the longest text read;
    a grid paste's dry run carries a page of records.)"""
    if not raw or len(raw) > limit:
        return None
    try:
        decoded = json.loads(raw)
    except ValueError:
        return None
    return decoded if isinstance(decoded, dict) else None


def value_token(value: Any) -> str:
    """A stable text for one stored value (what a choice was made against)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class Conflict:
    field: FieldDef
    shown: Any
    mine: Any
    theirs: Any

    @property
    def key(self) -> str:
        return self.field.key

    @property
    def seen_token(self) -> str:
        return value_token(self.theirs)

    @property
    def choice_name(self) -> str:
        return CHOICE_PREFIX + self.field.key

    @property
    def seen_name(self) -> str:
        return SEEN_PREFIX + self.field.key


@dataclass
class EditPlan:
    """What to send (`changes`), what those fields hold now (`before`, for
    the history) and what the person must settle first (`conflicts`)."""

    changes: dict = field(default_factory=dict)
    before: dict = field(default_factory=dict)
    conflicts: list[Conflict] = field(default_factory=list)
    kept_theirs: list[str] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return not self.conflicts


def same(f: FieldDef, a: Any, b: Any) -> bool:
    return comparable(f, a) == comparable(f, b)


def plan_edit(
    *,
    fields: Iterable[FieldDef],
    shown: Mapping[str, Any],
    wanted: Mapping[str, Any],
    current: Mapping[str, Any],
    choices: Mapping[str, Any] | None = None,
) -> EditPlan:
    """Compare wanted with shown (what the person changed), then with current
    (what changed meanwhile). `choices` is the posted form (`resolve.<key>`,
    `seen.<key>`)."""
    choices = choices or {}
    plan = EditPlan()
    for f in fields:
        if f.key not in wanted:
            continue
        mine = wanted[f.key]
        seen = shown.get(f.key)
        theirs = current.get(f.key)
        if same(f, mine, seen):
            continue  # not changed by this person: never sent, so never reverted
        if not same(f, theirs, seen) and not same(f, theirs, mine):
            choice = choices.get(CHOICE_PREFIX + f.key)
            if choice in (MINE, THEIRS) and choices.get(SEEN_PREFIX + f.key) == value_token(theirs):
                if choice == THEIRS:
                    plan.kept_theirs.append(f.key)
                    continue
            else:
                plan.conflicts.append(Conflict(field=f, shown=seen, mine=mine, theirs=theirs))
                continue
        if same(f, theirs, mine):
            continue  # already so: nothing to write
        plan.changes[f.key] = mine
        plan.before[f.key] = theirs
    return plan


def conflict_rows(conflicts: list[Conflict], *, zone: tzinfo) -> list[dict[str, Any]]:
    """Each conflict with its three values as cells (what was shown, theirs now, mine)."""
    return [
        {
            "conflict": c,
            "shown": cell(c.field, c.shown, zone=zone),
            "theirs": cell(c.field, c.theirs, zone=zone),
            "mine": cell(c.field, c.mine, zone=zone),
        }
        for c in conflicts
    ]
