"""Bulk decisions: start one from the queue's selection, and its progress
(polled from the batch's row only: 204 unchanged, 286 once over). The work
is the task's (agents/bulk_decisions.py)."""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from agents import bulk_decisions, queue
from agents.forms import ApprovalBatchForm
from agents.models import ApprovalBatch
from agents.pages import APPROVALS_DECIDED, DECIDE_PERMISSION, NOT_AN_APPROVER, READ_ONLY
from dashboard.accounts.middleware import background_request
from dashboard.api import errors
from dashboard.frame.permissions import requires_permission, requires_write
from dashboard.frame.remote_errors import render_remote_error
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import is_partial, next_url, poll_unchanged, render_region, stop_polling, trigger_client_event

PROGRESS_POLL_SECONDS = 1


def _batch_uid(key: str) -> uuid.UUID:
    try:
        return uuid.UUID(key)
    except ValueError:
        return uuid.uuid5(uuid.NAMESPACE_URL, f"console:approval-batch:{key}")


@require_POST
@requires_write(READ_ONLY)
@requires_permission(DECIDE_PERMISSION, NOT_AN_APPROVER)
def approval_batch_start(request: ConsoleRequest) -> HttpResponseBase:
    """Approve or reject the selected approvals as one job, or every pending
    approval matching the queue's filter ("All N matching this filter", read
    again here from the approvals the console keeps). Refused in place,
    nothing started, when the selection is empty, over the limit, or holds
    a destructive or spend action (the service's risk, read here)."""
    form = ApprovalBatchForm(request.POST)
    back = next_url(request, reverse("agents:approvals"))
    if not form.is_valid():
        return _refused(request, "This selection could not be read; reload the page and select again.", back)
    data = form.cleaned_data
    picked = data["approvals"]
    if data["matching"]:
        # Every approval matching the filter now, as the console keeps them: never the page's list.
        matching = queue.matching_pending(
            workspace_id=request.workspace.id, agent=data["agent"], risk=data["risk"], age=data["age"]
        )
        picked = [approval["id"] for approval in matching]
    try:
        batch = bulk_decisions.batch_start(
            client=request.workspace.client,
            key=request.workspace.require_key(),
            user=request.user,
            uid=_batch_uid(data["idempotency_key"]),
            decision=data["decision"],
            approval_ids=picked,
            agent_names=queue.stored_agent_names(workspace_id=request.workspace.id),
            matching=data["matching"],
        )
    except bulk_decisions.BatchRefused as exc:
        return _refused(request, str(exc), back)
    except errors.ApiError as exc:
        if not is_partial(request):
            raise
        return render_remote_error(request, exc, target="#approval-batch")
    if not is_partial(request):
        return redirect(reverse("agents:approval_batch", args=[batch.pk]))
    return _render(request, batch)


def _refused(request: ConsoleRequest, problem: str, back: str) -> HttpResponseBase:
    if is_partial(request):
        return render(request, "agents/approval_batch.html#batch_problem", {"problem": problem})
    messages.error(request, problem)
    return redirect(back)


def _batch_of(request: ConsoleRequest, pk: int) -> ApprovalBatch:
    # Only its starter follows a batch (their key, their decisions).
    batch = ApprovalBatch.objects.filter(
        pk=pk, started_by_id=request.user.pk, workspace_id=request.workspace.id
    ).first()
    if batch is None:
        raise Http404("No such bulk decision.")
    return batch


def _render(request: ConsoleRequest, batch: ApprovalBatch) -> HttpResponse:
    context = {**bulk_decisions.batch_progress(batch), "poll_seconds": PROGRESS_POLL_SECONDS}
    return render_region(request, "agents/approval_batch.html", "batch_progress", context)


@require_GET
def approval_batch(request: ConsoleRequest, pk: int) -> HttpResponse:
    """A bulk decision's progress and per-item outcome (its own page, or the queue's region)."""
    return _render(request, _batch_of(request, pk))


@background_request
@never_cache
@require_GET
def approval_batch_status(request: ConsoleRequest, pk: int) -> HttpResponse:
    """The progress poll: the row only. 204 while unchanged, 286 with the last render once over."""
    batch = _batch_of(request, pk)
    unchanged = poll_unchanged(request, lambda: bulk_decisions.batch_version(batch))
    if unchanged is not None:
        return unchanged
    context = {**bulk_decisions.batch_progress(batch), "poll_seconds": PROGRESS_POLL_SECONDS}
    # Decided here or before: a counted vote, a refusal or a failure leaves the approval pending.
    settled = [item.approval_id for item in context["items"] if item.outcome in bulk_decisions.SETTLED]
    if batch.is_final and urlsplit(request.headers.get("HX-Current-URL", "")).path == reverse("agents:approvals"):
        # On the queue, the approvals this batch settled leave the pending list, and its counts follow.
        context["settled"], context["on_queue"] = settled, True
        context["counts"] = queue.risk_counts(
            [approval for _, approval in queue.pending_stored(workspace_id=batch.workspace_id)]
        )
    response = render(request, "agents/approval_batch.html#batch_progress", context)
    if batch.is_final:
        # The header's count follows at once; the queue's pane reads again an approval this batch decided.
        trigger_client_event(response, "inbox-changed")
        trigger_client_event(response, APPROVALS_DECIDED, {"ids": settled})
    return stop_polling(response, final=batch.is_final)
