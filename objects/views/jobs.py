"""A bulk job's or an import's page: its progress (polled from the console's
database only), its failures, Cancel, Resume, Import after the dry run, Run
again, and the failures report as CSV."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from dashboard.accounts.middleware import background_request
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.csv import csv_lines, csv_response
from dashboard.web.htmx import client_redirect, poll_unchanged, stop_polling
from objects import imports, job_undo, jobs, trash
from objects.forms import RecordUndoForm
from objects.models import ImportProblem, JobItem, ObjectJob
from objects.records import READ_ONLY

SHOWN_FAILURES = 20


def _job(request: ConsoleRequest, pk: int) -> ObjectJob:
    job = ObjectJob.objects.filter(pk=pk, started_by_id=request.user.pk).first()
    if job is None:
        raise Http404("No such job.")
    return job


def job_context(job: ObjectJob) -> dict:
    failures: list[ImportProblem] | list[JobItem]
    if job.kind == ObjectJob.KIND_IMPORT:
        failures = list(job.problems.order_by("row_number")[:SHOWN_FAILURES])
    elif job.kind in {ObjectJob.KIND_RESTORE, ObjectJob.KIND_UNDO, ObjectJob.KIND_MERGE}:
        # Per record: what could not be restored (or was left as it is) and why.
        failures = list(trash.job_items_said(job)[:SHOWN_FAILURES])
    else:
        failures = list(job.items.filter(state=JobItem.FAILED).order_by("position")[:SHOWN_FAILURES])
    matching = imports.Matching.of(job.params) if job.kind == ObjectJob.KIND_IMPORT else imports.Matching()
    dry_run = imports.tally_of(job, "dry_run")
    ready_rows = 0
    if job.status == ObjectJob.CHECKED:
        # With matching, only the rows that write (skipped and unchanged ones send nothing).
        ready_rows = dry_run["created"] + dry_run["updated"] if matching.reads else max(0, job.total - job.failed)
    return {
        "job": job,
        "failures": failures,
        # A grid paste's cells changed by someone else between its dry run and its Confirm (objects/grid_paste.py).
        "skipped_cells": [c for c in job.params.get("skipped") or [] if isinstance(c, dict)]
        if job.kind == ObjectJob.KIND_EDIT
        else [],
        "version": f"{job.updated_at.timestamp():.6f}-{job.status}",
        "percent": int(100 * job.processed / job.total) if job.total else (100 if job.status == job.DONE else 0),
        "ready_rows": ready_rows,
        "matching": matching,
        "dry_run": dry_run,
        "tally": imports.tally_of(job, "tally"),
        **job_undo.undo_facts(job),
        "undo_form": RecordUndoForm(),
    }


@require_GET
def job_list(request: ConsoleRequest) -> HttpResponse:
    recent = ObjectJob.objects.filter(started_by_id=request.user.pk).order_by("-created_at")[:50]
    return render(request, "objects/jobs.html", {"jobs": recent})


@require_GET
def job_detail(request: ConsoleRequest, pk: int) -> HttpResponse:
    return render(request, "objects/job.html", job_context(_job(request, pk)))


@background_request
@never_cache
@require_GET
def job_status(request: ConsoleRequest, pk: int) -> HttpResponse:
    """The progress region, polled every second: 204 while the row is
    unchanged (one query), 286 with its last render once nothing moves."""
    unchanged = poll_unchanged(request, lambda: jobs.job_version(pk, request.user))
    if unchanged is not None:
        return unchanged
    job = _job(request, pk)
    response = render(request, "objects/job.html#job-status", job_context(job))
    return stop_polling(response, final=job.is_final)


@require_POST
def job_cancel(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Stop one of this person's own jobs. No write guard: stopping writes
    never needs the right to make them, and a person whose role was narrowed
    to reading while their import ran must still be able to stop it."""
    job = _job(request, pk)
    jobs.job_cancel(job=job)
    return client_redirect(request, reverse("objects:job", args=[job.pk]))


@require_POST
@requires_write(READ_ONLY)
def job_run(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Import after the dry run; Resume a stopped job where it stopped; Run an
    import again (the same keys: the service replays, nothing is written twice)."""
    job = _job(request, pk)
    if job.file_removed:
        # Nothing to read the rows from (the page offers no button then; a stale one lands here).
        messages.error(request, gettext("This import's file is no longer kept; upload it again to import it."))
        return client_redirect(request, reverse("objects:job", args=[job.pk]))
    if job.status == ObjectJob.CHECKED:
        jobs.job_run(job=job, status=ObjectJob.RUNNING, reset=imports.reset_for_writing)
    elif job.status == ObjectJob.STOPPED and job.resume_status:
        jobs.job_run(job=job, status=job.resume_status)
    elif job.status == ObjectJob.DONE and job.kind == ObjectJob.KIND_IMPORT:
        jobs.job_run(job=job, status=ObjectJob.RUNNING, reset=imports.reset_for_writing)
    return client_redirect(request, reverse("objects:job", args=[job.pk]))


@require_GET
def job_report(request: ConsoleRequest, pk: int) -> StreamingHttpResponse:
    """The failures as CSV: for an import, each refused row of the file with
    the reason (the service's 422 and its request id) placed on it."""
    job = _job(request, pk)
    filename = f"{job.object_key}-{job.kind}-{job.pk}-problems-{date.today().isoformat()}.csv"
    if job.kind == ObjectJob.KIND_IMPORT:
        header, rows = imports.error_report(job)
        return csv_response(filename, csv_lines(header, rows))

    def failed_items() -> Iterator[list[str]]:
        for item in job.items.filter(state=JobItem.FAILED).order_by("position").iterator(chunk_size=500):
            yield [item.record_id, item.title, item.message, item.request_id]

    return csv_response(filename, csv_lines(["Record id", "Record", "Problem", "Request id"], failed_items()))
