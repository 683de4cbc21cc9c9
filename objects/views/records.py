"""Records of an object: the records table (search, filters, sort, columns,
paging), the record form (new and edit), the record page and delete.

Every page reads the workspace id and time zone from `request.workspace` (no
remote call) and the object definition from the cache, so the records page
costs at most two remote calls: the definition and one page. The reads these
pages share with the others are in objects/records.py.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.accounts.middleware import background_request
from dashboard.api import errors
from dashboard.fair_use import costly_request
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect, is_partial, poll_row, render_region, stop_polling
from objects import services, tallies
from objects.access_reads import record_form, record_read, record_seen_or_hidden
from objects.comments import record_news_seen
from objects.condition_editor import adding, filter_controls, group_editors, linked_choices, linked_controls
from objects.conditions import MAX_GROUPS
from objects.edits import conflict_rows
from objects.fields import field_defs
from objects.forms import RecordDeleteForm, RecordForm
from objects.grouping import groupable_fields
from objects.models import RecordTally
from objects.records import (
    READ_ONLY,
    VIEW_NONE,
    comments_region,
    default_view_address,
    list_carried,
    object_definition,
    offered_linked_fields,
    record_page_context,
    record_title,
    records_footer_table,
    records_slice,
    records_table,
    saved_view_open,
)
from objects.table import LINK_COLUMN_PREFIX, MAX_LINK_COLUMNS, MAX_RELATION_KEY, MAX_ROW_AT, PAGE_SIZES
from objects.trash import record_delete_to_trash, restored_address


@costly_request(when="q")
@require_GET
def records(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    if not request.GET:
        default = default_view_address(workspace=request.workspace, user=request.user, object_key=object_key)
        if default:
            return redirect(default)
    if adding(request.GET) and is_partial(request):
        # A field picker of the OR groups: the bar itself changes, so the whole page.
        return client_redirect(request, request.get_full_path())
    table = records_table(workspace=request.workspace, user=request.user, object_key=object_key, query=request.GET)
    linked = offered_linked_fields(workspace=request.workspace, object_key=object_key, record_filter=table.state.filter)
    context = {
        "table": table,
        "filters": filter_controls([*table.fields, *table.state.filter.computed], table.state.filter),
        # Conditions on linked records' fields, and the pickers' groups of them (objects/condition_editor.py).
        "linked_filters": linked_controls(linked, table.state, request.GET),
        "linked_choices": linked_choices(linked),
        "or_groups": group_editors([*table.fields, *table.state.filter.computed, *linked], table.state, request.GET),
        "can_add_group": len(table.state.filter.groups) < MAX_GROUPS,
        "groupable": groupable_fields(table.fields),
        "page_sizes": PAGE_SIZES,
        "swap": is_partial(request),
    }
    return render_region(request, "objects/records.html", "records-table", context)


@require_GET
def records_rows(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    """One slice of the table's rows from `cursor` on, `at` its first row's
    position (static/js/objects_window.js asks as one scrolls; the page's
    last row asks for the first, `start=1`, and brings the script with it)."""
    raw_at = request.GET.get("at", "")
    at = min(int(raw_at), MAX_ROW_AT) if raw_at.isdigit() and len(raw_at) < 10 else 0
    table = records_slice(
        workspace=request.workspace, user=request.user, object_key=object_key, query=request.GET, at=at
    )
    context = {"table": table, "start": request.GET.get("start") == "1"}
    return render(request, "objects/records.html#records-rows", context)


@background_request
@never_cache
@require_GET
def records_count(request: ConsoleRequest, object_key: str, count_id: int) -> HttpResponseBase:
    """The table's total while it is counted in the background (polled every
    2 s from the database only): 204 while unchanged, 286 once final."""
    rows = tallies.tally_rows(workspace_id=request.workspace.id, object_key=object_key, pk=count_id)
    count = poll_row(request, rows, tallies.tally_version, missing="No such count.")
    if not isinstance(count, RecordTally):
        return count
    response = render(request, "objects/records.html#records-total", {"count": count, "object_key": object_key})
    return stop_polling(response, final=count.is_final)


@background_request
@never_cache
@require_GET
def records_footers(request: ConsoleRequest, object_key: str, count_id: int) -> HttpResponseBase:
    """The table's footer row while every record's footers are counted in
    the background (polled every 2 s from the database, the definition from
    its cache): 204 while unchanged, 286 once final. The query is the
    table's, for its columns and their aggregates."""
    rows = tallies.tally_rows(workspace_id=request.workspace.id, object_key=object_key, pk=count_id)
    count = poll_row(request, rows, tallies.tally_version, missing="No such count.")
    if not isinstance(count, RecordTally):
        return count
    table = records_footer_table(
        workspace=request.workspace, user=request.user, object_key=object_key, query=request.GET, count=count
    )
    response = render(request, "objects/records.html#records-footers", {"table": table})
    return stop_polling(response, final=count.is_final)


