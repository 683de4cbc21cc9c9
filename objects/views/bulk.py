"""Bulk edit and bulk delete (objects/bulk.py): choose the change, see the
dry run, start the job. Read-only members never get here (the buttons are
hidden and the view says why)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.http import HttpResponseBase, QueryDict
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect, render_region
from objects import bulk
from objects.access_reads import person_access, policy_fields
from objects.cell_markup import cell_text
from objects.computed_order import names_computed
from objects.fields import cell, field_defs
from objects.linked_fields import targets_in_query
from objects.models import ObjectJob
from objects.records import READ_ONLY, object_definition

LINKED_REFUSED = (
    "A bulk action over every record matching the filter cannot follow a condition on a linked record's field:"
    " nothing was changed. Select the rows on the table's pages instead, or remove that condition."
)
COMPUTED_REFUSED = (
    "A bulk action over every record matching the filter cannot follow a condition on a computed column:"
    " nothing was changed. Select the rows on the table's pages instead, or remove that condition."
)


def dry_run_token(*, kind: str, changes: dict | None, selection: bulk.Selection) -> str:
    """What a dry run was shown for: Start writes only that (a value changed
    after the dry run shows a new dry run first)."""
    shown = json.dumps([kind, changes, selection.hidden_pairs()], sort_keys=True, default=str)
    return hashlib.sha256(shown.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _title(*, kind: str, form: bulk.BulkForm, definition: dict, selection: bulk.Selection, zone) -> str:
    plural = str(definition.get("plural_name") or "records").lower()
    what = f"{len(selection.ids)} selected {plural}"
    if selection.scope == bulk.SCOPE_FILTER:
        what = f"all {plural} matching the filter"
    if kind == ObjectJob.KIND_DELETE:
        return f"Delete {what}"
    assert form.chosen is not None
    value = form.changes()[form.chosen.key]
    shown = cell_text(cell(form.chosen, value, zone=zone)) if value not in (None, "", []) else ""
    if not shown:
        return f"Clear {form.chosen.label} on {what}"
    return f"Set {form.chosen.label} to {shown} on {what}"


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY)
def bulk_action(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    workspace = request.workspace
    data = request.POST if request.method == "POST" else request.GET
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    selection = bulk.Selection.from_data(data)
    kind = bulk.ACTIONS.get(data.get("action", ""), ObjectJob.KIND_EDIT)
    bound = request.method == "POST"
    person = person_access(workspace=workspace, object_key=object_key)
    form = bulk.BulkForm(
        data if bound else None,
        # A field read-only for this person (the object's access policy) is not offered.
        fields=[f for f in fields if person.may_write(f.key)],
        zone=workspace.zone,
        initial={"field": data.get("field", "")},
    )
    if kind == ObjectJob.KIND_DELETE:
        form.fields["field"].required = False
    context: dict[str, Any] = {
        "definition": definition,
        "object_key": object_key,
        "selection": selection,
        "kind": kind,
        "form": form,
        "records_url": reverse("objects:records", args=[object_key])
        + (f"?{selection.query}" if selection.query else ""),
    }
    if selection.scope == bulk.SCOPE_FILTER and targets_in_query(QueryDict(selection.query)):
        # The job re-reads the filter page by page without the linked reads: it would reach records the
        # table does not keep. Refused before anything is read or written.
        context["linked_refused"] = LINKED_REFUSED
        return render_region(request, "objects/bulk.html", "bulk-form", context)
    if selection.scope == bulk.SCOPE_FILTER and names_computed(QueryDict(selection.query)):
        # Its values are the console's, computed on the pages a table reads: the job's reads have none.
        context["linked_refused"] = COMPUTED_REFUSED
        return render_region(request, "objects/bulk.html", "bulk-form", context)
    if selection.is_empty or not bound or not form.is_valid():
        return render_region(request, "objects/bulk.html", "bulk-form", context)
    changes = form.changes() if kind == ObjectJob.KIND_EDIT else None
    token = dry_run_token(kind=kind, changes=changes, selection=selection)
    title = _title(kind=kind, form=form, definition=definition, selection=selection, zone=workspace.zone)
    if data.get("step") == "start" and data.get("checked") == token:
        job = bulk.bulk_job_start(
            user=request.user,
            workspace=workspace,
            object_key=object_key,
            definition=definition,
            fields=fields,
            selection=selection,
            kind=kind,
            changes=changes,
            title=title,
            uid=form.cleaned_data["idempotency_key"],
        )
        return client_redirect(request, reverse("objects:job", args=[job.pk]))
    context["dry_run"] = bulk.dry_run(
        client=workspace.client,
        object_key=object_key,
        definition=definition,
        fields=fields,
        selection=selection,
        kind=kind,
        changes=changes,
        zone=workspace.zone,
        access=person,
        every_field=policy_fields(workspace=workspace, object_key=object_key),
    )
    context["checked"] = token
    context["title"] = title
    return render_region(request, "objects/bulk.html", "bulk-form", context)
