"""The records table's state, held entirely in the URL so a view can be
shared and the browser's back button works.

Query parameters (all optional): the filter's (`q`, `f.<field key>`,
`op.<field key>`...: objects/filters.py), `sort` (a field key, `created_at` or
`updated_at`, `-` prefix for descending), `limit` (25, 50 or 100), `group`
(a field to group by), `footers=on` and `agg.<field key>` (the footers and
each column's aggregate: objects/grouping.py) and the one pager's `cursor`
and `back` (dashboard/web/pager.py).

Changing the search, a filter, the sort or the page size starts again from
the first page (cursors belong to one query).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.http import QueryDict
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from dashboard.api.paths import quote_id
from dashboard.web import local_formats
from dashboard.web.pager import MAX_TRAIL, CursorPager, PageLinks
from objects.cell_markup import cell_text, grid_cell, grid_image, linked_chips
from objects.fields import Cell, FieldDef, cell, format_stamp, title_field_key
from objects.filters import FilterPlan, RecordFilter
from objects.grid_groups import FooterRow, footer_html, grouped_html
from objects.grouping import DEFAULT_AGGREGATE, Summary, aggregate_choice, groupable_fields
from objects.links import relation_label

if TYPE_CHECKING:
    from objects.models import RecordTally, SavedView
    from objects.selectors import RecordsPage

PAGE_SIZES = (25, 50, 100)
# The rows one slice of a long table brings as one scrolls (static/js/objects_window.js):
# small enough that the window of rows kept stays near a 100-row page's DOM.
SLICE_ROWS = 50
# A slice's `at` (its first row's position) is bounded like a hand-made cursor trail.
MAX_ROW_AT = 10_000_000
DEFAULT_PAGE_SIZE = 25
DEFAULT_SORT = "-updated_at"
TIMESTAMP_COLUMNS = (("created_at", "Created"), ("updated_at", "Updated"))
AGGREGATE_PREFIX = "agg."  # a column's footer aggregate: `agg.<field key>=sum`


@dataclass
class TableState:
    filter: RecordFilter = field(default_factory=RecordFilter)
    sort: str = DEFAULT_SORT
    limit: int = DEFAULT_PAGE_SIZE
    pager: CursorPager = field(default_factory=CursorPager)
    # The saved view open (its id, or "all" for the whole table), carried by
    # every link of the table so sorting or paging stays in the view.
    view: str = ""
    # Grouped by one field (its key: objects/grouping.py), the footers shown,
    # and each column's footer aggregate other than the default (`agg.<key>`).
    group: str = ""
    footers: bool = False
    aggregates: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_query(
        cls,
        query: QueryDict,
        fields: list[FieldDef],
        linked: list[FieldDef] | None = None,
        computed: list[FieldDef] | None = None,
    ) -> TableState:
        """`linked`: the linked records' fields the filter may name (objects/link_filters.py);
        `computed`: the computed columns, which the sort and the filter may name (objects/computed_order.py)."""
        computed = computed or []
        sortable = {f.key for f in [*fields, *computed]} | {key for key, _ in TIMESTAMP_COLUMNS}
        sort = query.get("sort", "").strip() or DEFAULT_SORT
        if sort.lstrip("-") not in sortable:
            sort = DEFAULT_SORT
        try:
            limit = int(query.get("limit", DEFAULT_PAGE_SIZE))
        except ValueError:
            limit = DEFAULT_PAGE_SIZE
        if limit not in PAGE_SIZES:
            limit = DEFAULT_PAGE_SIZE
        group = query.get("group", "").strip()
        if group not in {f.key for f in groupable_fields(fields)}:
            group = ""
        aggregates = {}
        for f in fields:
            chosen = aggregate_choice(f, query.get(AGGREGATE_PREFIX + f.key, ""))
            if chosen != DEFAULT_AGGREGATE:
                aggregates[f.key] = chosen
        return cls(
            filter=RecordFilter.from_query(query, fields, linked or (), computed),
            sort=sort,
            limit=limit,
            pager=CursorPager.from_query(query),
            view=_view_param(query.get("view", "")),
            group=group,
            footers=bool(group or query.get("footers") == "on"),
            aggregates=aggregates,
        )

    def aggregate_of(self, key: str) -> str:
        """A column's footer aggregate (count unless chosen)."""
        return self.aggregates.get(key, DEFAULT_AGGREGATE)

    # The filter's and the pager's parts, as templates and callers read them.
    @property
    def search(self) -> str:
        return self.filter.search

    @property
    def cursor(self) -> str:
        return self.pager.cursor

    @property
    def page_number(self) -> int:
        return self.pager.page_number

    @property
    def active_filter_count(self) -> int:
        return self.filter.active_count

    def plan(self, fields: list[FieldDef], *, zone: dt.tzinfo = dt.UTC) -> FilterPlan:
        """What the service is asked and what the console checks itself."""
        return self.filter.plan(fields, zone=zone)

    # --- URLs -----------------------------------------------------------

    def _pairs(self, *, sort: str | None = None, with_view: bool = True) -> list[tuple[str, str]]:
        """The view without its page: filter, sort, page size (and the saved view open)."""
        pairs = self.filter.pairs()
        chosen_sort = self.sort if sort is None else sort
        if chosen_sort != DEFAULT_SORT:
            pairs.append(("sort", chosen_sort))
        if self.limit != DEFAULT_PAGE_SIZE:
            pairs.append(("limit", str(self.limit)))
        if self.group:
            pairs.append(("group", self.group))
        elif self.footers:
            pairs.append(("footers", "on"))
        pairs.extend((AGGREGATE_PREFIX + key, chosen) for key, chosen in self.aggregates.items())
        if self.view and with_view:
            pairs.append(("view", self.view))
        return pairs

    def query(self) -> str:
        """This very page."""
        return urlencode(self._pairs() + self.pager.pairs())

    def first_page_query(self) -> str:
        return urlencode(self._pairs())

    def sort_query(self, key: str) -> str:
        """Sort by a column: ascending first, again to reverse; from the first page."""
        return urlencode(self._pairs(sort=f"-{key}" if self.sort == key else key))

    def sort_direction(self, key: str) -> str:
        if self.sort == key:
            return "ascending"
        if self.sort == f"-{key}":
            return "descending"
        return "none"

    def next_query(self, next_cursor: str) -> str:
        return urlencode(self._pairs() + self.pager.next_pairs(next_cursor))

    def previous_query(self) -> str | None:
        """The page before this one, or None on the first page."""
        previous = self.pager.previous_pairs()
        return None if previous is None else urlencode(self._pairs() + previous)

    def paging(self, next_cursor: str | None, *, path: str) -> PageLinks:
        return self.pager.links(self._pairs(), next_cursor, path=path)

    def slice_query(self, cursor: str, *, at: int, limit: int = SLICE_ROWS) -> str:
        """A slice of `limit` rows from `cursor` on (none: the first), `at`
        the position of its first row: the view's filter and sort, no trail."""
        kept = [(k, v) for k, v in self._pairs() if k != "limit"]
        return urlencode([*kept, ("limit", str(limit)), ("cursor", cursor), ("at", str(at))])

    def export_query(self) -> str:
        """The whole filtered, sorted view (every page), with the saved view
        whose columns the file follows."""
        return urlencode([(k, v) for k, v in self._pairs() if k != "limit"])

    def filter_query(self) -> str:
        """The search and filters alone (what the kanban board carries over)."""
        return urlencode(self.filter.pairs())

    def view_query(self) -> str:
        """What a saved view keeps: filter, search, sort and page size."""
        return urlencode(self._pairs(with_view=False))