@require_POST
def records_columns(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    """Remember the columns shown: in the open saved view when it is this
    person's, else as this person's own choice; answer with the same table.
    No write guard: the columns a person sees are their own preference."""
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    chosen = request.POST.getlist("shown")
    shown = set(chosen)
    hidden = [f.key for f in field_defs(definition) if f.key not in shown]
    # Linked-record columns, in the picker's order (a relation key as the service spells it, kept short).
    links = [key.removeprefix(LINK_COLUMN_PREFIX) for key in chosen if key.startswith(LINK_COLUMN_PREFIX)]
    links = [key for key in links if 0 < len(key) <= MAX_RELATION_KEY and key.isprintable()][:MAX_LINK_COLUMNS]
    query = QueryDict(request.POST.get("query", ""), mutable=True)
    view = saved_view_open(workspace=workspace, user=request.user, object_key=object_key, query=query)
    # A shared view changes for everyone: only its owner while they may write.
    if view is not None and view.owner_id == request.user.pk and (not view.shared or workspace.can_write):
        services.saved_view_set_columns(view=view, hidden_fields=hidden, link_columns=links)
    else:
        # Someone else's shared view (or one's own, by a person who may only
        # read now) is left as it is: the columns become this person's own.
        query.pop("view", None)
        services.column_preference_set(
            user=request.user,
            workspace_id=workspace.id,
            object_key=object_key,
            hidden_fields=hidden,
            link_columns=links,
        )
    encoded = query.urlencode()
    if not is_partial(request):
        records_url = reverse("objects:records", args=[object_key])
        return client_redirect(request, records_url + f"?{encoded or 'view=' + VIEW_NONE}")
    table = records_table(workspace=workspace, user=request.user, object_key=object_key, query=query)
    return render(request, "objects/records.html#records-table", {"table": table, "swap": True})


def _record_form(request: ConsoleRequest, context: dict[str, Any]) -> HttpResponse:
    return render_region(request, "objects/record_form.html", "record-form", context)


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def record_new(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    definition = object_definition(workspace=request.workspace, object_key=object_key)
    form = record_form(
        workspace=request.workspace, object_key=object_key, definition=definition, data=request.POST or None
    )
    context: dict[str, Any] = {"form": form, "definition": definition, "object_key": object_key}
    return _create(request, form, context, object_key=object_key)


def _create(
    request: ConsoleRequest, form: RecordForm, context: dict[str, Any], *, object_key: str, source_record_id: str = ""
) -> HttpResponseBase:
    if request.method == "POST" and form.is_valid():
        try:
            created = services.record_create(
                client=request.workspace.client,
                object_key=object_key,
                values=form.values_to_create(),
                idempotency_key=form.cleaned_data["idempotency_key"],
                user=request.user,
                workspace_id=request.workspace.id,
                fields=form.record_fields,
                source_record_id=source_record_id,
            )
        except errors.ApiError as exc:
            context["remote_error"] = failed_write(request, form, exc)
            return _record_form(request, context)
        return client_redirect(request, reverse("objects:record", args=[object_key, created.get("id")]))
    return _record_form(request, context)


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def record_duplicate(request: ConsoleRequest, object_key: str, record_id: str) -> HttpResponseBase:
    """A new record's form filled with this record's values; nothing is
    created until it is saved (so a duplicate can be told apart first)."""
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    source = record_read(workspace=workspace, object_key=object_key, record_id=record_id)
    form = record_form(
        workspace=workspace, object_key=object_key, definition=definition, data=request.POST or None, copy_of=source
    )
    context: dict[str, Any] = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "duplicate_of": record_id,
        "duplicate_title": record_title(definition, source),
    }
    return _create(request, form, context, object_key=object_key, source_record_id=record_id)


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def record_edit(request: ConsoleRequest, object_key: str, record_id: str) -> HttpResponseBase:
    """The edit form sends only what the person changed relative to the
    values it showed (carried in the form); a field also changed meanwhile
    is shown with both values to choose from (objects/edits.py)."""
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    # On a post this is the re-read the changes are checked against.
    record = record_read(workspace=workspace, object_key=object_key, record_id=record_id)
    form = record_form(
        workspace=workspace, object_key=object_key, definition=definition, data=request.POST or None, record=record
    )
    context: dict[str, Any] = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "record": record,
        "list_query": list_carried(_list_param(request), definition, workspace=workspace, object_key=object_key),
    }
    if request.method == "POST" and form.is_valid():
        plan = form.edit_plan(request.POST)
        if plan.conflicts:
            context["conflicts"] = conflict_rows(plan.conflicts, zone=workspace.zone)
            return _record_form(request, context)
        try:
            services.record_update_plan(
                client=workspace.client,
                object_key=object_key,
                record_id=record_id,
                plan=plan,
                idempotency_key=form.cleaned_data["idempotency_key"],
                user=request.user,
                workspace_id=workspace.id,
                fields=form.record_fields,
            )
        except errors.ApiError as exc:
            context["remote_error"] = failed_write(request, form, exc)
            return _record_form(request, context)
        return client_redirect(request, _record_address(object_key, record_id, context["list_query"]))
    return _record_form(request, context)


