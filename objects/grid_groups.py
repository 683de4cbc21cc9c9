"""The records grid grouped and its footers, as markup (one piece, as
objects/table.py `rows_html` makes the rows): a `<tbody>` per group led by
a header row (its button collapses the group: `aria-expanded`, and the
records it holds), the group's rows, and its footer row; the table's own
footer row (`<tfoot>`), where each column's aggregate is chosen (a small
select, part of the query form, so the address keeps it). Every value is
escaped here. The counting is objects/grouping.py's."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

from django.utils.safestring import SafeString

from dashboard.web import local_formats
from objects.grouping import (
    LABELS,
    Summary,
    aggregate_text,
    aggregates_for,
    records_grouped,
    summaries_merged,
    summarise,
    valued_keys,
)

if TYPE_CHECKING:
    from objects.fields import FieldDef
    from objects.table import Column, Row, TableState


@dataclass
class FooterRow:
    """A footer row's label ("Total", "Lead", "Total of the first 1,000") and
    each field column's summary."""

    label: str
    summaries: dict[str, Summary]


def _cell_count(columns: list[Column], *, selectable: bool) -> int:
    return len(columns) + (1 if selectable else 0)


def footer_html(
    row: FooterRow,
    *,
    columns: list[Column],
    state: TableState,
    zone: dt.tzinfo,
    selectable: bool,
    choosing: bool = False,
    records_url: str = "",
) -> str:
    """One footer row, cell for cell under the columns; `choosing` (the
    table's footer) offers each column's aggregates."""
    parts = ['<tr class="records-foot">']
    if selectable:
        parts.append("<td></td>")
    for column in columns:
        f = column.field
        if column.is_title:
            parts.append(f'<th scope="row" class="record-title">{escape(row.label)}</th>')
            continue
        if (
            f is None or column.computed
        ):  # linked records, computed columns (kanban/chart sums: not yet), created, updated
            parts.append("<td></td>")
            continue
        chosen = state.aggregate_of(f.key)
        summary = row.summaries.get(f.key) or Summary()
        value = escape(aggregate_text(f, chosen, summary, zone=zone))
        if choosing:
            shown = (
                _aggregate_select(f, chosen, records_url=records_url)
                + f' <span class="records-foot__value">{value}</span>'
            )
        else:
            shown = f'<span class="records-foot__name">{escape(LABELS[chosen])}</span> {value}'
        parts.append(f'<td class="num">{shown}</td>' if column.numeric else f"<td>{shown}</td>")
    parts.append("</tr>")
    return "".join(parts)


def _aggregate_select(f: FieldDef, chosen: str, *, records_url: str) -> str:
    options = "".join(
        f'<option value="{name}"{" selected" if name == chosen else ""}>{LABELS[name]}</option>'
        for name in aggregates_for(f)
    )
    url = escape(records_url)
    return (
        f'<select name="agg.{escape(f.key)}" form="records-query" class="records-foot__choice"'
        f' aria-label="Footer of {escape(f.label)}" hx-get="{url}" hx-include="#records-query"'
        f' hx-trigger="change" hx-target="#records-table" hx-swap="outerHTML" hx-push-url="true"'
        f' hx-sync="#records-query:replace">{options}</select>'
    )


def grouped_html(
    *,
    rows: list[Row],
    records: list[dict],
    group: FieldDef,
    fields: list[FieldDef],
    columns: list[Column],
    state: TableState,
    zone: dt.tzinfo,
    selectable: bool,
) -> tuple[SafeString, bool, dict[str, Summary]]:
    """The page's records in their groups: a `<tbody>` each, its header
    (a collapse button, the count), its rows and its footer row; whether any
    row shows an image the CSP refuses; the page's summaries (the groups' merged)."""
    row_of = {id(record): row for record, row in zip(records, rows, strict=True)}
    span = _cell_count(columns, selectable=selectable)
    pieces = []
    away = False
    parts = []
    valued = valued_keys(state.aggregates)  # a count needs no value read
    integer = local_formats.active().integer
    for number, found in enumerate(records_grouped(records, group, zone=zone)):
        count = len(found.records)
        label = escape(found.label)
        pieces.append(
            f'<tbody class="records-group" id="records-group-{number}">'
            f'<tr class="records-group-head"><th scope="rowgroup" colspan="{span}">'
            f'<button type="button" class="records-group__toggle" data-group-toggle aria-expanded="true">'
            f'<span class="records-group__mark" aria-hidden="true"></span>{label}</button>'
            f' <span class="muted small">{integer(count)} record{"" if count == 1 else "s"}</span></th></tr>'
        )
        for record in found.records:
            markup, refused = row_of[id(record)].html(selectable=selectable)
            pieces.append(markup)
            away = away or refused
        part = summarise(found.records, fields, valued=valued)
        parts.append(part)
        summary = FooterRow(label="Summary", summaries=part)
        pieces.append(footer_html(summary, columns=columns, state=state, zone=zone, selectable=selectable))
        pieces.append("</tbody>")
    return SafeString("".join(pieces)), away, summaries_merged(parts, fields)
