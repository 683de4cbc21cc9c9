"""Reruns beyond "run it again": a run's input edited, reviewed in words and
sent as a new run; and the failed runs of a filter rerun as one job (its
progress polled from the job's row only: 204 unchanged, 286 once over).
The work is agents/rerun_input.py (what changed) and agents/bulk_reruns.py
(the job)."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from agents import bulk_reruns, selectors, services
from agents.forms import RerunBatchForm, RerunEditForm, uuid_or_empty
from agents.models import RerunBatch
from agents.pages import READ_ONLY
from agents.reading import read_agent_summary
from agents.rerun_input import input_changes, payload_text
from agents.run_reading import read_run
from dashboard.accounts.middleware import background_request
from dashboard.api import errors
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.jobs import engine
from dashboard.web.htmx import client_redirect, is_partial, poll_unchanged, render_region, stop_polling
from dashboard.web.pager import choice

PROGRESS_POLL_SECONDS = 2


# --- rerun with changes -------------------------------------------------------------------


def _rerunnable(request: ConsoleRequest, run_id: str) -> dict[str, Any]:
    """The run as the service says now; 404 when nothing woke it that can be sent again."""
    run = read_run(selectors.run_get(client=request.workspace.client, run_id=run_id))
    run["id"] = run["id"] or run_id
    if not run["agent_id"] or not (run["event_message"] or run["event_payload"] is not None):
        raise Http404("This run has no message or event to send again.")
    return run


def _edit_page(request: ConsoleRequest, run: dict[str, Any], form: RerunEditForm, **extra: Any) -> HttpResponse:
    context = {"run": run, "form": form, "workspace_zone": request.workspace.zone, **extra}
    return render_region(request, "agents/run_rerun_edit.html", "rerun_edit", context)


@require_GET
def run_rerun_edit(request: ConsoleRequest, run_id: str) -> HttpResponse:
    """The run's message and event, prefilled to edit before sending again."""
    run = _rerunnable(request, str(run_id))
    form = RerunEditForm(initial={"message": run["event_message"], "payload": payload_text(run["event_payload"])})
    return _edit_page(request, run, form)


@require_POST
@requires_write(READ_ONLY)
def run_rerun_edited(request: ConsoleRequest, run_id: str) -> HttpResponseBase:
    """First the review (what changed, in words, nothing sent), then, from
    the review's own button, the send. The run is read again each time:
    the changes are shown against what the service says woke it."""
    run = _rerunnable(request, str(run_id))
    form = RerunEditForm(request.POST)
    if not form.is_valid():
        return _edit_page(request, run, form)
    data = form.cleaned_data
    message, payload = (data.get("message") or "").strip(), data.get("payload")
    changes = input_changes(
        message_before=run["event_message"],
        payload_before=run["event_payload"],
        message_after=message,
        payload_after=payload,
    )
    if data.get("reviewed") != changes.digest:
        # A first submit, or an input changed after its review: show what goes, send nothing.
        return _edit_page(request, run, form, changes=changes, reviewing=True, changed_since=bool(data.get("reviewed")))
    try:
        op = services.invocation_start(
            key=request.workspace.require_key(),
            agent_id=run["agent_id"],
            message=message,
            payload=payload,
            thread_id=None,
            idempotency_key=data["idempotency_key"],
        )
    except errors.ApiError as exc:
        remote_error = failed_write(request, form, exc)
        return _edit_page(request, run, form, changes=changes, reviewing=True, remote_error=remote_error)
    messages.success(request, gettext("Sent with your changes as a new run."))
    return client_redirect(request, reverse("agents:chat", args=[run["agent_id"]]) + f"?sent={op.pk}")


# --- the failed runs of a filter, rerun as one job ----------------------------------------


def _failed_of(request: ConsoleRequest, query) -> bulk_reruns.FailedRuns:
    client = request.workspace.client
    agents = [
        read_agent_summary(item)
        for item in selectors.agent_list(client=client, status=None, cursor=None, limit=100).items
    ]
    return bulk_reruns.failed_runs_read(
        client=client,
        agents=agents,
        agent_id=uuid_or_empty(query.get("agent")),
        window=choice(query.get("since"), bulk_reruns.WINDOW_CHOICES, bulk_reruns.DEFAULT_WINDOW),
    )


