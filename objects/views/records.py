"""Records of an object: the records table (search, filters, sort, columns,
paging), the record form (new and edit), the record page and delete.

Every page reads the workspace id and time zone from `request.workspace` (no
remote call) and the object definition from the cache, so the records page
costs at most two remote calls: the definition and one page.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.http import HttpRequest, HttpResponse, HttpResponseBase, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.api import errors
from dashboard.web.forms import failed_write
from dashboard.web.htmx import client_redirect, is_partial, render_region
from dashboard.web.params import database_id
from dashboard.web.reading import as_dict, text
from objects import selectors, services
from objects.edits import Conflict, EditPlan
from objects.fields import FieldDef, cell, field_defs, format_datetime, title_field_key
from objects.filters import filter_controls
from objects.forms import RecordDeleteForm, RecordForm
from objects.history import UNDOABLE, history_rows
from objects.links import Link, links_by_relation
from objects.models import RecordChange, SavedView
from objects.names import record_titles, record_url
from objects.table import PAGE_SIZES, RecordsTable, TableState, build_table, list_query
from objects.views.access import refuse_read_only


def object_definition(request: HttpRequest, object_key: str) -> dict:
    """The object and its fields, from the per-workspace cache."""
    workspace = request.workspace
    return selectors.object_definition_get(client=workspace.client, workspace_id=workspace.id, object_key=object_key)


VIEW_NONE = "all"  # `?view=all`: the whole table, even for a person with a default view


def open_view(request: HttpRequest, object_key: str, query: QueryDict) -> SavedView | None:
    """The saved view named by `?view=` when this person may open it."""
    raw = query.get("view", "")
    pk = database_id(raw) if raw and raw != VIEW_NONE else None
    if pk is None:
        return None
    return selectors.saved_view_get(user=request.user, workspace_id=request.workspace.id, object_key=object_key, pk=pk)


def hidden_columns(request: HttpRequest, object_key: str, view: SavedView | None) -> list[str]:
    """The columns hidden: the open saved view's, else this person's own choice."""
    if view is not None:
        return list(view.hidden_fields)
    return selectors.column_hidden_fields(user=request.user, workspace_id=request.workspace.id, object_key=object_key)


def _records_table(request: HttpRequest, *, object_key: str, query: QueryDict) -> RecordsTable:
    workspace = request.workspace
    definition = object_definition(request, object_key)
    fields = field_defs(definition)
    state = TableState.from_query(query, fields)
    service_filter, problems = state.service_filter(fields)
    page = selectors.record_list(
        client=workspace.client,
        object_key=object_key,
        filters=service_filter,
        search=state.search,
        sort=state.sort,
        cursor=state.pager.remote_cursor,
        limit=state.limit,
    )
    view = open_view(request, object_key, query)
    preference = selectors.column_preference(user=request.user, workspace_id=workspace.id, object_key=object_key)
    # The open saved view's columns, else this person's own choice.
    own = list(preference.hidden_fields) if preference else []
    hidden = list(view.hidden_fields) if view is not None else own
    table = build_table(
        object_key=object_key,
        definition=definition,
        fields=fields,
        records=page.items,
        next_cursor=page.next_cursor,
        state=state,
        hidden_fields=hidden,
        filter_problems=problems,
        zone=workspace.zone,
        editable=workspace.can_write and definition.get("kind") != "system",
    )
    table.view = view
    table.views = selectors.saved_views(user=request.user, workspace_id=workspace.id, object_key=object_key)
    table.default_view_id = preference.default_view_id if preference else None
    return table


def _default_view_address(request: HttpRequest, object_key: str) -> str | None:
    """A bare records address opens this person's default view, if any."""
    preference = selectors.column_preference(
        user=request.user, workspace_id=request.workspace.id, object_key=object_key
    )
    view = preference.default_view if preference and preference.default_view_id else None
    if view is None or not (view.owner_id == request.user.pk or view.shared):
        return None
    return view_address(view)


def view_address(view: SavedView) -> str:
    records_url = reverse("objects:records", args=[view.object_key])
    return f"{records_url}?{view.query + '&' if view.query else ''}{urlencode({'view': view.pk})}"


@require_GET
def records(request: HttpRequest, object_key: str) -> HttpResponseBase:
    if not request.GET:
        default = _default_view_address(request, object_key)
        if default:
            return redirect(default)
    table = _records_table(request, object_key=object_key, query=request.GET)
    context = {
        "table": table,
        "filters": filter_controls(table.fields, table.state.filter),
        "page_sizes": PAGE_SIZES,
        "swap": is_partial(request),
    }
    return render_region(request, "objects/records.html", "records-table", context)


