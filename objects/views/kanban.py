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
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from dashboard.accounts.middleware import background_request
from dashboard.api import errors
from dashboard.api.messages import meaning_of, said_by_service, with_request_id
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest, Workspace
from dashboard.idempotency import IdempotencyKeyField
from dashboard.web.htmx import client_redirect, is_partial, poll_row, stop_polling
from dashboard.web.pager import CursorPager
from objects import services
from objects.access_reads import person_access, write_refused
from objects.fields import FieldDef, field_defs
from objects.filters import FILTER_PREFIX, RecordFilter
from objects.kanban import (
    BoardColumn,
    apply_tally,
    board_columns,
    board_fields,
    card_fields,
    empty_columns,
    fill_column,
    sum_choices,
)
from objects.models import RecordTally
from objects.records import READ_ONLY, filter_linked_fields, filter_plan, object_definition, saved_view_open
from objects.tallies import tally_get, tally_params, tally_rows, tally_start, tally_version


def _board_field(fields: list[FieldDef], key: str | None) -> FieldDef | None:
    choices = board_fields(fields)
    return next((f for f in choices if f.key == key), choices[0] if choices else None)


def _card_pairs(query: QueryDict) -> list[tuple[str, str]]:
    """The board's own settings a "Show more" carries: the fields on cards, the sum."""
    pairs = [("card", str(key)) for key in query.getlist("card")[:20]]
    if query.get("sum"):
        pairs.append(("sum", str(query["sum"])))
    return pairs


def _can_move(workspace: Workspace, definition: dict, object_key: str, by: FieldDef | None) -> bool:
    """Whether this person may move cards: a move changes the board's field,
    so not when it is read-only for them (the object's access policy); records
    of built-in objects belong to their own feature: shown, not moved here."""
    return (
        workspace.can_write
        and definition.get("kind") != "system"
        and (by is None or person_access(workspace=workspace, object_key=object_key).may_write(by.key))
    )


def _sum_field(choices: list[FieldDef], key: str | None) -> FieldDef | None:
    return next((f for f in choices if f.key == key), None)


def _link_columns(
    object_key: str, by: FieldDef, columns: list[BoardColumn], record_filter: RecordFilter, cards: list | None = None
) -> None:
    """Each column's "Show more" (its next cards, for htmx) and, without
    JavaScript, the same records in the table (the filter plus this value)."""
    pairs = record_filter.pairs()
    card_pairs = cards or []
    more_base = reverse("objects:kanban_column", args=[object_key])
    table_base = reverse("objects:records", args=[object_key])
    for column in columns:
        value = [(FILTER_PREFIX + by.key, column.option_id)] if column.option_id else [("empty", by.key)]
        column.table_url = f"{table_base}?{urlencode(pairs + value)}"
        if column.next_cursor:
            more = [("by", by.key), ("option", column.option_id), ("cursor", column.next_cursor)]
            column.more_url = f"{more_base}?{urlencode(more + [('shown', str(column.shown))] + pairs + card_pairs)}"


def _counts_query(by: FieldDef | None, columns: list[BoardColumn], sum_field: FieldDef | None) -> str:
    """What the totals' poll needs to word each column: its cards shown, "more", left out."""
    pairs = [("by", by.key if by else ""), *([("sum", sum_field.key)] if sum_field else [])]
    for index, column in enumerate(columns, start=1):
        pairs += [(f"shown{index}", str(column.shown)), (f"more{index}", "1" if column.more else "0")]
        if column.filtered_out:
            pairs.append((f"out{index}", "1"))
    return urlencode(pairs)


