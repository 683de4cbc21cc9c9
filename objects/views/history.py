"""A record's history: undo the latest change made through the console, put
back any entry's earlier value, and the record then beside now."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from dashboard.api import errors
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect
from dashboard.web.reading import as_dict
from objects import revert, selectors, services, timeline
from objects.access_reads import HiddenRecord, person_access, record_read
from objects.edits import conflict_rows, encode_values
from objects.fields import cell, editable_fields, field_defs
from objects.forms import RecordPutBackForm, RecordThenForm, RecordUndoForm
from objects.history import UNDOABLE, history_rows, latest_value_change, undo_plan
from objects.models import RecordChange, TrashedRecord
from objects.records import NO_TITLE, READ_ONLY, object_definition, record_title
from objects.revert import AFTER, BEFORE, put_back_check, put_back_many_plan, put_back_plan


def _hidden(workspace, object_key: str) -> frozenset[str]:
    """The fields whose past values this person may not see (the object's access policy)."""
    return person_access(workspace=workspace, object_key=object_key).hidden


def _write_plan(request: ConsoleRequest, *, form, plan, fields: list, action: str, context: dict) -> bool:
    """PATCH a settled plan into the record's history; False when written,
    True when the service refused (its words placed in `context`)."""
    try:
        services.record_update_plan(
            client=request.workspace.client,
            object_key=context["object_key"],
            record_id=context["record_id"],
            plan=plan,
            idempotency_key=form.cleaned_data["idempotency_key"],
            user=request.user,
            workspace_id=request.workspace.id,
            fields=fields,
            action=action,
        )
    except errors.ApiError as exc:
        context["remote_error"] = failed_write(request, form, exc)
        return True
    return False


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
    record = record_read(workspace=workspace, object_key=object_key, record_id=record_id)
    current = as_dict(record.get("values"))
    form = RecordUndoForm(request.POST if request.method == "POST" else None)
    context: dict[str, Any] = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record_title": record_title(definition, record),
        "change": history_rows([change], fields=fields, zone=workspace.zone, hidden=_hidden(workspace, object_key))[0],
        # Only the latest change can be undone, once: an older one is shown, not offered.
        "stale": bool(change.undone_at) or latest is None or latest.pk != change.pk,
    }
    if request.method == "POST" and form.is_valid() and not context["stale"]:
        plan = undo_plan(change, fields=fields, current=current, choices=request.POST)
        if plan.conflicts:
            context["conflicts"] = conflict_rows(plan.conflicts, zone=workspace.zone)
            return render(request, "objects/record_undo.html", context)
        if _write_plan(request, form=form, plan=plan, fields=fields, action=RecordChange.Action.UNDO, context=context):
            return render(request, "objects/record_undo.html", context)
        services.record_change_mark_undone(change=change)
        return client_redirect(request, reverse("objects:record", args=[object_key, record_id]) + "#history")
    return render(request, "objects/record_undo.html", context)


def _change_or_404(request: ConsoleRequest, object_key: str, record_id: str, change_id: int) -> RecordChange:
    change = selectors.record_change_get(
        workspace_id=request.workspace.id, object_key=object_key, record_id=record_id, pk=change_id
    )
    if change is None:
        raise Http404("No such change.")
    return change


