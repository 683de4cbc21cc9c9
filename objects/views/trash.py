"""An object's trash: the records deleted through the console (objects/trash.py),
restored as a job or purged for good."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect, is_partial, render_region
from objects import trash
from objects.access_reads import person_access, records_seen
from objects.forms import RecordDeleteForm
from objects.models import TrashedRecord
from objects.records import READ_ONLY, object_definition

SHOWN = 200  # rows the page lists; "everything in the trash" selects the rest too
MAX_SELECTED = 10_000  # rows one form restores or purges


def _seen(request: ConsoleRequest, object_key: str, rows) -> list | None:
    """Of these trashed records, those the object's access policy lets this
    person see (and so list, restore or purge); None when it lets them see all."""
    workspace = request.workspace
    if not person_access(workspace=workspace, object_key=object_key).restricted:
        return None
    rows = list(rows)
    kept = records_seen(
        workspace=workspace, object_key=object_key, records=[{"id": r.pk, "values": r.values} for r in rows]
    )
    seen = {r["id"] for r in kept}
    return [r for r in rows if r.pk in seen]


def _selected_pks(request: ConsoleRequest, object_key: str) -> list[int]:
    rows = trash.trash_list(workspace_id=request.workspace.id, object_key=object_key)
    seen = _seen(request, object_key, rows)
    if request.POST.get("scope") == "all":
        if seen is not None:
            return [r.pk for r in seen][:MAX_SELECTED]
        return list(rows.values_list("pk", flat=True)[:MAX_SELECTED])
    wanted = [int(v) for v in request.POST.getlist("ids") if v.isdigit()][:MAX_SELECTED]
    return wanted if seen is None else [pk for pk in wanted if pk in {r.pk for r in seen}]


def _trash_context(request: ConsoleRequest, object_key: str, **extra: Any) -> dict[str, Any]:
    workspace = request.workspace
    rows = trash.trash_list(workspace_id=workspace.id, object_key=object_key)
    seen = _seen(request, object_key, rows)
    return {
        "definition": object_definition(workspace=workspace, object_key=object_key),
        "object_key": object_key,
        # Only what this workspace's key may see (request.workspace is the key's).
        "rows": list(rows[:SHOWN]) if seen is None else seen[:SHOWN],
        "count": rows.count() if seen is None else len(seen),
        "days": int(settings.OBJECTS_TRASH_DAYS),
        "form": RecordDeleteForm(),
        **extra,
    }


@require_GET
def trash_page(request: ConsoleRequest, object_key: str) -> HttpResponse:
    return render_region(request, "objects/trash.html", "trash-list", _trash_context(request, object_key))


@require_POST
@requires_write(READ_ONLY)
def trash_restore(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    """Restore the selected records: a job, whose page follows it."""
    workspace = request.workspace
    form = RecordDeleteForm(request.POST)
    pks = _selected_pks(request, object_key)
    rows = list(trash.trash_list(workspace_id=workspace.id, object_key=object_key).filter(pk__in=pks))
    if not form.is_valid() or not rows:
        said = "Choose the records to restore first." if form.is_valid() else "The form expired: try again."
        context = _trash_context(request, object_key, said=said, said_error=True)
        return render_region(request, "objects/trash.html", "trash-list", context, status=422 if not rows else 200)
    job = trash.restore_start(
        user=request.user,
        workspace=workspace,
        object_key=object_key,
        definition=object_definition(workspace=workspace, object_key=object_key),
        rows=rows,
        uid=form.cleaned_data["idempotency_key"],
    )
    return client_redirect(request, reverse("objects:job", args=[job.pk]))


@require_POST
@requires_write(READ_ONLY)
def trash_purge(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    """Remove the selected records from the trash for good."""
    pks = _selected_pks(request, object_key)
    if not pks:
        context = _trash_context(request, object_key, said="Choose the records to remove first.", said_error=True)
        return render_region(request, "objects/trash.html", "trash-list", context, status=422)
    removed = trash.trash_purge(workspace_id=request.workspace.id, object_key=object_key, pks=pks)
    said = f"{removed} record{'' if removed == 1 else 's'} removed from the trash for good."
    if not is_partial(request):
        return client_redirect(request, reverse("objects:trash", args=[object_key]))
    return render(request, "objects/trash.html#trash-list", _trash_context(request, object_key, said=said))


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def trash_restore_one(request: ConsoleRequest, object_key: str, pk: int) -> HttpResponseBase:
    """The "Undo" of a delete: what comes back, then a one-record restore job."""
    workspace = request.workspace
    row = trash.trash_list(workspace_id=workspace.id, object_key=object_key).filter(pk=pk).first()
    if row is not None and _seen(request, object_key, [row]) == []:
        row = None  # hidden from this person by the object's access policy
    if row is None:
        gone = TrashedRecord.objects.filter(pk=pk, workspace_id=workspace.id, object_key=object_key).first()
        if gone is not None and gone.restored_id:  # restored already (a second Undo): the record
            return redirect("objects:record", object_key, gone.restored_id)
        raise Http404("This record is no longer in the trash.")
    form = RecordDeleteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        job = trash.restore_start(
            user=request.user,
            workspace=workspace,
            object_key=object_key,
            definition=object_definition(workspace=workspace, object_key=object_key),
            rows=[row],
            uid=form.cleaned_data["idempotency_key"],
        )
        return client_redirect(request, reverse("objects:job", args=[job.pk]))
    context = {
        "definition": object_definition(workspace=workspace, object_key=object_key),
        "object_key": object_key,
        "row": row,
        "form": form,
    }
    return render(request, "objects/trash_restore.html", context)
