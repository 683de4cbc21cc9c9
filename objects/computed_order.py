"""The records table sorted and filtered by computed columns
(objects/computed.py), within what the console reads.

The service can neither sort nor filter by a value it does not have: the
console computes the columns on the records it reads, under the budget of
the filters it checks itself (OBJECTS_FILTER_PAGE_BUDGET pages of 100:
objects/selectors.py `record_page`), and says so when that was not every
record:

- a condition on a computed column (`f.computed:<id>`, with the operators
  of its type) is one of the console's checks (`FilterPlan.computed`): the
  page reads the service's pages as for any condition the service cannot
  say, the columns the conditions name computed on each page read before it
  is checked, and the next page reads on from there;
- a sort by a computed column (`sort=computed:<id>`) reads the filter's
  records up to the budget (in the order they were created), sorts them by
  the value (empty values last either way) and pages through them
  (`csort:<offset>` cursors); when there were more records than the budget,
  the page says "Sorted within the first 1,000 records read". The CSV
  export of such a table reads the same records in the same order
  (`sorted_read`) and says the same at its end; a `?list=` carried to a
  record page keeps the sort and the conditions (`table_columns`).

Formulas cost no remote call. A lookup or rollup reads each record's links
(one list per record, cached), so a read that computes one stops at
LINKED_SCAN_PAGES pages (the linked conditions' LINKED_LOOKUPS link lists),
and its linked records at LINKED_VALUE_READS, as on any page.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dashboard.web.local_formats import integer
from objects import computed, selectors
from objects.link_filters import LINKED_LOOKUPS
from objects.models import ComputedColumn

if TYPE_CHECKING:
    from dashboard.frame.workspace import Workspace
    from objects.fields import FieldDef
    from objects.filters import FilterPlan
    from objects.table import TableState

SORT_CURSOR_PREFIX = "csort:"
# Pages (of 100) read for a sort or filter that computes a lookup or rollup (each record's links: one read).
LINKED_SCAN_PAGES = max(1, LINKED_LOOKUPS // selectors.SCAN_PAGE_SIZE)
# The service's order of the records a computed sort reads (its ties keep it).
READ_ORDER = "created_at"


def computed_fields(checked: list[computed.ComputedSpec]) -> list[FieldDef]:
    """The computed columns as the sort and the filter name them, typed by
    their result (a lookup's type is its linked field's, text until known)."""
    return [computed.shown_field(s) for s in checked if not s.problem]


def table_columns(
    *, workspace_id: str, object_key: str, fields: list[FieldDef]
) -> tuple[list[ComputedColumn], list[FieldDef]]:
    """The object's computed columns (one query) and their fields, as the
    table's sort and filter (and a `?list=` carried from it) name them."""
    columns = computed.computed_columns(workspace_id=workspace_id, object_key=object_key)
    return columns, computed_fields(computed.specs(columns, fields=fields))


def names_computed(names: Iterable[str]) -> bool:
    """Whether a query's filter has a condition on a computed column (`f.computed:3`, `or.1.2.op.computed:3`)."""
    return bool(computed.computed_keys_named(names))


def sort_key(state: TableState) -> str:
    """The computed column the table is sorted by ("" for none)."""
    key = state.sort.lstrip("-")
    return key if key.startswith(computed.COMPUTED_PREFIX) else ""


@dataclass
class ComputedPage:
    """The page read, and how far a computed sort read, in words ("" when it read every record)."""

    page: selectors.RecordsPage
    sort_note: str = ""


def records_page(
    *,
    workspace: Workspace,
    object_key: str,
    plan: FilterPlan,
    state: TableState,
    columns: list[ComputedColumn],
    fields: list[FieldDef],
) -> ComputedPage:
    """One page of the table: the service's (narrowed by the console's
    checks up to the budget: `selectors.record_page`), or sorted and filtered
    by computed columns (see the module's note)."""
    if sort_key(state):
        read = sorted_read(
            workspace=workspace, object_key=object_key, plan=plan, state=state, columns=columns, fields=fields
        )
        offset = sort_offset(state.pager.remote_cursor)
        after = offset + state.limit
        sorted_page = selectors.RecordsPage(
            items=read.records[offset:after],
            next_cursor=f"{SORT_CURSOR_PREFIX}{after}" if after < len(read.records) else None,
            narrowed=plan.narrows,
            pages_read=read.pages_read,
            records_read=read.records_read,
        )
        return ComputedPage(page=sorted_page, sort_note=read.note)
    needed = [c for c in columns if computed.COMPUTED_PREFIX + str(c.pk) in plan.computed]
    page = selectors.record_page(
        client=workspace.client,
        object_key=object_key,
        plan=plan,
        sort=state.sort,
        cursor=state.pager.remote_cursor,
        limit=state.limit,
        page_budget=_budget(needed),
        before_checking=_values_of(workspace=workspace, object_key=object_key, plan=plan, needed=needed, fields=fields)
        if needed
        else None,
    )
    return ComputedPage(page=page)