@require_POST
def records_columns(request: HttpRequest, object_key: str) -> HttpResponseBase:
    """Remember the columns shown: in the open saved view when it is this
    person's, else as this person's own choice; answer with the same table."""
    definition = object_definition(request, object_key)
    shown = set(request.POST.getlist("shown"))
    hidden = [f.key for f in field_defs(definition) if f.key not in shown]
    query = QueryDict(request.POST.get("query", ""), mutable=True)
    view = open_view(request, object_key, query)
    if view is not None and view.owner_id == request.user.pk:
        services.saved_view_set_columns(view=view, hidden_fields=hidden)
    else:
        # Someone else's shared view is left as it is: the columns become this person's own.
        query.pop("view", None)
        services.column_preference_set(
            user=request.user,
            workspace_id=request.workspace.id,
            object_key=object_key,
            hidden_fields=hidden,
        )
    encoded = query.urlencode()
    if not is_partial(request):
        records_url = reverse("objects:records", args=[object_key])
        return client_redirect(request, records_url + f"?{encoded or 'view=' + VIEW_NONE}")
    table = _records_table(request, object_key=object_key, query=query)
    return render(request, "objects/records.html#records-table", {"table": table, "swap": True})


def _record_form(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    return render_region(request, "objects/record_form.html", "record-form", context)


@require_http_methods(["GET", "POST"])
def record_new(request: HttpRequest, object_key: str) -> HttpResponseBase:
    if refused := refuse_read_only(request):
        return refused
    definition = object_definition(request, object_key)
    form = RecordForm(request.POST or None, definition=definition, zone=request.workspace.zone)
    context: dict[str, Any] = {"form": form, "definition": definition, "object_key": object_key}
    return _create(request, form, context, object_key=object_key)


def _create(
    request: HttpRequest, form: RecordForm, context: dict[str, Any], *, object_key: str, source_record_id: str = ""
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
def record_duplicate(request: HttpRequest, object_key: str, record_id: str) -> HttpResponseBase:
    """A new record's form filled with this record's values; nothing is
    created until it is saved (so a duplicate can be told apart first)."""
    if refused := refuse_read_only(request):
        return refused
    workspace = request.workspace
    definition = object_definition(request, object_key)
    source = selectors.record_get(client=workspace.client, object_key=object_key, record_id=record_id)
    form = RecordForm(request.POST or None, definition=definition, zone=workspace.zone, copy_of=source)
    context: dict[str, Any] = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "duplicate_of": record_id,
        "duplicate_title": record_title(definition, source),
    }
    return _create(request, form, context, object_key=object_key, source_record_id=record_id)


def conflict_rows(conflicts: list[Conflict], *, zone) -> list[dict[str, Any]]:
    """Each conflict with its three values as cells (what was shown, theirs now, mine)."""
    return [
        {
            "conflict": c,
            "shown": cell(c.field, c.shown, zone=zone),
            "theirs": cell(c.field, c.theirs, zone=zone),
            "mine": cell(c.field, c.mine, zone=zone),
        }
        for c in conflicts
    ]


def write_plan(
    request: HttpRequest,
    *,
    object_key: str,
    record_id: str,
    plan: EditPlan,
    form: forms.Form,
    fields: list[FieldDef],
    action: str = RecordChange.Action.EDIT,
) -> dict | None:
    """PATCHes a settled plan's changes with the form's key, into the
    record's history; nothing to send, no call (None). Remote errors propagate."""
    if not plan.changes:
        return None
    return services.record_update(
        client=request.workspace.client,
        object_key=object_key,
        record_id=record_id,
        changes=plan.changes,
        idempotency_key=form.cleaned_data["idempotency_key"],
        user=request.user,
        workspace_id=request.workspace.id,
        before=plan.before,
        fields=fields,
        action=action,
    )


@require_http_methods(["GET", "POST"])
def record_edit(request: HttpRequest, object_key: str, record_id: str) -> HttpResponseBase:
    """The edit form sends only what the person changed relative to the
    values it showed (carried in the form); a field also changed meanwhile
    is shown with both values to choose from (objects/edits.py)."""
    if refused := refuse_read_only(request):
        return refused
    workspace = request.workspace
    definition = object_definition(request, object_key)
    # On a post this is the re-read the changes are checked against.
    record = selectors.record_get(client=workspace.client, object_key=object_key, record_id=record_id)
    form = RecordForm(request.POST or None, definition=definition, zone=workspace.zone, record=record)
    context: dict[str, Any] = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "record": record,
        "list_query": _carried_list(request, definition),
    }
    if request.method == "POST" and form.is_valid():
        plan = form.edit_plan(request.POST)
        if plan.conflicts:
            context["conflicts"] = conflict_rows(plan.conflicts, zone=workspace.zone)
            return _record_form(request, context)
        try:
            write_plan(
                request, object_key=object_key, record_id=record_id, plan=plan, form=form, fields=form.record_fields
            )
        except errors.ApiError as exc:
            context["remote_error"] = failed_write(request, form, exc)
            return _record_form(request, context)
        return client_redirect(request, _record_address(object_key, record_id, context["list_query"]))
    return _record_form(request, context)