def _record_now(request: ConsoleRequest, object_key: str, record_id: str) -> tuple[dict, list, dict]:
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    record = record_read(workspace=workspace, object_key=object_key, record_id=record_id)
    return definition, field_defs(definition), record


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def record_put_back(
    request: ConsoleRequest, object_key: str, record_id: str, change_id: int, field_key: str
) -> HttpResponseBase:
    """One field of any history entry takes back the value it had before
    that entry, while it still holds what the entry left (objects/revert.py)."""
    workspace = request.workspace
    change = _change_or_404(request, object_key, record_id, change_id)
    definition, fields, record = _record_now(request, object_key, record_id)
    check = put_back_check(change, field_key=field_key, fields=fields, current=as_dict(record.get("values")))
    if check is None:
        raise Http404("This change has no value of that field to put back.")
    form = RecordPutBackForm(request.POST if request.method == "POST" else None)
    context: dict[str, Any] = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record_title": record_title(definition, record),
        "change": history_rows([change], fields=fields, zone=workspace.zone, hidden=_hidden(workspace, object_key))[0],
        "check": check,
        "value": cell(check.field, check.value, zone=workspace.zone),
        "now": cell(check.field, check.now, zone=workspace.zone),
    }
    if request.method == "POST" and form.is_valid() and not check.refusal and not check.already:
        # The record was re-read for this request: a move since the page was
        # shown is already the check's refusal, so the plan has no conflict.
        plan = put_back_plan(check, current=as_dict(record.get("values")))
        if _write_plan(
            request, form=form, plan=plan, fields=fields, action=RecordChange.Action.PUT_BACK, context=context
        ):
            return render(request, "objects/record_put_back.html", context)
        messages.success(request, f"{check.field.label} is back to its value before that change.")
        return client_redirect(request, reverse("objects:record", args=[object_key, record_id]) + "#history")
    return render(request, "objects/record_put_back.html", context)


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY, methods=["POST"])
def record_then(request: ConsoleRequest, object_key: str, record_id: str, change_id: int) -> HttpResponseBase:
    """The record just before or after a history entry beside now; the
    ticked fields take their values then (the safe-edit rule against now as
    the page showed it)."""
    workspace = request.workspace
    change = _change_or_404(request, object_key, record_id, change_id)
    when = BEFORE if (request.POST or request.GET).get("when") == BEFORE else AFTER
    definition, fields, record = _record_now(request, object_key, record_id)
    current = as_dict(record.get("values"))
    writable = editable_fields(fields)
    newer, partial = selectors.record_changes_after(change=change)
    then = revert.record_then(newer, change=change, when=when, fields=writable, current=current, partial=partial)
    differing_keys = [f.field.key for f in then.differing]
    form = RecordThenForm(
        request.POST if request.method == "POST" else None,
        field_keys=differing_keys,
        initial={"shown_values": encode_values(current, writable)},
    )
    context: dict[str, Any] = {
        "form": form,
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record_title": record_title(definition, record),
        "change": history_rows([change], fields=fields, zone=workspace.zone, hidden=_hidden(workspace, object_key))[0],
        "when": when,
        "then": then,
        "rows": [
            {
                "row": row,
                "then": cell(row.field, row.then, zone=workspace.zone),
                "now": cell(row.field, row.now, zone=workspace.zone),
                "ticked": row.field.key in (request.POST.getlist("put_back") if request.method == "POST" else []),
            }
            for row in then.fields
        ],
        "newer_count": len(newer),
    }
    if request.method == "POST" and form.is_valid():
        plan = put_back_many_plan(
            then=then,
            chosen=form.cleaned_data["put_back"],
            shown=form.shown(),
            current=current,
            choices=request.POST,
        )
        if plan.conflicts:
            context["conflicts"] = conflict_rows(plan.conflicts, zone=workspace.zone)
            return render(request, "objects/record_then.html", context)
        if _write_plan(
            request, form=form, plan=plan, fields=fields, action=RecordChange.Action.PUT_BACK, context=context
        ):
            return render(request, "objects/record_then.html", context)
        count = len(plan.changes)
        messages.success(
            request,
            f"Put back {count} value{'' if count == 1 else 's'} as they were then."
            if count
            else "Nothing to put back: those fields already hold their values then.",
        )
        return client_redirect(request, reverse("objects:record", args=[object_key, record_id]) + "#history")
    return render(request, "objects/record_then.html", context)


@require_GET
def record_timeline(request: ConsoleRequest, object_key: str, record_id: str) -> HttpResponseBase:
    """One timeline of the record (objects/timeline.py), also of one sent to
    the trash (its page is gone, its past is not)."""
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    gone = False
    try:
        record = record_read(workspace=workspace, object_key=object_key, record_id=record_id)
        title = record_title(definition, record)
    except errors.NotFoundError as exc:
        trashed = TrashedRecord.objects.filter(
            workspace_id=workspace.id, object_key=object_key, record_id=record_id
        ).first()
        if trashed is None or isinstance(exc, HiddenRecord):
            raise
        title, gone = trashed.title or NO_TITLE, True
    kind = request.GET.get("kind", "")
    kind = kind if kind in timeline.LABELS else ""
    shown = timeline.record_timeline(
        user=request.user,
        workspace_id=workspace.id,
        object_key=object_key,
        record_id=record_id,
        fields=field_defs(definition),
        zone=workspace.zone,
        kind=kind,
        hidden=_hidden(workspace, object_key),
    )
    return render(
        request,
        "objects/record_timeline.html",
        {
            "object_key": object_key,
            "record_id": record_id,
            "definition": definition,
            "record_title": title,
            "gone": gone,
            "timeline": shown,
            "kind": kind,
            "kinds": [(value, label, shown.counts.get(value, 0)) for value, label in timeline.KINDS],
            "shown": timeline.SHOWN,
        },
    )
