"""Inline cell edit in the records table: Enter or a click on a cell opens
the field's typed input (static/js/objects_grid.js), Enter saves, Esc
cancels. The editor carries the value it showed, so a cell changed meanwhile
by someone else is a conflict settled in place (objects/edits.py), and a
refusal (422) shows in place with the typed value kept."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from dashboard.api import errors
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect, is_partial
from dashboard.web.reading import as_dict
from objects import services
from objects.access_reads import record_read, write_refused
from objects.edits import conflict_rows
from objects.fields import cell, field_defs
from objects.forms import RESERVED_NAMES, RecordForm
from objects.models import RecordChange
from objects.records import READ_ONLY, object_definition, record_title


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def record_cell(request: ConsoleRequest, object_key: str, record_id: str, field_key: str) -> HttpResponseBase:
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    field = next((f for f in field_defs(definition) if f.key == field_key), None)
    refused = write_refused(workspace=workspace, object_key=object_key, keys=[field_key])
    if definition.get("kind") == "system" or field is None or field_key in RESERVED_NAMES or refused:
        raise Http404("No such editable field.")
    # On a post, the re-read the edit is checked against.
    record = record_read(workspace=workspace, object_key=object_key, record_id=record_id)
    form = RecordForm(
        request.POST or None,
        definition=definition,
        zone=workspace.zone,
        record=record,
        only=field_key,
        auto_id="cell-%s",
    )
    context: dict[str, Any] = {
        "form": form,
        "field": field,
        "bound": form[field_key],
        "object_key": object_key,
        "record_id": record_id,
        "record_title": record_title(definition, record),
        "definition": definition,
    }
    if request.method == "POST" and form.is_valid():
        plan = form.edit_plan(request.POST)
        if plan.conflicts:
            context["conflicts"] = conflict_rows(plan.conflicts, zone=workspace.zone)
            return _editor(request, context)
        try:
            updated = services.record_update_plan(
                client=workspace.client,
                object_key=object_key,
                record_id=record_id,
                plan=plan,
                idempotency_key=form.cleaned_data["idempotency_key"],
                user=request.user,
                workspace_id=workspace.id,
                fields=form.record_fields,
                action=RecordChange.Action.INLINE,
            )
        except errors.ApiError as exc:
            context["remote_error"] = failed_write(request, form, exc)
            return _editor(request, context)
        # Show what the service stored (a body without it: what was sent; nothing sent: as it is).
        values = as_dict(as_dict(updated).get("values"))
        value = (
            values[field_key] if field_key in values else plan.changes.get(field_key, form.stored_values.get(field_key))
        )
        if not is_partial(request):
            return client_redirect(request, reverse("objects:record", args=[object_key, record_id]))
        context["shown"] = cell(field, value, zone=workspace.zone)
        # The message names the record as it is now (its title may be what was edited).
        values_now = {**as_dict(as_dict(record).get("values")), field_key: value}
        context["record_title"] = record_title(definition, {"values": values_now})
        context["saved"] = bool(plan.changes)
        return render(request, "objects/cell_edit.html#cell-shown", context)
    return _editor(request, context)


def _editor(request: ConsoleRequest, context: dict[str, Any]) -> HttpResponseBase:
    if is_partial(request):
        return render(request, "objects/cell_edit.html#cell-editor", context)
    return render(request, "objects/cell_edit.html", context)
