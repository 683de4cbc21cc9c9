"""The records table's state, held entirely in the URL so a view can be shared
and the browser's back button works.

Query parameters (all optional):

- `q`: search text (the service's `search`);
- `sort`: a field key, `created_at` or `updated_at`, `-` prefix for descending;
- `limit`: page size, 25, 50 or 100;
- `f.<field key>`: an exact-value filter (repeat it for a multi-select: the
  record must contain every option given); choice filters carry option ids,
  booleans `true`/`false`;
- `empty`: a field key whose value must be empty (repeatable);
- `cursor`: the opaque cursor of the page shown;
- `back`: the cursors of the pages before it, oldest first, repeated in order
  (an empty value is the first page). Cursors are opaque, so the trail is the
  only way back; it also makes a shared link land on the same page.

Changing the search, a filter, the sort or the page size starts again from the
first page (cursors belong to one query).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.http import QueryDict

from objects.fields import FieldDef, filter_value, filterable

PAGE_SIZES = (25, 50, 100)
DEFAULT_PAGE_SIZE = 25
DEFAULT_SORT = "-updated_at"
TIMESTAMP_COLUMNS = (("created_at", "Created"), ("updated_at", "Updated"))
FILTER_PREFIX = "f."


@dataclass
class TableState:
    search: str = ""
    sort: str = DEFAULT_SORT
    limit: int = DEFAULT_PAGE_SIZE
    filters: dict[str, list[str]] = field(default_factory=dict)
    empty: list[str] = field(default_factory=list)
    cursor: str = ""
    back: list[str] = field(default_factory=list)

    @classmethod
    def from_query(cls, query: QueryDict, fields: list[FieldDef]) -> TableState:
        known = {f.key: f for f in fields}
        sortable = set(known) | {key for key, _ in TIMESTAMP_COLUMNS}
        sort = query.get("sort", "").strip() or DEFAULT_SORT
        if sort.lstrip("-") not in sortable:
            sort = DEFAULT_SORT
        try:
            limit = int(query.get("limit", DEFAULT_PAGE_SIZE))
        except ValueError:
            limit = DEFAULT_PAGE_SIZE
        if limit not in PAGE_SIZES:
            limit = DEFAULT_PAGE_SIZE
        filters: dict[str, list[str]] = {}
        for name in query:
            if not name.startswith(FILTER_PREFIX):
                continue
            key = name[len(FILTER_PREFIX) :]
            values = [v.strip() for v in query.getlist(name) if v.strip()]
            if key in known and values and filterable(known[key]):
                filters[key] = values
        empty = [key for key in dict.fromkeys(query.getlist("empty")) if key in known]
        return cls(
            search=query.get("q", "").strip(),
            sort=sort,
            limit=limit,
            filters=filters,
            empty=empty,
            cursor=query.get("cursor", ""),
            back=query.getlist("back") if query.get("cursor") else [],
        )

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

    # --- URLs -----------------------------------------------------------

    def _pairs(self, *, sort: str | None = None, paging: bool = True) -> list[tuple[str, str]]:
        pairs: list[tuple[str, str]] = []
        if self.search:
            pairs.append(("q", self.search))
        for key, values in self.filters.items():
            pairs.extend((FILTER_PREFIX + key, value) for value in values)
        pairs.extend(("empty", key) for key in self.empty)
        chosen_sort = self.sort if sort is None else sort
        if chosen_sort != DEFAULT_SORT:
            pairs.append(("sort", chosen_sort))
        if self.limit != DEFAULT_PAGE_SIZE:
            pairs.append(("limit", str(self.limit)))
        if paging and self.cursor:
            pairs.extend(("back", c) for c in self.back)
            pairs.append(("cursor", self.cursor))
        return pairs

    def query(self) -> str:
        """This very page."""
        return urlencode(self._pairs())

    def first_page_query(self) -> str:
        return urlencode(self._pairs(paging=False))

    def sort_query(self, key: str) -> str:
        """Sort by a column: ascending first, again to reverse; from the first page."""
        new_sort = f"-{key}" if self.sort == key else key
        return urlencode(self._pairs(sort=new_sort, paging=False))

    def sort_direction(self, key: str) -> str:
        if self.sort == key:
            return "ascending"
        if self.sort == f"-{key}":
            return "descending"
        return "none"

    def next_query(self, next_cursor: str) -> str:
        pairs = self._pairs(paging=False)
        pairs.extend(("back", c) for c in [*self.back, self.cursor])
        pairs.append(("cursor", next_cursor))
        return urlencode(pairs)

    def previous_query(self) -> str | None:
        """The page before this one, or None on the first page."""
        if not self.cursor:
            return None
        pairs = self._pairs(paging=False)
        *trail, previous = self.back or [""]
        if previous:
            pairs.extend(("back", c) for c in trail)
            pairs.append(("cursor", previous))
        return urlencode(pairs)

    @property
    def page_number(self) -> int:
        return len(self.back) + 1 if self.cursor else 1

    def export_query(self) -> str:
        """The whole filtered, sorted view (every page)."""
        pairs = [(k, v) for k, v in self._pairs(paging=False) if k != "limit"]
        return urlencode(pairs)

    @property
    def active_filter_count(self) -> int:
        return len(self.filters) + len(self.empty)


# --- the table as the template shows it --------------------------------------


@dataclass
class Column:
    key: str
    label: str
    field: FieldDef | None  # None for the created/updated columns
    sort_query: str
    sort_direction: str
    is_title: bool = False


@dataclass
class Row:
    id: str
    url: str
    title: object  # the title field's Cell
    cells: list  # [(Column, Cell)] for the other visible columns
    created_at: str
    updated_at: str

    @property
    def cells_html(self):
        """The row's value cells as one piece of markup: a template loop over
        ~1,500 cells of a 100-row page was most of its render time."""
        from html import escape

        from django.utils.safestring import mark_safe

        from objects.templatetags.records import render_cell

        return mark_safe(
            "".join(
                f'<td class="cell cell--{escape(column.field.type)}">{render_cell(shown)}</td>'
                for column, shown in self.cells
            )
        )


@dataclass
class RecordsTable:
    object_key: str
    definition: dict
    fields: list[FieldDef]
    columns: list[Column]
    rows: list[Row]
    state: TableState
    next_query: str | None
    previous_query: str | None
    filter_problems: list[str]
    hidden_fields: list[str]

    @property
    def singular_name(self) -> str:
        return self.definition.get("singular_name") or self.object_key

    @property
    def plural_name(self) -> str:
        return self.definition.get("plural_name") or self.object_key

    @property
    def title_column(self) -> Column | None:
        return self.columns[0] if self.columns and self.columns[0].is_title else None

    @property
    def other_columns(self) -> list[Column]:
        return [c for c in self.columns if not c.is_title]


def record_values(record: dict) -> dict:
    values = record.get("values")
    return values if isinstance(values, dict) else {}


def build_table(
    *,
    object_key: str,
    definition: dict,
    fields: list[FieldDef],
    records: list[dict],
    next_cursor: str | None,
    state: TableState,
    hidden_fields: list[str],
    filter_problems: list[str],
    zone,
) -> RecordsTable:
    from urllib.parse import quote

    from django.urls import reverse

    from objects.fields import cell, format_datetime, title_field_key

    title_key = title_field_key(definition)
    # One reverse() for the page, not one per row.
    record_url_prefix = reverse("objects:record", args=[object_key, "-"])[:-2]
    columns = []
    for f in fields:
        # The title column links to the record, so it cannot be hidden.
        if f.key in hidden_fields and f.key != title_key:
            continue
        columns.append(
            Column(
                key=f.key,
                label=f.label,
                field=f,
                sort_query=state.sort_query(f.key),
                sort_direction=state.sort_direction(f.key),
                is_title=f.key == title_key,
            )
        )
    for key, label in TIMESTAMP_COLUMNS:
        columns.append(
            Column(
                key=key,
                label=label,
                field=None,
                sort_query=state.sort_query(key),
                sort_direction=state.sort_direction(key),
            )
        )
    rows = []
    for record in records:
        values = record_values(record)
        title_cell = None
        cells = []
        for column in columns:
            if column.field is None:
                continue
            shown = cell(column.field, values.get(column.key), zone=zone)
            if column.is_title:
                title_cell = shown
            else:
                cells.append((column, shown))
        record_id = str(record.get("id", ""))
        rows.append(
            Row(
                id=record_id,
                url=record_url_prefix + quote(record_id, safe="") + "/",
                title=title_cell,
                cells=cells,
                created_at=format_datetime(record["created_at"], zone=zone) if record.get("created_at") else "",
                updated_at=format_datetime(record["updated_at"], zone=zone) if record.get("updated_at") else "",
            )
        )
    return RecordsTable(
        object_key=object_key,
        definition=definition,
        fields=fields,
        columns=columns,
        rows=rows,
        state=state,
        next_query=state.next_query(next_cursor) if next_cursor else None,
        previous_query=state.previous_query(),
        filter_problems=filter_problems,
        hidden_fields=hidden_fields,
    )


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


def filter_controls(fields: list[FieldDef], state: TableState) -> list[FilterControl]:
    controls = []
    for f in fields:
        if not filterable(f):
            control = "empty_only"
        elif f.type in {"select", "stage"}:
            control = "choice"
        elif f.type == "multi_select":
            control = "multi"
        elif f.type == "boolean":
            control = "boolean"
        elif f.type in {"number", "currency"}:
            control = "number"
        elif f.type == "date":
            control = "date"
        else:
            control = "text"
        controls.append(
            FilterControl(field=f, control=control, values=state.filters.get(f.key, []), is_empty=f.key in state.empty)
        )
    return controls


# --- the record page's relationships panel -----------------------------------


@dataclass
class Link:
    relation_key: str
    direction: str  # "outgoing" (this record is the source) or "incoming"
    object_key: str
    record_id: str
    label: str
    metadata: dict
    title: str


def _end(value) -> tuple[str, str]:
    """An end of a link, read tolerantly: `{object, id}` (or object_key/record_id)."""
    if isinstance(value, dict):
        obj = value.get("object") or value.get("object_key") or value.get("key") or ""
        if isinstance(obj, dict):
            obj = obj.get("key") or obj.get("id") or ""
        return str(obj), str(value.get("id") or value.get("record_id") or "")
    return "", ""


def link_from(raw: dict, *, object_key: str, record_id: str) -> Link:
    """One relationship as seen from this record. The spec names only
    `direction` (`outgoing` when this record is the source) and "the other
    end"; the sandbox's shape is read with fallbacks for other spellings."""
    direction = str(raw.get("direction") or "")
    source = _end(raw.get("source") or raw.get("from"))
    target = _end(raw.get("target") or raw.get("to"))
    other = _end(raw.get("other") or raw.get("record") or raw.get("other_end"))
    if not other[1]:
        if direction == "outgoing" and target[1]:
            other = target
        elif source[1] and (source[1] != record_id or direction not in ("", "outgoing")):
            other = source
        elif target[1]:
            other = target
    if not other[1]:
        other = (
            str(raw.get("other_object") or raw.get("target_object") or ""),
            str(raw.get("other_id") or raw.get("target_id") or ""),
        )
    if not direction:
        direction = "outgoing" if source[1] == record_id or (not source[1] and other != source) else "incoming"
    if direction != "outgoing":
        direction = "incoming"
    title = ""
    for holder in (raw.get("other"), raw.get("target") if direction == "outgoing" else raw.get("source"), raw):
        if isinstance(holder, dict):
            title = str(holder.get("title") or holder.get("display_name") or holder.get("name") or "")
            if title:
                break
    metadata = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
    return Link(
        relation_key=str(raw.get("relation_key") or ""),
        direction=direction,
        object_key=other[0] or object_key,
        record_id=other[1],
        label=str(raw.get("label") or ""),
        metadata=metadata,
        title=title,
    )


def links_by_relation(raws: list[dict], *, object_key: str, record_id: str) -> list[tuple[str, list[Link]]]:
    """Links in both directions, grouped by `relation_key` (alphabetical)."""
    groups: dict[str, list[Link]] = {}
    for raw in raws:
        if isinstance(raw, dict):
            link = link_from(raw, object_key=object_key, record_id=record_id)
            groups.setdefault(link.relation_key, []).append(link)
    return sorted(groups.items())