def _board(
    request: ConsoleRequest, object_key: str, *, by: str | None, query: QueryDict, status: int = 200, **extra: Any
) -> HttpResponse:
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    chosen = _board_field(fields, by)
    # The table's search and filters, carried by its "Kanban" link.
    linked, problems = filter_linked_fields(workspace=workspace, query=query)
    record_filter = RecordFilter.from_query(query, fields, linked)
    plan = filter_plan(workspace=workspace, object_key=object_key, record_filter=record_filter, fields=fields)
    plan.problems[:0] = problems
    shown_fields = card_fields(fields, query.getlist("card"), by=chosen)
    sums = sum_choices(workspace_id=workspace.id, object_key=object_key, fields=fields)
    sum_field = _sum_field(sums, query.get("sum"))
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
            shown_fields=shown_fields,
        )
        if chosen
        else []
    )
    tally = None
    if chosen:
        _link_columns(object_key, chosen, columns, record_filter, _card_pairs(query))
        if any(column.more for column in columns) or sum_field is not None:
            # Real totals (and sums) need every record: a background count.
            tally = tally_start(
                key=workspace.require_key(),
                object_key=object_key,
                params=tally_params(
                    record_filter=record_filter,
                    group=chosen,
                    bucket="",
                    value=sum_field,
                    zone_name=workspace.timezone_name,
                ),
            )
            apply_tally(columns, tally, sum_field=sum_field)
    filter_query = urlencode(record_filter.pairs())
    settings_pairs = [
        *([("by", chosen.key)] if chosen else []),
        *[("card", f.key) for f in shown_fields],
        *([("sum", sum_field.key)] if sum_field else []),
    ]
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
        "filter_partial": plan.partial,
        "move_form": MoveForm(),
        "can_move": _can_move(workspace, definition, object_key, chosen),
        # The fields on cards and the summed field, chosen by the admin and saved with the view.
        "card_choices": [f for f in fields if chosen is None or f.key != chosen.key],
        "shown_fields": shown_fields,
        "shown_keys": [f.key for f in shown_fields],
        "sum_choices": sums,
        "sum_field": sum_field,
        "tally": tally,
        "tally_version": tally_version(tally) if tally else "",
        "settings_query": urlencode(settings_pairs),
        # The look's shared head and "Save this kanban" (objects/looks.py).
        "plural": definition.get("plural_name") or object_key,
        "kind": "kanban",
        "kind_label": "Kanban",
        "heading_suffix": f"by {chosen.label.lower()}" if chosen else "",
        "saved_view": saved_view_open(workspace=workspace, user=request.user, object_key=object_key, query=query),
        "counts_query": _counts_query(chosen, columns, sum_field) if tally else "",
        "save_query": urlencode([*record_filter.pairs(), *settings_pairs]),
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
    linked, _problems = filter_linked_fields(workspace=workspace, query=request.GET)
    record_filter = RecordFilter.from_query(request.GET, fields, linked)
    plan = filter_plan(workspace=workspace, object_key=object_key, record_filter=record_filter, fields=fields)
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
        shown_fields=card_fields(fields, request.GET.getlist("card"), by=by),
    )
    _link_columns(object_key, by, [column], record_filter, _card_pairs(request.GET))
    # The board's count, when one was made, keeps the column's total exact.
    sum_field = _sum_field(
        sum_choices(workspace_id=workspace.id, object_key=object_key, fields=fields), request.GET.get("sum")
    )
    params = tally_params(
        record_filter=record_filter, group=by, bucket="", value=sum_field, zone_name=workspace.timezone_name
    )
    apply_tally([column], tally_get(workspace_id=workspace.id, object_key=object_key, params=params), sum_field=None)
    context = {
        "object_key": object_key,
        "by": by,
        "columns": columns,
        "column": column,
        "column_index": index + 1,
        "move_form": MoveForm(),
        "filter_query": urlencode(record_filter.pairs()),
        "can_move": _can_move(workspace, definition, object_key, by),
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
        # A move changes the board's field: refused as its cell's edit is when it is read-only for this person.
        problem = write_refused(workspace=workspace, object_key=object_key, keys=[by.key])
        status = 403 if problem else status
    if not problem and by is not None:
        try:
            services.record_update(
                client=workspace.client,
                object_key=object_key,
                record_id=form.cleaned_data["record_id"],
                changes={by.key: form.cleaned_data["option"] or None},
                idempotency_key=form.cleaned_data["idempotency_key"],
                workspace_id=workspace.id,  # its counts (the board's totals) are stale at once
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


@background_request
@never_cache
@require_GET
def kanban_counts(request: ConsoleRequest, object_key: str, pk: int) -> HttpResponse:
    """The board's totals while they are counted: 204 unchanged (one query);
    else each column's count and sum swapped in place (out of band), 286 once
    counted."""
    workspace = request.workspace
    rows = tally_rows(workspace_id=workspace.id, object_key=object_key, pk=pk)
    tally = poll_row(request, rows, tally_version, missing="No such count.")
    if not isinstance(tally, RecordTally):
        return tally
    fields = field_defs(object_definition(workspace=workspace, object_key=object_key))
    by = _board_field(fields, request.GET.get("by"))
    if by is None:
        raise Http404("This board has no such field.")
    columns = empty_columns(by)
    # The cards each column showed (the board's own numbers while counting).
    for index, column in enumerate(columns, start=1):
        shown = request.GET.get(f"shown{index}", "")
        column.shown_before = min(int(shown), MAX_SHOWN) if shown.isdigit() else 0
        column.more = request.GET.get(f"more{index}") == "1"
        column.filtered_out = request.GET.get(f"out{index}") == "1"
    sum_field = _sum_field(
        sum_choices(workspace_id=workspace.id, object_key=object_key, fields=fields), request.GET.get("sum")
    )
    apply_tally(columns, tally, sum_field=sum_field)
    context = {
        "columns": columns,
        "tally": tally,
        "tally_version": tally_version(tally),
        "object_key": object_key,
        "by": by,
        "sum_field": sum_field,
        "counts_query": urlencode([(k, v) for k, v in request.GET.items() if k != "v"]),
        "oob": True,
    }
    return stop_polling(render(request, "objects/kanban.html#kanban-counts", context), final=tally.is_final)