@require_GET
def runs_rerun_failed(request: ConsoleRequest) -> HttpResponse:
    """The confirmation: every run that failed in the window (one agent's or
    every agent's), as the service lists them now, and what rerunning them does."""
    failed = _failed_of(request, request.GET)
    agent_id = uuid_or_empty(request.GET.get("agent"))
    since = choice(request.GET.get("since"), bulk_reruns.WINDOW_CHOICES, bulk_reruns.DEFAULT_WINDOW)
    context = {
        "failed": failed,
        "agent_id": agent_id,
        "since": since,
        "windows": bulk_reruns.WINDOW_CHOICES,
        "form": RerunBatchForm(initial={"agent": agent_id, "since": since}),
        "max_reruns": bulk_reruns.MAX_RERUNS,
        "workspace_zone": request.workspace.zone,
    }
    return render(request, "agents/rerun_failed.html", context)


def _batch_uid(key: str) -> uuid.UUID:
    try:
        return uuid.UUID(key)
    except ValueError:
        return uuid.uuid5(uuid.NAMESPACE_URL, f"console:rerun-batch:{key}")


@require_POST
@requires_write(READ_ONLY)
def runs_rerun_failed_start(request: ConsoleRequest) -> HttpResponseBase:
    """Start the job with the runs the confirmation showed that the service
    still lists as failed in that window (read again here)."""
    form = RerunBatchForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("This selection could not be read; reload the page and confirm again."))
        return redirect(reverse("agents:runs_rerun_failed"))
    failed = _failed_of(request, form.cleaned_data)
    try:
        batch = bulk_reruns.batch_start(
            key=request.workspace.require_key(),
            user=request.user,
            uid=_batch_uid(form.cleaned_data["idempotency_key"]),
            failed=failed,
            picked=form.cleaned_data["runs"],
        )
    except bulk_reruns.RerunRefused as exc:
        messages.error(request, str(exc))
        kept = {name: form.cleaned_data[name] for name in ("agent", "since") if form.cleaned_data.get(name)}
        return redirect(reverse("agents:runs_rerun_failed") + ("?" + urlencode(kept) if kept else ""))
    return redirect(reverse("agents:rerun_batch", args=[batch.pk]))


def _batch_of(request: ConsoleRequest, pk: int) -> RerunBatch:
    # Only its starter follows a bulk rerun (their key, their new runs).
    batch = RerunBatch.objects.filter(pk=pk, started_by_id=request.user.pk, workspace_id=request.workspace.id).first()
    if batch is None:
        raise Http404("No such bulk rerun.")
    return batch


def _progress(request: ConsoleRequest, batch: RerunBatch) -> dict[str, Any]:
    return {
        **bulk_reruns.batch_progress(batch),
        "poll_seconds": PROGRESS_POLL_SECONDS,
        "workspace_zone": request.workspace.zone,
    }


@require_GET
def rerun_batch(request: ConsoleRequest, pk: int) -> HttpResponse:
    """A bulk rerun's progress and each run's outcome (the new run, and how it ended)."""
    batch = _batch_of(request, pk)
    return render(request, "agents/rerun_batch.html", _progress(request, batch))


@background_request
@never_cache
@require_GET
def rerun_batch_status(request: ConsoleRequest, pk: int) -> HttpResponse:
    """The progress poll: the job's rows only. 204 while unchanged, 286 with
    the last render once the job is over and every new run has ended."""
    batch = _batch_of(request, pk)
    unchanged = poll_unchanged(request, lambda: bulk_reruns.batch_version(batch))
    if unchanged is not None:
        return unchanged
    context = _progress(request, batch)
    response = render(request, "agents/rerun_batch.html#rerun_progress", context)
    over = batch.is_final and context["new_runs_ended"] >= context["sent"]
    return stop_polling(response, final=over)


@require_POST
@requires_write(READ_ONLY)
def rerun_batch_cancel(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Stop sending: the runs sent before stay sent (their new runs go on)."""
    batch = _batch_of(request, pk)
    if engine.job_cancel(bulk_reruns.KIND, batch.pk):
        messages.info(request, gettext("Cancelling: no more runs are sent again; those sent stay sent."))
    batch.refresh_from_db()
    if is_partial(request):
        return render(request, "agents/rerun_batch.html#rerun_progress", _progress(request, batch))
    return redirect(reverse("agents:rerun_batch", args=[batch.pk]))