@dataclass
class SortedRead:
    """The records a sort by a computed column read (the filter's, up to the
    budget), in that column's order, and whether there were more."""

    records: list[dict]
    pages_read: int
    records_read: int
    more: bool

    @property
    def note(self) -> str:
        """How far the sort read, in words ("" when it read every record)."""
        if not self.more:
            return ""
        return (
            f"Sorted within the first {integer(self.records_read)} records read: refine the filters to sort them all."
        )


def sorted_read(
    *,
    workspace: Workspace,
    object_key: str,
    plan: FilterPlan,
    state: TableState,
    columns: list[ComputedColumn],
    fields: list[FieldDef],
) -> SortedRead:
    """The filter's records sorted by the computed column `state.sort` names,
    within the budget a page of the table reads (the table's pages and the
    CSV export read the same records in the same order)."""
    key = sort_key(state)
    needed = [c for c in columns if computed.COMPUTED_PREFIX + str(c.pk) in plan.computed | {key}]
    values_of = _values_of(workspace=workspace, object_key=object_key, plan=plan, needed=needed, fields=fields)
    kept: list[dict] = []
    values: dict[str, dict[str, Any]] = {}
    cursor: str | None = None
    more = False
    pages_read = records_read = 0
    for _ in range(_budget(needed) or selectors.filter_page_budget()):
        page = selectors.record_list(
            client=workspace.client,
            object_key=object_key,
            filters=plan.remote,
            search=plan.search,
            sort=READ_ORDER,
            cursor=cursor,
            limit=selectors.SCAN_PAGE_SIZE,
        )
        pages_read += 1
        records_read += len(page.items)
        values.update(values_of(page.items))
        kept.extend(r for r in page.items if isinstance(r, dict) and plan.matches(r))
        more = bool(page.next_cursor) and page.next_cursor != cursor
        if not more:
            break
        cursor = page.next_cursor
    ordered = sorted_records(kept, values, key=key, descending=state.sort.startswith("-"))
    return SortedRead(records=ordered, pages_read=pages_read, records_read=records_read, more=more)


def _budget(needed: list[ComputedColumn]) -> int | None:
    """Pages a read computing these columns may read (None: the plain read's own budget)."""
    if not needed:
        return None
    if any(c.kind != ComputedColumn.Kind.FORMULA for c in needed):
        return min(selectors.filter_page_budget(), LINKED_SCAN_PAGES)
    return selectors.filter_page_budget()


def _values_of(
    *, workspace: Workspace, object_key: str, plan: FilterPlan, needed: list[ComputedColumn], fields: list[FieldDef]
) -> Callable[[list[dict]], dict[str, dict[str, Any]]]:
    """The needed columns computed on records read, kept on the plan for its checks."""

    def values_of(records: list[dict]) -> dict[str, dict[str, Any]]:
        _checked, read = computed.compute(
            workspace=workspace, object_key=object_key, records=records, columns=needed, fields=fields
        )
        for record_id, row in read.values.items():
            plan.computed_values[record_id] = {k: computed.stored_form(v) for k, v in row.items()}
        return read.values

    return values_of


def sort_offset(cursor: str | None) -> int:
    """Where a computed sort's page starts (a cursor of another shape: the first page)."""
    raw = (cursor or "").removeprefix(SORT_CURSOR_PREFIX) if (cursor or "").startswith(SORT_CURSOR_PREFIX) else ""
    return int(raw) if raw.isdigit() and len(raw) < 7 else 0


def _rank(value: Any) -> tuple[int, Any]:
    """Values of one column compare within their kind (a lookup of several records is text)."""
    if isinstance(value, bool):
        return (0, int(value))
    if isinstance(value, (int, decimal.Decimal)):
        return (1, value)
    if isinstance(value, dt.date):
        return (2, value.toordinal())
    return (3, str(value).casefold())


def sorted_records(records: list[dict], values: dict[str, dict[str, Any]], *, key: str, descending: bool) -> list[dict]:
    """The records by one computed column's value, empty ones last either way;
    ties keep the order read."""

    def value(record: dict) -> Any:
        return values.get(str(record.get("id") or ""), {}).get(key)

    present = [r for r in records if value(r) is not None]
    absent = [r for r in records if value(r) is None]
    return sorted(present, key=lambda r: _rank(value(r)), reverse=descending) + absent