def _view_param(raw: str) -> str:
    raw = raw.strip()
    return raw if raw == "all" or (raw.isdigit() and len(raw) <= 19) else ""


def list_query(raw: str, fields: list[FieldDef], linked: list[FieldDef], computed: list[FieldDef]) -> str:
    """A records-table query carried to a record page (`?list=`), re-read and
    re-encoded through TableState (with the linked records' and computed
    columns' fields the table read it by), so the breadcrumb back to the
    table keeps the filters, sort and page and holds nothing else."""
    return TableState.from_query(QueryDict(raw[:4000]), fields, linked, computed).query()


# --- the table as the template shows it --------------------------------------


LINK_COLUMN_PREFIX = "link:"  # a linked-record column's key in the column picker: "link:<relation key>"
MAX_RELATION_KEY = 100
MAX_LINK_COLUMNS = 10


@dataclass
class Column:
    key: str
    label: str
    field: FieldDef | None  # None for the created/updated and linked-record columns
    sort_query: str
    sort_direction: str
    is_title: bool = False
    # A linked-record column: the relation key whose other ends it shows (not sortable).
    relation_key: str = ""
    # A computed column (objects/computed.py): what it computes, in words (read-only; sorted by the console).
    computed: str = ""
    # A field read-only for this person (the object's access policy): its cells open no editor.
    read_only: bool = False

    @property
    def numeric(self) -> bool:
        """Numbers and currency: right-aligned in tabular figures."""
        return self.field is not None and self.field.is_number


