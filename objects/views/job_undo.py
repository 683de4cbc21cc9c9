"""Undo of a whole finished bulk edit or import (objects/job_undo.py), from its job page."""

from __future__ import annotations

from django.http import Http404, HttpResponseBase
from django.urls import reverse
from django.views.decorators.http import require_POST

from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect
from objects import job_undo
from objects.forms import RecordUndoForm
from objects.models import ObjectJob
from objects.records import READ_ONLY


@require_POST
@requires_write(READ_ONLY)
def job_undo_start(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Undo one of this person's own finished jobs, as a job whose page follows it."""
    job = ObjectJob.objects.filter(pk=pk, started_by_id=request.user.pk).first()
    if job is None:
        raise Http404("No such job.")
    form = RecordUndoForm(request.POST)
    if not job_undo.can_undo(job) or not form.is_valid():
        # Already undone (a second click), or not undoable: the job that says so.
        existing = job_undo.undo_of(job)
        return client_redirect(request, reverse("objects:job", args=[(existing or job).pk]))
    undo = job_undo.job_undo_start(
        user=request.user, workspace=request.workspace, job=job, uid=form.cleaned_data["idempotency_key"]
    )
    return client_redirect(request, reverse("objects:job", args=[undo.pk]))
