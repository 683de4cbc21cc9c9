"""The kanban board of an object: one column per option of
a stage or select field, in the options' order, then "No value"; each column
one read of the records whose field holds that option (the service's
`filter`), its first cards and a count, and "Show more" for the next
page of one column (`fill_column` after a cursor). The table's search and filters
narrow every column; a filter on the grouping field itself leaves the
other columns empty without reading them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dashboard.web import local_formats
from dashboard.web.reading import as_dict, text
from objects import computed, selectors
from objects.buckets import EMPTY, summable
from objects.fields import Cell, FieldDef, cell, format_datetime, format_number, title_field_key
from objects.models import RecordTally
from objects.schema import FieldType
from objects.tallies import tally_groups

BOARD_TYPES = frozenset({FieldType.STAGE, FieldType.SELECT})
CARDS_PER_COLUMN = 50
MAX_CARD_FIELDS = 6  # fields an admin may put on every card


@dataclass
class Card:
    id: str
    title: str
    updated: str
    # The fields the board shows on its cards (chosen with the view), as cells.
    fields: list[tuple[str, Cell]] = field(default_factory=list)


@dataclass
class BoardColumn:
    option_id: str  # "" for the records without a value
    label: str
    color: str
    cards: list[Card] = field(default_factory=list)
    more: bool = False  # more records than the cards shown
    filtered_out: bool = False  # the filter asks for another value of the grouping field
    next_cursor: str = ""  # where "Show more" goes on
    shown_before: int = 0  # cards already on the board before these (a "Show more" page)
    # Set by the view: the next cards (htmx), and this column's records in the table (without JavaScript).
    more_url: str = ""
    table_url: str = ""
    # From the board's tally (objects/tallies.py): every record of the column
    # counted, and one number field summed; `counting` while it runs.
    total: int | None = None
    counting: bool = False
    sum_text: str = ""

    @property
    def count_text(self) -> str:
        shown = self.shown_before + len(self.cards)
        if self.total is not None and not self.counting:
            return str(max(self.total, shown) if self.more else self.total)
        if not self.more:
            return str(shown)
        if self.total is not None and self.total > shown:
            # Counting: the records counted so far (more may follow).
            return f"about {self.total}"
        return f"{shown}+"

    @property
    def count_words(self) -> str:
        """The count as a screen reader hears it."""
        return f"{self.count_text} cards" + (", still counting" if self.counting and self.more else "")

    @property
    def shown(self) -> int:
        return self.shown_before + len(self.cards)


def card_fields(fields: list[FieldDef], keys: list[str], *, by: FieldDef | None) -> list[FieldDef]:
    """The fields chosen for the cards, in the object's order (not the title, not the grouping field)."""
    wanted = set(keys)
    chosen = [f for f in fields if f.key in wanted and (by is None or f.key != by.key)]
    return chosen[:MAX_CARD_FIELDS]


def apply_tally(columns: list[BoardColumn], tally: RecordTally | None, *, sum_field: FieldDef | None) -> None:
    """Each column's total (and sum) from the board's tally, "about" while it counts."""
    if tally is None:
        return
    groups = tally_groups(tally)
    counting = tally.status == RecordTally.COUNTING
    if tally.status == RecordTally.STOPPED:
        return
    formats = local_formats.active()
    for column in columns:
        if column.filtered_out:
            continue
        group = groups.get(column.option_id or EMPTY)
        column.total = group.count if group else 0
        column.counting = counting
        if sum_field is not None and not counting:
            total = group.total if group else 0
            places = 2 if sum_field.type == FieldType.CURRENCY else None
            shown = format_number(total, places=places, formats=formats)
            column.sum_text = formats.amount(shown, sum_field.raw.get("currency") or "") if places else shown


def sum_choices(*, workspace_id: str, object_key: str, fields: list[FieldDef]) -> list[FieldDef]:
    """What a column may sum: the number fields, then the formula columns whose
    result is a number (computed on every record the board's count reads)."""
    formulas = computed.counted_specs(workspace_id=workspace_id, object_key=object_key, fields=fields)
    return [*summable(fields), *computed.counted_fields(formulas, number=True)]


def board_fields(fields: list[FieldDef]) -> list[FieldDef]:
    """The fields a board can group by: stage first, then selects."""
    return sorted((f for f in fields if f.type in BOARD_TYPES), key=lambda f: f.type != FieldType.STAGE)


def _wanted_by_filter(column: BoardColumn, wanted: Any) -> bool:
    """Whether the filter's value for the grouping field (an option id or
    label, or None for "empty") is this column's."""
    if wanted is None:
        return column.option_id == ""
    wanted_text = text(wanted).strip().casefold()
    return bool(column.option_id) and wanted_text in {column.option_id.casefold(), column.label.casefold()}


def board_columns(
    *,
    client,
    object_key: str,
    definition: dict,
    by: FieldDef,
    zone,
    filters: dict | None = None,
    search: str = "",
    keep: Callable[[dict], bool] | None = None,
    shown_fields: list[FieldDef] | None = None,
) -> list[BoardColumn]:
    columns = empty_columns(by)
    filters = dict(filters or {})
    for column in columns:
        if by.key in filters and not _wanted_by_filter(column, filters[by.key]):
            column.filtered_out = True
            continue
        fill_column(
            column,
            client=client,
            object_key=object_key,
            definition=definition,
            by=by,
            zone=zone,
            filters=filters,
            search=search,
            keep=keep,
            shown_fields=shown_fields,
        )
    return columns


def empty_columns(by: FieldDef) -> list[BoardColumn]:
    """The board's columns, in the options' order, then "No value"."""
    columns = [BoardColumn(option_id=o.id, label=o.label, color=o.color) for o in by.options]
    columns.append(BoardColumn(option_id="", label="No value", color=""))
    return columns


def fill_column(
    column: BoardColumn,
    *,
    client,
    object_key: str,
    definition: dict,
    by: FieldDef,
    zone,
    filters: dict,
    search: str,
    cursor: str = "",
    keep: Callable[[dict], bool] | None = None,
    shown_fields: list[FieldDef] | None = None,
) -> None:
    """One page of a column's cards (the first, or the one after `cursor`:
    "Show more"), the most recently updated first."""
    title_key = title_field_key(definition)
    page = selectors.record_list(
        client=client,
        object_key=object_key,
        filters={**filters, by.key: column.option_id or None},
        search=search or None,
        sort="-updated_at",
        cursor=cursor or None,
        limit=CARDS_PER_COLUMN,
    )
    for item in page.items:
        record = as_dict(item)
        if keep is not None and not keep(record):
            continue  # a condition the service cannot check (objects/filters.py)
        values = as_dict(record.get("values"))
        title = values.get(title_key) if title_key else None
        column.cards.append(
            Card(
                id=text(record.get("id")),
                title=text(title) if title not in (None, "") else "Untitled",
                updated=format_datetime(record["updated_at"], zone=zone) if record.get("updated_at") else "",
                fields=[(f.label, cell(f, values.get(f.key), zone=zone)) for f in shown_fields or []],
            )
        )
    column.next_cursor = page.next_cursor or ""
    column.more = bool(page.next_cursor)
