"""The ways to look at an object's records, saved alike: the table, the
kanban, the calendar, the gallery and the chart. A saved view
(`objects.models.SavedView`) keeps its kind, the filter and search it narrows
to (`query`, the table's parameters) and its kind's own settings (the
grouping field, the fields on cards, the measure...); its address opens that
page with both in the query string, so every such page is also a plain link.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import QueryDict
from django.urls import reverse

from objects.filters import RecordFilter

TABLE, KANBAN, CALENDAR, GALLERY, CHART = "table", "kanban", "calendar", "gallery", "chart"
KINDS = [(TABLE, "Table"), (KANBAN, "Kanban"), (CALENDAR, "Calendar"), (GALLERY, "Gallery"), (CHART, "Chart")]
# Each kind's own settings, as its page reads them from the query string (lists repeat the name).
SETTINGS: dict[str, tuple[str, ...]] = {
    KANBAN: ("by", "card", "sum"),
    CALENDAR: ("date",),
    GALLERY: ("image",),
    CHART: ("group", "bucket", "measure", "value"),
}
LIST_SETTINGS = frozenset({"card"})
MAX_SETTING_LENGTH = 200
MAX_LIST_SETTING = 20


def pick_field(choices: list, key: str | None):
    """The field of `choices` named by `key` (a page's setting), else the first, else None."""
    return next((f for f in choices if f.key == key), choices[0] if choices else None)


def look_kind(raw: str | None) -> str:
    return raw if raw in dict(KINDS) else TABLE


def settings_from_query(kind: str, query: QueryDict) -> dict[str, str | list[str]]:
    """The kind's own settings found in a page's query string (bounded; the
    page checks them against the object's fields whenever it is opened)."""
    out: dict[str, str | list[str]] = {}
    for name in SETTINGS.get(kind, ()):
        if name in LIST_SETTINGS:
            values: list[str] = [str(v)[:MAX_SETTING_LENGTH] for v in query.getlist(name) if v][:MAX_LIST_SETTING]
            if values:
                out[name] = values
        elif query.get(name):
            out[name] = str(query[name])[:MAX_SETTING_LENGTH]
    return out


def settings_pairs(settings: dict) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for name, value in (settings or {}).items():
        if isinstance(value, list):
            pairs += [(name, str(v)) for v in value]
        elif isinstance(value, str) and value:
            pairs.append((name, value))
    return pairs


def look_url(kind: str, object_key: str) -> str:
    return reverse("objects:records" if kind == TABLE else f"objects:{kind}", args=[object_key])


def look_address(*, kind: str, object_key: str, query: str, settings: dict, view_pk: int) -> str:
    """A saved view's page: its kind's address, its filter, its settings, `view`."""
    pairs = [*QueryDict(query).lists()]
    flat = [(name, value) for name, values in pairs for value in values]
    return f"{look_url(kind, object_key)}?{urlencode([*flat, *settings_pairs(settings), ('view', str(view_pk))])}"


def switch_links(*, object_key: str, filter_pairs: list[tuple[str, str]], current: str) -> list[dict]:
    """The "Table · Kanban · Calendar · Gallery · Chart" links of every look,
    carrying the search and filters both ways."""
    query = urlencode(filter_pairs)
    return [
        {
            "kind": kind,
            "label": label,
            "url": look_url(kind, object_key) + (f"?{query}" if query else ""),
            "current": kind == current,
        }
        for kind, label in KINDS
    ]


def filter_pairs(query: QueryDict, fields, linked=()) -> list[tuple[str, str]]:
    """The search and filters of a page's query string, checked (`linked`:
    the linked records' fields it may name, objects/linked_fields.py)."""
    return RecordFilter.from_query(query, fields, linked).pairs()
