"""The kanban board of an object (issue 11, item 8): one column per option of
a stage or select field, in the options' order, then "No value"; each column
one read of the records whose field holds that option (the service's
`filter`), its first cards and a count."""

from __future__ import annotations

from dataclasses import dataclass, field

from dashboard.web.reading import as_dict, text
from objects import selectors
from objects.fields import FieldDef, format_datetime, title_field_key

BOARD_TYPES = frozenset({"stage", "select"})
CARDS_PER_COLUMN = 50


@dataclass
class Card:
    id: str
    title: str
    updated: str


@dataclass
class BoardColumn:
    option_id: str  # "" for the records without a value
    label: str
    color: str
    cards: list[Card] = field(default_factory=list)
    more: bool = False  # more records than the cards shown

    @property
    def count_text(self) -> str:
        return f"{len(self.cards)}+" if self.more else str(len(self.cards))


def board_fields(fields: list[FieldDef]) -> list[FieldDef]:
    """The fields a board can group by: stage first, then selects."""
    return sorted((f for f in fields if f.type in BOARD_TYPES), key=lambda f: f.type != "stage")


def board_columns(*, client, object_key: str, definition: dict, by: FieldDef, zone) -> list[BoardColumn]:
    title_key = title_field_key(definition)
    columns = [BoardColumn(option_id=o.id, label=o.label, color=o.color) for o in by.options]
    columns.append(BoardColumn(option_id="", label="No value", color=""))
    for column in columns:
        page = selectors.record_list(
            client=client,
            object_key=object_key,
            filters={by.key: column.option_id or None},
            search=None,
            sort="-updated_at",
            cursor=None,
            limit=CARDS_PER_COLUMN,
        )
        for item in page.items:
            record = as_dict(item)
            values = as_dict(record.get("values"))
            title = values.get(title_key) if title_key else None
            column.cards.append(
                Card(
                    id=text(record.get("id")),
                    title=text(title) if title not in (None, "") else "Untitled",
                    updated=format_datetime(record["updated_at"], zone=zone) if record.get("updated_at") else "",
                )
            )
        column.more = bool(page.next_cursor)
    return columns
