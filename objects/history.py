"""A record's history as the record page shows it, and undo: the latest
change made through the console is undone by a PATCH restoring the values it
replaced, checked like any edit (objects/edits.py): a field changed again
since is a conflict the person settles."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from objects.edits import EditPlan, plan_edit
from objects.fields import Cell, FieldDef, cell, format_datetime
from objects.models import RecordChange
from objects.schema import FieldType

UNDOABLE = frozenset({RecordChange.Action.EDIT, RecordChange.Action.INLINE})
# Entries that change no value: a link, a restore. They never block undoing
# the edit before them.
NO_VALUES = frozenset({RecordChange.Action.LINK, RecordChange.Action.RESTORE})


def latest_value_change(history) -> RecordChange | None:
    """The newest entry that changed values (history is newest first): the
    one that can be undone, when it is an edit not undone yet."""
    return next((change for change in history if change.action not in NO_VALUES), None)


def undoable_change(history) -> RecordChange | None:
    latest = latest_value_change(history)
    return latest if latest is not None and latest.action in UNDOABLE and not latest.undone_at else None


@dataclass
class HistoryItem:
    label: str
    before: Cell
    after: Cell
    key: str = ""


@dataclass
class LinkItem:
    """A link made through the console, seen from this record."""

    relation_key: str
    direction: str  # "to" (this record is the source) or "from"
    title: str
    url: str
    ref: tuple[str, str] = ("", "")  # the other record (object key, id), checked against its object's policy


@dataclass
class HistoryRow:
    change: RecordChange
    when: str
    items: list[HistoryItem]
    links: list[LinkItem] = field(default_factory=list)

    @property
    def action_label(self) -> str:
        return RecordChange.Action(self.change.action).label if self.change.action in RecordChange.Action else ""


def field_or_text(key: str, label: str, fields: dict[str, FieldDef]) -> FieldDef:
    # A field removed since is shown as text.
    return fields.get(key) or FieldDef(
        key=key,
        label=label or key,
        type=FieldType.TEXT,
        required=False,
        options=(),
        origin="custom",
        max_length=None,
        raw={},
    )


def history_rows(
    changes: list[RecordChange], *, fields: list[FieldDef], zone, hidden: frozenset[str] = frozenset()
) -> list[HistoryRow]:
    """`hidden`: fields whose values this person may not see (objects/access.py), left out."""
    by_key = {f.key: f for f in fields}
    rows = []
    for change in changes:
        if change.action == RecordChange.Action.LINK:
            rows.append(
                HistoryRow(
                    change=change,
                    when=format_datetime(change.created_at.isoformat(), zone=zone),
                    items=[],
                    links=_link_items(change),
                )
            )
            continue
        items = []
        for item in change.changes if isinstance(change.changes, list) else []:
            if not isinstance(item, dict) or str(item.get("field") or "") in hidden:
                continue
            f = field_or_text(str(item.get("field") or ""), str(item.get("label") or ""), by_key)
            items.append(
                HistoryItem(
                    label=f.label,
                    before=cell(f, item.get("before"), zone=zone),
                    after=cell(f, item.get("after"), zone=zone),
                    key=f.key,
                )
            )
        rows.append(
            HistoryRow(change=change, when=format_datetime(change.created_at.isoformat(), zone=zone), items=items)
        )
    return rows


def _link_items(change: RecordChange) -> list[LinkItem]:
    from objects.names import record_url

    links = []
    for item in change.changes if isinstance(change.changes, list) else []:
        if not isinstance(item, dict):
            continue
        other_object, other_id = str(item.get("object") or ""), str(item.get("id") or "")
        links.append(
            LinkItem(
                relation_key=str(item.get("relation_key") or ""),
                direction="from" if item.get("direction") == "from" else "to",
                title=str(item.get("title") or "") or f"record {other_id[:8]}… in {other_object}",
                url=record_url(other_object, other_id) if other_object and other_id else "",
                ref=(other_object, other_id),
            )
        )
    return links


def undo_plan(
    change: RecordChange, *, fields: list[FieldDef], current: dict[str, Any], choices: dict | None = None
) -> EditPlan:
    """Restore each field's value before the change, unless it moved since
    (then: a conflict, unless the person chose)."""
    items = [item for item in change.changes if isinstance(item, dict) and item.get("field")]
    by_key = {f.key: f for f in fields}
    undo_fields = [field_or_text(str(i["field"]), str(i.get("label") or ""), by_key) for i in items]
    return plan_edit(
        fields=undo_fields,
        shown={str(i["field"]): i.get("after") for i in items},
        wanted={str(i["field"]): i.get("before") for i in items},
        current=current,
        choices=choices,
    )
