"""Revert any change, not only the newest: pure domain logic over a record's
history (RecordChange entries, newest first) and its values re-read now.

Two ways back, both by the safe-edit rule of objects/edits.py:

- **Put one value back** from any history entry: the field takes again the
  value it had before that entry, only while it still holds the value that
  entry left (`shown` = the entry's after). Changed since, it is refused in
  words naming the value it has now: putting back would silently undo a
  later change (the compare page below lets the person choose knowingly).
- **The record then, beside now**: the values just before or just after an
  entry, rebuilt by walking back from now through every newer entry's
  "before"; the person ticks the fields to put back (`shown` = now, as the
  page showed it).

The console knows only the changes made through it. Where a newer entry's
"after" is not what the walk expected (a change made outside the console,
by an import or a bulk edit, which are undone as jobs), the field is marked
uncertain rather than shown as a fact.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from objects.edits import EditPlan, plan_edit, same
from objects.fields import FieldDef
from objects.history import NO_VALUES, field_or_text
from objects.models import RecordChange

# Entries whose values may be put back: creating or duplicating a record has
# no value before it (putting "nothing" back is a clear, not a revert).
PUT_BACK_FROM = frozenset(
    {
        RecordChange.Action.EDIT,
        RecordChange.Action.INLINE,
        RecordChange.Action.UNDO,
        RecordChange.Action.PUT_BACK,
    }
)
BEFORE = "before"
AFTER = "after"


def change_item(change: RecordChange, field_key: str) -> dict | None:
    """The entry's item for one field, or None."""
    items = change.changes if isinstance(change.changes, list) else []
    return next((i for i in items if isinstance(i, dict) and str(i.get("field") or "") == field_key), None)


@dataclass(frozen=True)
class PutBack:
    """Putting back one field's value from one entry: what it sets, what it
    replaces, and why not when it cannot."""

    field: FieldDef
    value: Any  # the value before the entry: what putting back sets
    left: Any  # the value the entry left
    now: Any  # the value the record holds now
    refusal: str = ""

    @property
    def already(self) -> bool:
        return not self.refusal and same(self.field, self.now, self.value)


def put_back_check(
    change: RecordChange, *, field_key: str, fields: list[FieldDef], current: Mapping[str, Any]
) -> PutBack | None:
    """None when the entry has no such field or cannot be put back at all."""
    item = change_item(change, field_key)
    if item is None or change.action not in PUT_BACK_FROM:
        return None
    by_key = {f.key: f for f in fields}
    f = field_or_text(field_key, str(item.get("label") or ""), by_key)
    value, left, now = item.get("before"), item.get("after"), current.get(field_key)
    refusal = ""
    if field_key not in by_key:
        refusal = f"{f.label} is no longer a field of this object: there is nothing to put the value back into."
    elif f.origin == "system":
        refusal = f"{f.label} is a built-in field the service sets: it cannot be written."
    elif not same(f, now, left) and not same(f, now, value):
        refusal = (
            f"{f.label} was changed again since this change: putting back the earlier value would overwrite "
            "that later change. Compare the record as it was before this change with now to choose knowingly."
        )
    return PutBack(field=f, value=value, left=left, now=now, refusal=refusal)


def put_back_plan(check: PutBack, *, current: Mapping[str, Any]) -> EditPlan:
    """The PATCH of one put-back, re-checked against the record re-read at
    submit: a conflict in the plan means it moved since the page was shown."""
    return plan_edit(
        fields=[check.field],
        shown={check.field.key: check.left},
        wanted={check.field.key: check.value},
        current=current,
    )


@dataclass
class FieldThen:
    field: FieldDef
    then: Any
    now: Any
    # A newer entry did not start from the value the walk expected: a change
    # the console did not make came between (an import, a bulk edit, another tool).
    uncertain: bool = False

    @property
    def differs(self) -> bool:
        return not same(self.field, self.then, self.now)


@dataclass
class RecordThen:
    fields: list[FieldThen] = field(default_factory=list)
    # True when the history held more entries than were read: older values may be missing.
    partial: bool = False
    # The record did not exist yet at that time (before its creation entry).
    not_yet: bool = False

    @property
    def differing(self) -> list[FieldThen]:
        return [f for f in self.fields if f.differs]

    @property
    def any_uncertain(self) -> bool:
        return any(f.uncertain for f in self.fields)


def record_then(
    newer: Iterable[RecordChange],
    *,
    change: RecordChange,
    when: str,
    fields: list[FieldDef],
    current: Mapping[str, Any],
    partial: bool = False,
) -> RecordThen:
    """The record's values just `before` or `after` `change`, walking back
    from `current` through `newer` (the entries after it, newest first)."""
    by_key = {f.key: f for f in fields}
    state = {f.key: current.get(f.key) for f in fields}
    uncertain: set[str] = set()
    walk = list(newer) + ([change] if when == BEFORE else [])
    not_yet = when == BEFORE and change.action in (RecordChange.Action.CREATE, RecordChange.Action.DUPLICATE)
    for entry in walk:
        if entry.action in NO_VALUES:
            continue
        for item in entry.changes if isinstance(entry.changes, list) else []:
            if not isinstance(item, dict):
                continue
            key = str(item.get("field") or "")
            if key not in state:
                continue  # a field removed since: nothing to compare it with now
            if not same(by_key[key], state[key], item.get("after")):
                uncertain.add(key)
            state[key] = item.get("before")
    if when == AFTER:
        # Just after the change its fields held exactly what it wrote (a fact
        # of the entry); a walk that arrives elsewhere met an outside change.
        for item in change.changes if isinstance(change.changes, list) else []:
            key = str(item.get("field") or "") if isinstance(item, dict) else ""
            if key in state:
                if not same(by_key[key], state[key], item.get("after")):
                    uncertain.add(key)
                state[key] = item.get("after")
    return RecordThen(
        fields=[
            FieldThen(field=f, then=state[f.key], now=current.get(f.key), uncertain=f.key in uncertain) for f in fields
        ],
        partial=partial,
        not_yet=not_yet,
    )


def put_back_many_plan(
    *,
    then: RecordThen,
    chosen: Iterable[str],
    shown: Mapping[str, Any],
    current: Mapping[str, Any],
    choices: Mapping[str, Any] | None = None,
) -> EditPlan:
    """The chosen fields take their values then; `shown` is now as the page
    showed it, so a field moved since the page was opened is a conflict the
    person settles (the record form's rule)."""
    wanted_keys = set(chosen)
    rows = [f for f in then.fields if f.field.key in wanted_keys]
    return plan_edit(
        fields=[f.field for f in rows],
        shown={f.field.key: shown.get(f.field.key) for f in rows},
        wanted={f.field.key: f.then for f in rows},
        current=current,
        choices=choices,
    )
