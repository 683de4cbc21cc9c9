"""A record's history: undo the latest change made through the console."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from dashboard.api import errors
from dashboard.web.forms import failed_write
from dashboard.web.htmx import client_redirect
from objects import selectors, services
from objects.fields import field_defs
from objects.forms import RecordUndoForm
from objects.history import UNDOABLE, history_rows, undo_plan
from objects.models import RecordChange
from objects.views.access import refuse_read_only
from objects.views.records import conflict_rows, object_definition, record_title, write_plan


@require_http_methods(["GET", "POST"])
def record_undo(request: HttpRequest, object_key: str, record_id: str, change_id: int) -> HttpResponseBase:
    """Shows what undoing restores; a post PATCHes the values back, except a
    field changed again since, which the person settles first."""
    if refused := refuse_read_only(request):
        return refused
    workspace = request.workspace
    change = selectors.record_change_get(
        workspace_id=workspace.id, object_key=object_key, record_id=record_id, pk=change_id
    )
    latest = selectors.record_history(workspace_id=workspace.id, object_key=object_key, record_id=record_id)[:1]
    if change is None or change.action not in UNDOABLE:
        raise Http404("No such change.")
    definition = object_definition(request, object_key)
    fields = field_defs(definition)
    record = selectors.record_get(client=workspace.client, object_key=object_key, record_id=record_id)
    current = record.get("values") if isinstance(record.get("values"), dict) else {}
    form = RecordUndoForm(request.POST if request.method == "POST" else None)
    context: dict[str, Any] = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record_title": record_title(definition, record),
        "change": history_rows([change], fields=fields, zone=workspace.zone)[0],
        # Only the latest change can be undone, once: an older one is shown, not offered.
        "stale": bool(change.undone_at) or not latest or latest[0].pk != change.pk,
    }
    if request.method == "POST" and form.is_valid() and not context["stale"]:
        plan = undo_plan(change, fields=fields, current=current, choices=request.POST)
        if plan.conflicts:
            context["conflicts"] = conflict_rows(plan.conflicts, zone=workspace.zone)
            return render(request, "objects/record_undo.html", context)
        try:
            write_plan(
                request,
                object_key=object_key,
                record_id=record_id,
                plan=plan,
                form=form,
                fields=fields,
                action=RecordChange.Action.UNDO,
            )
        except errors.ApiError as exc:
            context["remote_error"] = failed_write(request, form, exc)
            return render(request, "objects/record_undo.html", context)
        services.record_change_mark_undone(change=change)
        return client_redirect(request, reverse("objects:record", args=[object_key, record_id]) + "#history")
    return render(request, "objects/record_undo.html", context)