@dataclass
class Row:
    id: str
    url: str
    title: Cell | None  # the title field's cell; None when the object has no title column
    cells: list[tuple[Column, Cell]]  # the other visible columns
    created_at: str
    updated_at: str
    # Where the record page's breadcrumb returns to (`?list=` + this view).
    list_suffix: str = ""
    # One per linked-record column: the linked records, as (title, address).
    linked: list[list[tuple[str, str]]] = field(default_factory=list)
    # One per computed column, after the fields' cells.
    computed: list[tuple[Column, Cell]] = field(default_factory=list)

    def html(self, *, selectable: bool) -> tuple[str, bool]:
        """The row's markup, every value escaped here, and whether it shows an
        image the CSP refuses. Nothing is said per cell that the column or
        the table says once: a cell's editor is the row's title link plus its
        column header's `data-key`, its label on a phone's card comes from the
        header (static/js/objects_grid.js); only a number's cell carries a
        class (`num`: right-aligned, tabular figures), which CSS cannot read
        from the header."""
        name = cell_text(self.title) if self.title is not None else ""
        parts = ["<tr>"]
        if selectable:  # the bulk selection (objects_grid.js)
            parts.append(
                f'<td><input type="checkbox" name="ids" value="{escape(self.id)}" form="bulk-form"'
                f' aria-label="Select {escape(name or "Untitled")}"></td>'
            )
        if self.title is not None:  # None when the object has no title column
            href = escape(self.url + self.list_suffix)
            parts.append(f'<th scope="row" class="record-title"><a href="{href}">{escape(name or "Untitled")}</a></th>')
        away = False
        for column, shown in self.cells:
            if shown.kind == "image":
                markup, refused = grid_image(shown)
                away = away or refused
            else:
                markup = grid_cell(shown)
            parts.append(f'<td class="num">{markup}</td>' if column.numeric else f"<td>{markup}</td>")
        parts.extend(f"<td>{linked_chips(records)}</td>" for records in self.linked)
        for column, shown in self.computed:  # read-only: no editor opens on them (no data-key on their header)
            markup = grid_cell(shown)
            parts.append(f'<td class="num">{markup}</td>' if column.numeric else f"<td>{markup}</td>")
        parts.append(f"<td>{escape(self.created_at)}</td><td>{escape(self.updated_at)}</td></tr>")
        return "".join(parts), away


def rows_html(rows: list[Row], *, selectable: bool) -> tuple[SafeString, bool]:
    """Every row of the page as one piece of markup (a template loop over a
    100-row page's rows and ~1,700 cells was most of its render time:
    bench/records_page.py), and whether any shows an image the CSP refuses."""
    pieces = []
    away = False
    for row in rows:
        markup, refused = row.html(selectable=selectable)
        pieces.append(markup)
        away = away or refused
    return SafeString("".join(pieces)), away


