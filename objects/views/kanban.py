"""The kanban board and a card's move. A move PATCHes only the grouping
field. With JavaScript (static/js/kanban.js) the card moves first and the
answer is JSON: on a refusal the script puts the card back and shows the
service's message. Without it, "Move to…" is a plain form and the board is
shown again."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.http import Http404, HttpResponse, HttpResponseBase, JsonResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from dashboard.api import errors
from dashboard.api.messages import meaning_of, said_by_service, with_request_id
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.idempotency import IdempotencyKeyField
from dashboard.web.htmx import client_redirect, is_partial
from dashboard.web.pager import CursorPager
from objects import services
from objects.fields import FieldDef, field_defs
from objects.filters import FILTER_PREFIX, RecordFilter
from objects.kanban import BoardColumn, board_columns, board_fields, empty_columns, fill_column
from objects.records import READ_ONLY, object_definition


def _board_field(fields: list[FieldDef], key: str | None) -> FieldDef | None:
    choices = board_fields(fields)
    return next((f for f in choices if f.key == key), choices[0] if choices else None)


def _link_columns(object_key: str, by: FieldDef, columns: list[BoardColumn], record_filter: RecordFilter) -> None:
    """Each column's "Show more" (its next cards, for htmx) and, without
    JavaScript, the same records in the table (the filter plus this value)."""
    pairs = record_filter.pairs()
    more_base = reverse("objects:kanban_column", args=[object_key])
    table_base = reverse("objects:records", args=[object_key])
    for column in columns:
        value = [(FILTER_PREFIX + by.key, column.option_id)] if column.option_id else [("empty", by.key)]
        column.table_url = f"{table_base}?{urlencode(pairs + value)}"
        if column.next_cursor:
            more = [("by", by.key), ("option", column.option_id), ("cursor", column.next_cursor)]
            column.more_url = f"{more_base}?{urlencode(more + [('shown', str(column.shown))] + pairs)}"


def _board(
    request: ConsoleRequest, object_key: str, *, by: str | None, query: QueryDict, status: int = 200, **extra: Any
) -> HttpResponse:
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    chosen = _board_field(fields, by)
    # The table's search and filters, carried by its "Kanban" link.
    record_filter = RecordFilter.from_query(query, fields)
    plan = record_filter.plan(fields, zone=workspace.zone)
    columns = (
        board_columns(
            client=workspace.client,
            object_key=object_key,
            definition=definition,
            by=chosen,
            zone=workspace.zone,
            filters=plan.remote,
            search=plan.search,
            keep=plan.matches if plan.narrows else None,
        )
        if chosen
        else []
    )
    if chosen:
        _link_columns(object_key, chosen, columns, record_filter)
    filter_query = urlencode(record_filter.pairs())
    context = {
        "definition": definition,
        "object_key": object_key,
        "board_fields": board_fields(fields),
        "by": chosen,
        "columns": columns,
        "record_filter": record_filter,
        "filter_pairs": record_filter.pairs(),
        "filter_query": filter_query,
        "filter_problems": plan.problems,
        "move_form": MoveForm(),
        # Records of built-in objects belong to their own feature: shown, not moved here.
        "can_move": workspace.can_write and definition.get("kind") != "system",
        **extra,
    }
    return render(request, "objects/kanban.html", context, status=status)


@require_GET
def kanban(request: ConsoleRequest, object_key: str) -> HttpResponse:
    return _board(request, object_key, by=request.GET.get("by"), query=request.GET)


# Cards one "Show more" may claim were shown before (bounds the number a URL carries).
MAX_SHOWN = 1_000_000


@require_GET
def kanban_column(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    """A column's next cards ("Show more"), appended under the ones shown;
    its count and its own "Show more" follow."""
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    by = _board_field(fields, request.GET.get("by"))
    if by is None or by.key != request.GET.get("by"):
        raise Http404("This board has no such field.")
    columns = empty_columns(by)
    option = request.GET.get("option", "")
    index = next((n for n, column in enumerate(columns) if column.option_id == option), None)
    if index is None:
        # The option was removed meanwhile: the board as it is now.
        board = reverse("objects:kanban", args=[object_key]) + f"?by={by.key}"
        return client_redirect(request, board)
    record_filter = RecordFilter.from_query(request.GET, fields)
    plan = record_filter.plan(fields, zone=workspace.zone)
    column = columns[index]
    if not is_partial(request):
        _link_columns(object_key, by, [column], record_filter)
        return redirect(column.table_url)
    try:
        column.shown_before = min(max(int(request.GET.get("shown", "0")), 0), MAX_SHOWN)
    except ValueError:
        column.shown_before = 0
    fill_column(
        column,
        client=workspace.client,
        object_key=object_key,
        definition=definition,
        by=by,
        zone=workspace.zone,
        filters=plan.remote,
        search=plan.search,
        keep=plan.matches if plan.narrows else None,
        cursor=CursorPager.from_query(request.GET).cursor,
    )
    _link_columns(object_key, by, [column], record_filter)
    context = {
        "object_key": object_key,
        "by": by,
        "columns": columns,
        "column": column,
        "column_index": index + 1,
        "move_form": MoveForm(),
        "filter_query": urlencode(record_filter.pairs()),
        "can_move": workspace.can_write and definition.get("kind") != "system",
    }
    return render(request, "objects/kanban.html#kanban-more-page", context)


class MoveForm(forms.Form):
    record_id = forms.CharField(max_length=200)
    field = forms.CharField(max_length=200)
    option = forms.CharField(max_length=200, required=False)
    idempotency_key = IdempotencyKeyField()


def _wants_json(request: ConsoleRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@require_POST
@requires_write(READ_ONLY)
def kanban_move(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    """A card's move; a script's move (Accept: application/json) gets JSON,
    a refusal included (`requires_write` too)."""
    workspace = request.workspace
    as_json = _wants_json(request)
    form = MoveForm(request.POST)
    definition = object_definition(workspace=workspace, object_key=object_key)
    by = _board_field(field_defs(definition), form.data.get("field"))
    problem = ""
    if not form.is_valid() or by is None or by.key != form.cleaned_data["field"]:
        problem = "This move could not be read; reload the board and try again."
    elif form.cleaned_data["option"] and form.cleaned_data["option"] not in {o.id for o in by.options}:
        problem = f"“{by.label}” has no such option any more; reload the board."
    status = 400
    if not problem and by is not None:
        try:
            services.record_update(
                client=workspace.client,
                object_key=object_key,
                record_id=form.cleaned_data["record_id"],
                changes={by.key: form.cleaned_data["option"] or None},
                idempotency_key=form.cleaned_data["idempotency_key"],
            )
        except errors.ApiError as exc:
            said = said_by_service(exc)
            problem = with_request_id(said or f"{meaning_of(exc).title}. {meaning_of(exc).advice}", exc)
            status = exc.status if exc.status and 400 <= exc.status < 500 else 502
        else:
            if as_json:
                return JsonResponse({"ok": True})
            # Back to the same board: its grouping, search and filters (posted as `list`).
            board = _carried_filter(request).copy()
            board["by"] = by.key
            return redirect(reverse("objects:kanban", args=[object_key]) + "?" + board.urlencode())
    if as_json:
        return JsonResponse({"ok": False, "message": problem}, status=status)
    return _board(request, object_key, by=by.key if by else None, query=_carried_filter(request), move_error=problem)


def _carried_filter(request: ConsoleRequest) -> QueryDict:
    """The board's search and filters, carried by a move form (`list`)."""
    return QueryDict((request.POST.get("list") or "")[:4000])
