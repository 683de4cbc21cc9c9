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
  the page says "Sorted within the first 1,000 records read".

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
    key = sort_key(state)
    needed = [c for c in columns if computed.COMPUTED_PREFIX + str(c.pk) in plan.computed | {key}]
    budget: int | None = selectors.filter_page_budget()
    if not needed:
        budget = None  # the plain read, its own budget
    elif any(c.kind != ComputedColumn.Kind.FORMULA for c in needed):
        budget = min(selectors.filter_page_budget(), LINKED_SCAN_PAGES)

    def values_of(records: list[dict]) -> dict[str, dict[str, Any]]:
        _checked, read = computed.compute(
            workspace=workspace, object_key=object_key, records=records, columns=needed, fields=fields
        )
        for record_id, row in read.values.items():
            plan.computed_values[record_id] = {k: computed.stored_form(v) for k, v in row.items()}
        return read.values

    if not key:
        page = selectors.record_page(
            client=workspace.client,
            object_key=object_key,
            plan=plan,
            sort=state.sort,
            cursor=state.pager.remote_cursor,
            limit=state.limit,
            page_budget=budget,
            before_checking=values_of if needed else None,
        )
        return ComputedPage(page=page)
    return _sorted_page(
        workspace=workspace,
        object_key=object_key,
        plan=plan,
        state=state,
        budget=budget or selectors.filter_page_budget(),
        values_of=values_of,
    )


def _sorted_page(
    *,
    workspace: Workspace,
    object_key: str,
    plan: FilterPlan,
    state: TableState,
    budget: int,
    values_of: Callable[[list[dict]], dict[str, dict[str, Any]]],
) -> ComputedPage:
    key = sort_key(state)
    kept: list[dict] = []
    values: dict[str, dict[str, Any]] = {}
    cursor: str | None = None
    more = False
    pages_read = records_read = 0
    for _ in range(budget):
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
    offset = sort_offset(state.pager.remote_cursor)
    items = ordered[offset : offset + state.limit]
    after = offset + state.limit
    sorted_page = selectors.RecordsPage(
        items=items,
        next_cursor=f"{SORT_CURSOR_PREFIX}{after}" if after < len(ordered) else None,
        narrowed=plan.narrows,
        pages_read=pages_read,
        records_read=records_read,
    )
    note = (
        f"Sorted within the first {integer(records_read)} records read: refine the filters to sort them all."
        if more
        else ""
    )
    return ComputedPage(page=sorted_page, sort_note=note)


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
