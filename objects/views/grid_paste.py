"""A block pasted into the records grid, or a range filled down
(objects/grid_paste.py, static/js/objects_grid_range.js): the dry run of
what would change and what is refused, then, confirmed, one bulk edit job
with one Undo. Read-only members never get here (the grid offers no paste
to them, and the view says why)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django import forms
from django.http import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.idempotency import IdempotencyKeyField
from dashboard.web.htmx import client_redirect
from objects import grid_paste
from objects.fields import field_defs
from objects.records import READ_ONLY, object_definition


class PasteForm(forms.Form):
    idempotency_key = IdempotencyKeyField()


def dry_run_token(region: grid_paste.Region) -> str:
    """What the dry run was shown for: Confirm writes only that."""
    shown = json.dumps(region.hidden_pairs(), sort_keys=True)
    return hashlib.sha256(shown.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@require_POST
@requires_write(READ_ONLY)
def grid_paste_view(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    workspace = request.workspace
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    region = grid_paste.Region.from_data(request.POST)
    form = PasteForm(request.POST)
    form.is_valid()  # a missing or malformed key gets a fresh one: the form re-rendered carries it
    token = dry_run_token(region)
    # What the dry run showed, at its Confirm: a cell changed since is not written (the safe-edit rule).
    plan = grid_paste.paste_plan(
        workspace=workspace,
        object_key=object_key,
        definition=definition,
        fields=fields,
        region=region,
        shown=grid_paste.shown_from_data(request.POST),
    )
    title = grid_paste.paste_title(region, definition)
    if request.POST.get("step") == "start" and request.POST.get("checked") == token and plan.rows and form.is_valid():
        job = grid_paste.grid_paste_job_start(
            user=request.user,
            workspace=workspace,
            object_key=object_key,
            definition=definition,
            region=region,
            plan=plan,
            title=title,
            uid=form.cleaned_data["idempotency_key"],
        )
        return client_redirect(request, reverse("objects:job", args=[job.pk]))
    query = region.selection.query
    context: dict[str, Any] = {
        "definition": definition,
        "object_key": object_key,
        "region": region,
        "plan": plan,
        "title": title,
        "checked": token,
        "shown_field": grid_paste.SHOWN_FIELD,
        "form": form if form.is_valid() else PasteForm(),
        "records_url": reverse("objects:records", args=[object_key]) + (f"?{query}" if query else ""),
    }
    return render(request, "objects/grid_paste.html", context)
