"""The policy center (every agent's "always allowed" grants, and taking one
back through the builder) and "Reject and re-instruct" (agents/policy.py)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from agents import policy, selectors
from agents.forms import GrantRevokeForm, ReinstructForm
from agents.pages import DECIDE_PERMISSION, NOT_AN_APPROVER, READ_ONLY, decide_refusal
from agents.reading import read_approval
from dashboard.api import errors
from dashboard.frame.forms import FORM_ERRORS, failed_write
from dashboard.frame.permissions import requires_permission, requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.idempotency import renew_idempotency_key


def _policy_page(request: ConsoleRequest, *, status: int = 200, **extra) -> HttpResponse:
    agents = policy.policy_agents(client=request.workspace.client, workspace_id=request.workspace.id)
    context = {
        "agents": agents,
        "grant_count": sum(len(agent.grants) for agent in agents),
        "decide_refusal": decide_refusal(workspace=request.workspace, user=request.user),
        "workspace_zone": request.workspace.zone,
        "revoke_message": policy.revoke_message("<kind>"),
        "failed": {},
        **extra,
    }
    return render(request, "agents/policy.html", context, status=status)


@require_GET
def policy_center(request: ConsoleRequest) -> HttpResponse:
    return _policy_page(request)


@require_POST
@requires_write(READ_ONLY)
@requires_permission(DECIDE_PERMISSION, NOT_AN_APPROVER)
def grant_revoke(request: ConsoleRequest, agent_id: str) -> HttpResponseBase:
    """Take one grant back (PATCH with a message), then say from a re-read
    whether it is gone. A refusal or an unchecked box comes back in place
    on the grant's own form."""
    form = GrantRevokeForm(request.POST)
    if not form.is_valid():
        failed = {"key": f"{agent_id}:{request.POST.get('risk', '')}", "form": form}
        return _policy_page(request, status=400, failed=failed)
    risk = form.cleaned_data["risk"]
    try:
        outcome = policy.grant_revoke(
            client=request.workspace.client,
            agent_id=str(agent_id),
            risk=risk,
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except errors.ApiError as exc:
        error = failed_write(request, form, exc)
        return _policy_page(request, failed={"key": f"{agent_id}:{risk}", "form": form, "error": error})
    name = outcome.agent_name or "The agent"
    if outcome.gone:
        messages.success(
            request,
            f"{name} no longer lists {risk} actions as always allowed (read again after the change): "
            f"it asks a person first. An active agent may need activating again to publish the change.",
        )
    else:
        still = ", ".join(outcome.grants_now)
        messages.warning(
            request,
            f"The builder answered, but {name} still lists {risk} actions as always allowed "
            f"(read again after the change; now allowed: {still}). "
            f"The builder said: “{outcome.builder_says or 'nothing'}”.",
        )
    return redirect(reverse("agents:policy") + f"#agent-{agent_id}")


def _reinstruct_page(
    request: ConsoleRequest, approval_id: str, form: ReinstructForm, *, status: int = 200, error=None
) -> HttpResponse:
    found = selectors.approval_find(client=request.workspace.client, approval_id=approval_id)
    approval = read_approval(found) if found is not None else None
    if approval is not None and not form.is_bound:
        form.initial = {**form.initial, "run_id": approval["run_id"], "agent_id": approval["agent_id"]}
    context = {
        "approval": approval,
        "approval_id": approval_id,
        "form": form,
        "remote_error": error,
        "decide_refusal": decide_refusal(workspace=request.workspace, user=request.user),
        "workspace_zone": request.workspace.zone,
    }
    return render(request, "agents/reinstruct.html", context, status=status)


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY, methods=["POST"])
@requires_permission(DECIDE_PERMISSION, NOT_AN_APPROVER)
def approval_reinstruct(request: ConsoleRequest, approval_id: str) -> HttpResponseBase:
    """Reject the approval and send a corrected instruction into its run's
    thread, in one action (both writes audited, each with its own key)."""
    if request.method == "GET":
        return _reinstruct_page(request, str(approval_id), ReinstructForm())
    form = ReinstructForm(request.POST)
    if not form.is_valid():
        return _reinstruct_page(request, str(approval_id), form, status=400)
    data = form.cleaned_data
    try:
        _, operation = policy.reject_and_reinstruct(
            key=request.workspace.require_key(),
            approval_id=str(approval_id),
            run_id=str(data["run_id"] or ""),
            agent_id=str(data["agent_id"] or ""),
            message=data["message"],
            reject_key=data["key_reject"],
            message_key=data["key_message"],
        )
    except errors.ApiError as exc:
        if isinstance(exc, FORM_ERRORS):
            renew_idempotency_key(form, "key_message")
        error = failed_write(request, None, exc)
        return _reinstruct_page(request, str(approval_id), form, error=error)
    messages.success(
        request,
        gettext(
            "Rejected, and your corrected instruction was sent into the run's conversation (both in the audit trail)."
        ),
    )
    agent_id = str(data["agent_id"] or operation.context.get("agent_id") or "")
    thread_id = str(operation.context.get("thread_id") or "")
    if agent_id and thread_id:
        return redirect(reverse("agents:chat", args=[agent_id]) + f"?thread={thread_id}")
    return redirect(reverse("agents:approvals"))