@dataclass
class RecordsTable:
    object_key: str
    definition: dict
    fields: list[FieldDef]
    columns: list[Column]
    rows: list[Row]
    state: TableState
    paging: PageLinks
    filter_problems: list[str]
    hidden_fields: list[str]
    # The relation keys shown as linked-record columns, and those the picker offers.
    link_columns: list[str] = field(default_factory=list)
    relation_keys: list[str] = field(default_factory=list)
    # Why some rows' linked records could not be read (the service's words), if so.
    links_problem: str = ""
    # Why some computed values are partial (objects/computed.py), if so.
    computed_problem: str = ""
    # Whether cells open an inline editor (a person who may write, a custom object).
    editable: bool = False
    # The rows' markup (rows_html), and whether a cell shows a refused image
    # (the note they point to is shown once).
    body_html: SafeString = field(default_factory=lambda: SafeString(""))
    images_elsewhere: bool = False
    view: SavedView | None = None  # the view open, if any
    views: list[SavedView] = field(default_factory=list)  # the views this person may open
    default_view_id: int | None = None
    # How the page was read (None: one page of the service, as is).
    read: RecordsPage | None = None
    # What the conditions on linked records could not read, in words (objects/link_filters.py).
    filter_partial: list[str] = field(default_factory=list)
    # The conditions in words, as the summary beside the "N active" badge shows them.
    filter_summary: list[str] = field(default_factory=list)
    # The background count of this filter when the page cannot tell the total (objects/tallies.py).
    count: RecordTally | None = None
    # The table's footer row (objects/grid_groups.py), when footers are shown;
    # the background count of every record's footers when the page holds not all.
    footer: FooterRow | None = None
    footer_count: RecordTally | None = None
    zone: dt.tzinfo = dt.UTC
    # The page's records summarised when grouped (the groups' summaries merged).
    page_summaries: dict[str, Summary] | None = None
    # The first row's position among every matching record: a slice's `at`; None for a page.
    slice_at: int | None = None

    @property
    def first_row(self) -> int:
        """How many matching records come before this page's or slice's first row."""
        if self.slice_at is not None:
            return self.slice_at
        return (self.state.page_number - 1) * self.state.limit

    @property
    def window_url(self) -> str:
        """The next slice's address, for the rows loaded as one scrolls (static/js/objects_window.js);
        none at the end, and none when grouped (a group's rows and summaries are the page's)."""
        if self.state.group or self.read is None or not self.read.next_cursor:
            return ""
        rows_url = reverse("objects:records_rows", args=[self.object_key])
        return f"{rows_url}?{self.state.slice_query(self.read.next_cursor, at=self.first_row + len(self.rows))}"

    @property
    def own_slice_url(self) -> str:
        """This page's rows again as a slice (same size and cursor), to put back once scrolled far past."""
        rows_url = reverse("objects:records_rows", args=[self.object_key])
        query = self.state.slice_query(self.state.cursor, at=self.first_row, limit=self.state.limit)
        return f"{rows_url}?{query}"

    @property
    def column_count(self) -> int:
        """The cells of a row: the selection box when editable, then every column."""
        return len(self.columns) + (1 if self.editable else 0)

    @property
    def narrowed_text(self) -> str:
        """What the console read to narrow this page itself, when it did:
        "12 matches in the 1,000 records read (10 pages); refine the filters to see more"."""
        read = self.read
        if read is None or not read.narrowed:
            return ""
        number, shown = local_formats.active().integer, len(self.rows)
        matches = f"{number(shown)} match{'' if shown == 1 else 'es'}"
        pages = f"{number(read.pages_read)} page{'' if read.pages_read == 1 else 's'}"
        said = f"{matches} in the {number(read.records_read)} records read ({pages})"
        if read.budget_spent:
            return f"{said}; refine the filters to see more, or read the next pages."
        return said + "."

    @property
    def total(self) -> int | None:
        """The number of matching records when this page tells it: the last
        page of a list whose pages before were all full."""
        if self.paging.next or len(self.state.pager.back) >= MAX_TRAIL or self.filter_partial:
            return None
        if self.read is not None and self.read.narrowed and self.state.page_number > 1:
            return None  # narrowed pages before this one may have ended at the budget, not full
        return (self.state.page_number - 1) * self.state.limit + len(self.rows)

    @property
    def shown_count_text(self) -> str:
        """ "25 shown, more after" until the last page, then the exact total
        (every page before was full)."""
        shown = len(self.rows)
        if self.filter_partial:
            return gettext("{shown} shown, a partial result").format(shown=shown)
        if self.read is not None and self.read.narrowed and self.read.budget_spent:
            return gettext("{shown} shown").format(shown=shown)
        if self.paging.next:
            return gettext("{shown} shown, more after").format(shown=shown)
        total = self.total
        if total is None:  # the trail was cut, or narrowed pages before: the count before is unknown
            return gettext("{shown} shown, the last page").format(shown=shown)
        if self.state.page_number > 1:
            return gettext("{total} in all").format(total=total)
        return gettext("{shown} shown, that is all").format(shown=shown)

    @property
    def footer_html(self) -> SafeString:
        """The table's footer row, each column's aggregate chosen in it."""
        if self.footer is None:
            return SafeString("")
        markup = footer_html(
            self.footer, columns=self.columns, state=self.state, zone=self.zone, selectable=self.editable,
            choosing=True, records_url=reverse("objects:records", args=[self.object_key]),
        )  # fmt: skip
        return SafeString(markup)

    @property
    def images_elsewhere_note(self) -> str:
        from dashboard.frame.images import why_not_shown

        return why_not_shown()

    @property
    def view_param(self) -> str:
        return str(self.view.pk) if self.view is not None else ""

    @property
    def export_query(self) -> str:
        """The export follows this table: its filter, sort and columns."""
        return self.state.export_query()

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


