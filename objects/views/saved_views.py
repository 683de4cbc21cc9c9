"""Saved views of an object's records table: named filters, search, sort,
columns and page size; private or shared with the workspace's console users;
opened by their own address; one default per person and object."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpResponseBase, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from dashboard.frame.permissions import forbidden, write_refusal
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect
from objects import looks, selectors, services
from objects.fields import field_defs
from objects.forms import SavedViewForm
from objects.models import SavedView
from objects.records import (
    SHARE_NEEDS_WRITE,
    filter_linked_fields,
    hidden_columns,
    link_columns_shown,
    object_definition,
    saved_view_open,
    view_address,
)
from objects.table import TableState


def _own_view(request: ConsoleRequest, object_key: str, view_id: int) -> SavedView:
    view = selectors.saved_view_get(
        user=request.user, workspace_id=request.workspace.id, object_key=object_key, pk=view_id
    )
    if view is None:
        raise Http404("No such view.")
    return view


@require_POST
def view_save(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    """Saves the table as it is now (its query re-checked) under a name. No
    write guard: a private view is this person's own (a Viewer keeps theirs);
    sharing it needs a role that writes, checked by the form. Saving one's own
    shared view again unshared withdraws it, which anyone may do with what they
    published."""
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    form = SavedViewForm(request.POST, share_refusal=write_refusal(workspace, SHARE_NEEDS_WRITE))
    if not form.is_valid():
        return render(
            request,
            "objects/view_save.html",
            {"form": form, "definition": definition, "object_key": object_key},
            status=200,
        )
    query = QueryDict(form.cleaned_data["query"])
    # Conditions on linked records' fields are kept too (checked against their objects' fields).
    linked, _problems = filter_linked_fields(workspace=workspace, query=query)
    kind = looks.look_kind(form.cleaned_data["kind"])
    if kind != looks.TABLE:
        # A kanban, calendar, gallery or chart: its filter and its own settings.
        view = services.saved_view_save(
            user=request.user,
            workspace_id=workspace.id,
            object_key=object_key,
            name=form.cleaned_data["name"],
            query=urlencode(looks.filter_pairs(query, field_defs(definition), linked)),
            hidden_fields=[],
            shared=form.cleaned_data["shared"],
            kind=kind,
            settings=looks.settings_from_query(kind, query),
        )
        return client_redirect(request, view_address(view))
    state = TableState.from_query(query, field_defs(definition), linked)
    opened = saved_view_open(workspace=workspace, user=request.user, object_key=object_key, query=query)
    hidden = hidden_columns(workspace=workspace, user=request.user, object_key=object_key, view=opened)
    links = link_columns_shown(workspace=workspace, user=request.user, object_key=object_key, view=opened)
    view = services.saved_view_save(
        user=request.user,
        workspace_id=request.workspace.id,
        object_key=object_key,
        name=form.cleaned_data["name"],
        query=state.view_query(),
        hidden_fields=hidden,
        link_columns=links,
        shared=form.cleaned_data["shared"],
    )
    if form.cleaned_data["make_default"]:
        services.saved_view_set_default(
            user=request.user, workspace_id=request.workspace.id, object_key=object_key, view=view
        )
    return client_redirect(request, view_address(view))


@require_GET
def view_open(request: ConsoleRequest, object_key: str, view_id: int) -> HttpResponseBase:
    """A view's own address (to share or bookmark): the table with its query."""
    return redirect(view_address(_own_view(request, object_key, view_id)))


@require_POST
def view_default(request: ConsoleRequest, object_key: str, view_id: int) -> HttpResponseBase:
    """Makes this view the one the records page opens with (again: no default)."""
    view = _own_view(request, object_key, view_id)
    preference = selectors.column_preference(
        user=request.user, workspace_id=request.workspace.id, object_key=object_key
    )
    already = preference is not None and preference.default_view_id == view.pk
    services.saved_view_set_default(
        user=request.user, workspace_id=request.workspace.id, object_key=object_key, view=None if already else view
    )
    return client_redirect(request, view_address(view))


@require_POST
def view_delete(request: ConsoleRequest, object_key: str, view_id: int) -> HttpResponseBase:
    """Deletes one of this person's views (a shared view only by its owner)."""
    view = _own_view(request, object_key, view_id)
    if view.owner_id != request.user.pk:
        return forbidden(request, f"Only {view.owner.get_username()} can delete the view “{view.name}”.")
    services.saved_view_delete(view=view)
    return client_redirect(request, reverse("objects:records", args=[object_key]) + "?view=all")