def _list_param(request: ConsoleRequest) -> str:
    """The records table's query this page came from (`?list=`, or posted back), unchecked."""
    return request.GET.get("list") or request.POST.get("list") or ""


def _record_address(object_key: str, record_id: str, carried: str) -> str:
    address = reverse("objects:record", args=[object_key, record_id])
    return f"{address}?{urlencode({'list': carried})}" if carried else address


@require_GET
def record(request: ConsoleRequest, object_key: str, record_id: str) -> HttpResponseBase:
    try:
        context = record_page_context(
            workspace=request.workspace, object_key=object_key, record_id=record_id, list_raw=_list_param(request)
        )
    except errors.NotFoundError:
        # A record restored from the trash has a new id: its old address leads there.
        restored = restored_address(workspace_id=request.workspace.id, object_key=object_key, record_id=record_id)
        if not restored:
            raise
        return redirect("objects:record", object_key, restored)
    workspace = request.workspace
    # Opened: its mentions and watched news leave this person's inbox.
    record_news_seen(user=request.user, workspace_id=workspace.id, object_key=object_key, record_id=record_id)
    context.update(comments_region(workspace=workspace, user=request.user, object_key=object_key, record_id=record_id))
    return render(request, "objects/record.html", context)


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def record_delete(request: ConsoleRequest, object_key: str, record_id: str) -> HttpResponseBase:
    """Asks first (its relationships go too), then moves it to the trash."""
    workspace = request.workspace
    form = RecordDeleteForm(request.POST or None)
    definition = object_definition(workspace=workspace, object_key=object_key)
    if request.method == "POST" and form.is_valid():
        record_seen_or_hidden(workspace=workspace, object_key=object_key, record_id=record_id)
        # Kept in the trash first (values, title, links), so it can be restored.
        kept = record_delete_to_trash(
            client=workspace.client,
            workspace_id=workspace.id,
            object_key=object_key,
            record_id=record_id,
            idempotency_key=form.cleaned_data["idempotency_key"],
            definition=definition,
            user=request.user,
        )
        undo = reverse("objects:trash_restore_one", args=[object_key, kept.pk])
        messages.success(request, format_html('“{}” moved to the trash · <a href="{}">Undo</a>', kept.title, undo))
        return client_redirect(request, reverse("objects:records", args=[object_key]))
    found = record_read(workspace=workspace, object_key=object_key, record_id=record_id)
    context = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record_title": record_title(definition, found),
    }
    if is_partial(request):
        return render(request, "objects/record.html#delete-confirm", context)
    return render(request, "objects/record_delete.html", context)
