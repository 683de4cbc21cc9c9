"""Records of an object: the records table (search, filters, sort, columns,
paging), the record form (new and edit), the record page and delete.

Every page reads the workspace id and time zone from `request.workspace` (no
remote call) and the object definition from the cache, so the records page
costs at most two remote calls: the definition and one page.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.api import errors
from dashboard.web.forms import failed_write
from dashboard.web.htmx import client_redirect, is_partial, render_region
from dashboard.web.reading import as_dict, text
from objects import selectors, services
from objects.fields import cell, field_defs, format_datetime, title_field_key
from objects.filters import filter_controls
from objects.forms import RecordDeleteForm, RecordForm
from objects.links import links_by_relation
from objects.table import PAGE_SIZES, RecordsTable, TableState, build_table


def object_definition(request: HttpRequest, object_key: str) -> dict:
    """The object and its fields, from the per-workspace cache."""
    workspace = request.workspace
    return selectors.object_definition_get(client=workspace.client, workspace_id=workspace.id, object_key=object_key)


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
    hidden = selectors.column_hidden_fields(user=request.user, workspace_id=workspace.id, object_key=object_key)
    return build_table(
        object_key=object_key,
        definition=definition,
        fields=fields,
        records=page.items,
        next_cursor=page.next_cursor,
        state=state,
        hidden_fields=hidden,
        filter_problems=problems,
        zone=workspace.zone,
    )


@require_GET
def records(request: HttpRequest, object_key: str) -> HttpResponse:
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
    """Remember the columns this person shows; answer with the same view."""
    definition = object_definition(request, object_key)
    shown = set(request.POST.getlist("shown"))
    hidden = [f.key for f in field_defs(definition) if f.key not in shown]
    services.column_preference_set(
        user=request.user,
        workspace_id=request.workspace.id,
        object_key=object_key,
        hidden_fields=hidden,
    )
    query = request.POST.get("query", "")
    if not is_partial(request):
        return client_redirect(request, reverse("objects:records", args=[object_key]) + (f"?{query}" if query else ""))
    table = _records_table(request, object_key=object_key, query=QueryDict(query))
    return render(request, "objects/records.html#records-table", {"table": table, "swap": True})


def _record_form(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    return render_region(request, "objects/record_form.html", "record-form", context)


@require_http_methods(["GET", "POST"])
def record_new(request: HttpRequest, object_key: str) -> HttpResponseBase:
    definition = object_definition(request, object_key)
    form = RecordForm(request.POST or None, definition=definition, zone=request.workspace.zone)
    context: dict[str, Any] = {"form": form, "definition": definition, "object_key": object_key}
    if request.method == "POST" and form.is_valid():
        try:
            created = services.record_create(
                client=request.workspace.client,
                object_key=object_key,
                values=form.values_to_create(),
                idempotency_key=form.cleaned_data["idempotency_key"],
            )
        except errors.ApiError as exc:
            context["remote_error"] = failed_write(request, form, exc)
            return _record_form(request, context)
        return client_redirect(request, reverse("objects:record", args=[object_key, created.get("id")]))
    return _record_form(request, context)


@require_http_methods(["GET", "POST"])
def record_edit(request: HttpRequest, object_key: str, record_id: str) -> HttpResponseBase:
    workspace = request.workspace
    definition = object_definition(request, object_key)
    record = selectors.record_get(client=workspace.client, object_key=object_key, record_id=record_id)
    form = RecordForm(request.POST or None, definition=definition, zone=workspace.zone, record=record)
    context: dict[str, Any] = {"form": form, "definition": definition, "object_key": object_key, "record": record}
    if request.method == "POST" and form.is_valid():
        changes = form.values_changed()
        if changes:
            try:
                services.record_update(
                    client=workspace.client,
                    object_key=object_key,
                    record_id=record_id,
                    changes=changes,
                    idempotency_key=form.cleaned_data["idempotency_key"],
                )
            except errors.ApiError as exc:
                context["remote_error"] = failed_write(request, form, exc)
                return _record_form(request, context)
        return client_redirect(request, reverse("objects:record", args=[object_key, record_id]))
    return _record_form(request, context)


def record_page_context(request: HttpRequest, *, object_key: str, record_id: str) -> dict[str, Any]:
    """The record page: its values and its relationships panel."""
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
    title_key = title_field_key(definition)
    title = values.get(title_key) if title_key else None
    links = selectors.relationship_list(client=workspace.client, object_key=object_key, record_id=record_id)
    zone = workspace.zone
    return {
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record": record,
        "record_title": text(title) if title not in (None, "") else "Untitled",
        "values": [(f, cell(f, values.get(f.key), zone=zone)) for f in fields],
        "created_at": format_datetime(record["created_at"], zone=zone) if record and record.get("created_at") else "",
        "updated_at": format_datetime(record["updated_at"], zone=zone) if record and record.get("updated_at") else "",
        "link_groups": links_by_relation(links, object_key=object_key, record_id=record_id),
    }


@require_GET
def record(request: HttpRequest, object_key: str, record_id: str) -> HttpResponse:
    return render(
        request, "objects/record.html", record_page_context(request, object_key=object_key, record_id=record_id)
    )


@require_http_methods(["GET", "POST"])
def record_delete(request: HttpRequest, object_key: str, record_id: str) -> HttpResponseBase:
    """Asks first (its relationships go too), then deletes."""
    workspace = request.workspace
    form = RecordDeleteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        services.record_delete(
            client=workspace.client,
            object_key=object_key,
            record_id=record_id,
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
        return client_redirect(request, reverse("objects:records", args=[object_key]))
    definition = object_definition(request, object_key)
    found = selectors.record_get(client=workspace.client, object_key=object_key, record_id=record_id)
    title_key = title_field_key(definition)
    title = text((as_dict(as_dict(found).get("values")).get(title_key) if title_key else None) or "Untitled")
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