def sorted_column(state: TableState, key: str, label: str, shown_as: FieldDef | None, *, computed: str = "") -> Column:
    """A column its header sorts by (a timestamp's or a computed column's)."""
    return Column(
        key=key,
        label=label,
        field=shown_as,
        sort_query=state.sort_query(key),
        sort_direction=state.sort_direction(key),
        computed=computed,
    )


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
    editable: bool = False,
    link_columns: list[str] | None = None,
    linked: dict[str, dict[str, list[tuple[str, str]]]] | None = None,
    computed: list[tuple[str, str, FieldDef, str]] | None = None,
    computed_cells: dict[str, list[Cell]] | None = None,
    read_only: frozenset[str] = frozenset(),
) -> RecordsTable:
    """`read_only`: the fields this person may not change (objects/access.py),
    whose headers name no editor; `linked` gives each record's linked records per relation key, as
    (title, address) pairs (objects/records.py reads and names them);
    `computed` the computed columns as (key, name, the field they are shown
    as, what they compute in words) and `computed_cells` each record's cells
    of them, in that order (objects/computed.py)."""
    title_key = title_field_key(definition)
    records_url = reverse("objects:records", args=[object_key])
    carried = state.query()
    list_suffix = f"?{urlencode({'list': carried})}" if carried else ""
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
                read_only=f.key in read_only,
            )
        )
    link_columns = list(link_columns or [])
    for relation_key in link_columns:
        columns.append(
            Column(
                key=LINK_COLUMN_PREFIX + relation_key,
                label=f"{relation_label(relation_key)} (linked)",
                field=None,
                sort_query="",
                sort_direction="none",
                relation_key=relation_key,
            )
        )
    computed_columns = [
        sorted_column(state, key, name, shown_as, computed=words) for key, name, shown_as, words in computed or []
    ]
    columns.extend(computed_columns)
    computed_cells = computed_cells or {}
    linked = linked or {}
    columns.extend(sorted_column(state, key, label, None) for key, label in TIMESTAMP_COLUMNS)
    rows = []
    formats = local_formats.active()  # the language's separators and date formats, once for every cell
    for record in records:
        values = record_values(record)
        title_cell = None
        cells = []
        for column in columns:
            if column.field is None or column.computed:
                continue
            shown = cell(column.field, values.get(column.key), zone=zone, formats=formats)
            if column.is_title:
                title_cell = shown
            else:
                cells.append((column, shown))
        record_id = str(record.get("id", ""))
        rows.append(
            Row(
                id=record_id,
                # Relative to the records page, the one page that shows rows ("./": an id is never a scheme).
                url="./" + quote_id(record_id) + "/",
                title=title_cell,
                cells=cells,
                created_at=format_stamp(record, "created_at", zone=zone, formats=formats),
                updated_at=format_stamp(record, "updated_at", zone=zone, formats=formats),
                list_suffix=list_suffix,
                linked=[linked.get(record_id, {}).get(key, []) for key in link_columns],
                computed=list(zip(computed_columns, computed_cells.get(record_id, []), strict=False)),
            )
        )
    # The selection box leads each row for a person who may write (the bulk actions).
    group = next((f for f in fields if f.key == state.group), None) if state.group else None
    page_summaries: dict[str, Summary] | None = None
    if group is not None:
        body, images_elsewhere, page_summaries = grouped_html(
            rows=rows, records=records, group=group, fields=fields, columns=columns, state=state, zone=zone,
            selectable=editable,
        )  # fmt: skip
    else:
        body, images_elsewhere = rows_html(rows, selectable=editable)
    return RecordsTable(
        object_key=object_key,
        definition=definition,
        fields=fields,
        columns=columns,
        rows=rows,
        state=state,
        paging=state.paging(next_cursor, path=records_url),
        filter_problems=filter_problems,
        hidden_fields=hidden_fields,
        editable=editable,
        link_columns=link_columns,
        body_html=body,
        images_elsewhere=images_elsewhere,
        zone=zone,
        page_summaries=page_summaries,
    )