def _carried_list(request: HttpRequest, definition: dict) -> str:
    """The records table's query this page came from (`?list=`), checked."""
    raw = request.GET.get("list") or request.POST.get("list") or ""
    return list_query(raw, field_defs(definition)) if raw else ""


def _record_address(object_key: str, record_id: str, carried: str) -> str:
    address = reverse("objects:record", args=[object_key, record_id])
    return f"{address}?{urlencode({'list': carried})}" if carried else address


def record_title(definition: dict, record: dict | None) -> str:
    title_key = title_field_key(definition)
    title = as_dict(as_dict(record).get("values")).get(title_key) if title_key else None
    return text(title) if title not in (None, "") else "Untitled"


def record_page_context(request: HttpRequest, *, object_key: str, record_id: str) -> dict[str, Any]:
    """The record page: its values, its relationships panel (other records by
    their titles) and its history."""
    workspace = request.workspace
    definition = object_definition(request, object_key)
    fields = field_defs(definition)
    record = None
    try:
        record = selectors.record_get(client=workspace.client, object_key=object_key, record_id=record_id)
    except errors.NotFoundError:
        # Records of built-in objects belong to their own feature; their links
        # are still listed here.
        if definition.get("kind") != "system":
            raise
    values = as_dict(as_dict(record).get("values"))
    links = selectors.relationship_list(
        client=workspace.client, object_key=object_key, record_id=record_id, workspace_id=workspace.id
    )
    link_groups = links_by_relation(links, object_key=object_key, record_id=record_id)
    name_links(request, link_groups)
    zone = workspace.zone
    carried = _carried_list(request, definition)
    history = selectors.record_history(workspace_id=workspace.id, object_key=object_key, record_id=record_id)
    return {
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record": record,
        "record_title": record_title(definition, record),
        "values": [(f, cell(f, values.get(f.key), zone=zone)) for f in fields],
        "created_at": format_datetime(record["created_at"], zone=zone) if record and record.get("created_at") else "",
        "updated_at": format_datetime(record["updated_at"], zone=zone) if record and record.get("updated_at") else "",
        "link_groups": link_groups,
        "list_query": carried,
        "history": history_rows(history, fields=fields, zone=zone),
        # Only the latest change can be undone, and only once.
        "undoable": history[0] if history and history[0].action in UNDOABLE and not history[0].undone_at else None,
    }


def name_links(request: HttpRequest, link_groups: list[tuple[str, list[Link]]]) -> None:
    """Give every link the other record's title (objects/names.py) and its address."""
    workspace = request.workspace
    every = [link for _key, group in link_groups for link in group if link.record_id]
    titles = record_titles(
        client=workspace.client,
        workspace_id=workspace.id,
        refs=[(link.object_key, link.record_id) for link in every if not link.title],
        definition_of=lambda key: object_definition(request, key),
    )
    for link in every:
        link.title = link.title or titles.get((link.object_key, link.record_id), "")
        link.url = record_url(link.object_key, link.record_id)


@require_GET
def record(request: HttpRequest, object_key: str, record_id: str) -> HttpResponse:
    return render(
        request, "objects/record.html", record_page_context(request, object_key=object_key, record_id=record_id)
    )


@require_http_methods(["GET", "POST"])
def record_delete(request: HttpRequest, object_key: str, record_id: str) -> HttpResponseBase:
    """Asks first (its relationships go too), then deletes."""
    if refused := refuse_read_only(request):
        return refused
    workspace = request.workspace
    form = RecordDeleteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        services.record_delete(
            client=workspace.client,
            object_key=object_key,
            record_id=record_id,
            idempotency_key=form.cleaned_data["idempotency_key"],
            workspace_id=workspace.id,
        )
        return client_redirect(request, reverse("objects:records", args=[object_key]))
    definition = object_definition(request, object_key)
    found = selectors.record_get(client=workspace.client, object_key=object_key, record_id=record_id)
    title = record_title(definition, found)
    context = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record_title": title,
    }
    if is_partial(request):
        return render(request, "objects/record.html#delete-confirm", context)
    return render(request, "objects/record_delete.html", context)
