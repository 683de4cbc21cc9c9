"""A record's history: undo the latest change made through the console."""

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
from dashboard.web.htmx import client_redirect
from dashboard.web.reading import as_dict
from objects import selectors, services
from objects.fields import field_defs
from objects.forms import RecordUndoForm
from objects.history import UNDOABLE, history_rows, latest_value_change, undo_plan
from objects.models import RecordChange
from objects.records import READ_ONLY, conflict_rows, object_definition, record_title


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def record_undo(request: ConsoleRequest, object_key: str, record_id: str, change_id: int) -> HttpResponseBase:
    """Shows what undoing restores; a post PATCHes the values back, except a
    field changed again since, which the person settles first."""
    workspace = request.workspace
    change = selectors.record_change_get(
        workspace_id=workspace.id, object_key=object_key, record_id=record_id, pk=change_id
    )
    # Links and restores change no value: they never block the edit before them.
    latest = latest_value_change(
        selectors.record_history(workspace_id=workspace.id, object_key=object_key, record_id=record_id)
    )
    if change is None or change.action not in UNDOABLE:
        raise Http404("No such change.")
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    record = selectors.record_get(client=workspace.client, object_key=object_key, record_id=record_id)
    current = as_dict(record.get("values"))
    form = RecordUndoForm(request.POST if request.method == "POST" else None)
    context: dict[str, Any] = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record_title": record_title(definition, record),
        "change": history_rows([change], fields=fields, zone=workspace.zone)[0],
        # Only the latest change can be undone, once: an older one is shown, not offered.
        "stale": bool(change.undone_at) or latest is None or latest.pk != change.pk,
    }
    if request.method == "POST" and form.is_valid() and not context["stale"]:
        plan = undo_plan(change, fields=fields, current=current, choices=request.POST)
        if plan.conflicts:
            context["conflicts"] = conflict_rows(plan.conflicts, zone=workspace.zone)
            return render(request, "objects/record_undo.html", context)
        try:
            services.record_update_plan(
                client=workspace.client,
                object_key=object_key,
                record_id=record_id,
                plan=plan,
                idempotency_key=form.cleaned_data["idempotency_key"],
                user=request.user,
                workspace_id=workspace.id,
                fields=fields,
                action=RecordChange.Action.UNDO,
            )
        except errors.ApiError as exc:
            context["remote_error"] = failed_write(request, form, exc)
            return render(request, "objects/record_undo.html", context)
        services.record_change_mark_undone(change=change)
        return client_redirect(request, reverse("objects:record", args=[object_key, record_id]) + "#history")
    return render(request, "objects/record_undo.html", context)
