"""The records table's current view as a CSV file."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import date
from itertools import chain
from typing import Any

from django.http import StreamingHttpResponse
from django.views.decorators.http import require_GET

from dashboard.api import errors
from dashboard.fair_use import costly_request
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.csv import csv_lines, csv_response
from dashboard.web.reading import as_dict, text
from objects import computed, computed_order, selectors
from objects.fields import csv_value, field_defs
from objects.records import filter_linked_fields, filter_plan, hidden_columns, object_definition, saved_view_open
from objects.table import TableState

logger = logging.getLogger("objects.export")
EXPORT_CHUNK = 100  # records computed together (their links and linked records read together)


@costly_request
@require_GET
def records_export(request: ConsoleRequest, object_key: str) -> StreamingHttpResponse:
    """The current filtered, sorted view as CSV, every page, streamed, with
    the columns the table shows (the title column always, as in the table)."""
    workspace = request.workspace
    every_field = field_defs(object_definition(workspace=workspace, object_key=object_key))
    linked, _problems = filter_linked_fields(workspace=workspace, query=request.GET)
    # The object's computed columns (one query): after the fields, computed a chunk of records at a time.
    columns, by = computed_order.table_columns(workspace_id=workspace.id, object_key=object_key, fields=every_field)
    checked = computed.specs(columns, fields=every_field)
    # The columns the table shows (the open saved view's, else this person's choice).
    view = saved_view_open(workspace=workspace, user=request.user, object_key=object_key, query=request.GET)
    hidden = set(hidden_columns(workspace=workspace, user=request.user, object_key=object_key, view=view))
    fields = [f for i, f in enumerate(every_field) if i == 0 or f.key not in hidden]
    state = TableState.from_query(request.GET, every_field, linked, by)
    sort_note = ""
    if computed_order.sort_key(state):
        # Sorted by a computed column: the records the table's sort reads (its budget), in its
        # order; said when that was not every record, as the page says it.
        plan = filter_plan(workspace=workspace, object_key=object_key, record_filter=state.filter, fields=every_field)
        read = computed_order.sorted_read(
            workspace=workspace, object_key=object_key, plan=plan, state=state, columns=columns, fields=every_field
        )
        records: Iterator[Any] = iter(read.records)
        sort_note = read.note
    else:
        # Conditions on formula columns are checked on every record (computed from its values);
        # those the service cannot check, record by record (on linked records: read once, first).
        formulas = computed.counted_specs(workspace_id=workspace.id, object_key=object_key, fields=every_field)
        state = TableState.from_query(request.GET, every_field, linked, computed.counted_fields(formulas))
        plan = filter_plan(workspace=workspace, object_key=object_key, record_filter=state.filter, fields=every_field)
        plan.compute_values = computed.formula_values_of(formulas)
        records = selectors.record_matching_iter(
            client=workspace.client, object_key=object_key, plan=plan, sort=state.sort
        )
    # The first page is read before the response starts, so a remote error
    # (404, 401...) still becomes an error page instead of a broken file.
    first = next(records, None)

    def chunk_rows(chunk: list[dict]) -> tuple[list[list[str]], str]:
        specs, read = computed.compute(
            workspace=workspace, object_key=object_key, records=chunk, columns=columns, fields=every_field
        )
        lines = []
        for item in chunk:
            values = as_dict(item.get("values"))
            row = read.values.get(str(item.get("id") or ""), {})
            lines.append(
                [
                    text(item.get("id")),
                    *[csv_value(f, values.get(f.key), zone=workspace.zone) for f in fields],
                    *[computed.computed_csv(s, row.get(s.key), zone=workspace.zone) for s in specs],
                    text(item.get("created_at")),
                    text(item.get("updated_at")),
                ]
            )
        return lines, read.problem

    def rows() -> Iterator[list[str]]:
        if first is None:
            return
        partial = ""
        try:
            chunk: list[dict] = []
            for item in chain([first], records):
                chunk.append(as_dict(item))
                if len(chunk) == EXPORT_CHUNK:
                    lines, problem = chunk_rows(chunk)
                    partial = partial or problem
                    yield from lines
                    chunk = []
            if chunk:
                lines, problem = chunk_rows(chunk)
                partial = partial or problem
                yield from lines
        except errors.ApiError as exc:
            # Headers are gone: say in the file that it is incomplete.
            logger.warning("CSV export of %s stopped: %s", object_key, exc)
            yield [f"# export stopped early: {exc.message} (request id {exc.request_id or 'unknown'})"]
            return
        if partial:
            yield [f"# {partial}"]
        # A linked condition that could not read everything: the file says it is partial, in words.
        for note in [*plan.partial, *([sort_note] if sort_note else [])]:
            yield [f"# partial: {note}"]

    # The one CSV writer: a cell a spreadsheet would run as a formula is neutralised.
    header = ["id", *[f.label for f in fields], *[f"{s.label} (computed)" for s in checked], "Created", "Updated"]
    return csv_response(f"{object_key}-{date.today().isoformat()}.csv", csv_lines(header, rows()))
