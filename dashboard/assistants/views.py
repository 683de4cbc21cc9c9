"""The MCP endpoint (/api/mcp: the token middleware has authenticated it; the
SDK answers, dashboard/assistants/server.py) and the Assistant requests page:
an assistant's writes that wait for an Approver, with the token's name and the
exact arguments, approved or rejected here."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.assistants import selectors, services
from dashboard.assistants.forms import DecisionForm
from dashboard.assistants.server import mcp_exchange
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import DECIDE_APPROVALS

WHO_DECIDES = "Approvers, Managers and Administrators decide what assistants asked to do."


# A token request: no session and no CSRF cookie (the token middleware says so); the SDK checks the rest.
@csrf_exempt
@require_http_methods(["GET", "POST", "DELETE"])
def mcp(request: HttpRequest) -> HttpResponse:
    return mcp_exchange(request)


@require_GET
@requires_permission(DECIDE_APPROVALS, WHO_DECIDES)
def requests_page(request: ConsoleRequest) -> HttpResponse:
    workspace_id = request.workspace.id
    waiting, waiting_count = selectors.requests_waiting_shown(workspace_id=workspace_id)
    context = {
        "waiting": waiting,
        "waiting_count": waiting_count,
        "decided": selectors.requests_decided(workspace_id=workspace_id),
        "form": DecisionForm(),
    }
    return render(request, "assistants/requests.html", context)


@require_POST
@requires_permission(DECIDE_APPROVALS, WHO_DECIDES)
def request_decide(request: ConsoleRequest, request_id: int) -> HttpResponseBase:
    row = selectors.request_in_workspace(workspace_id=request.workspace.id, pk=request_id)
    if row is None:
        raise Http404("No such assistant request in this workspace.")
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
        return redirect("assistants:requests")
    approve = form.cleaned_data["decision"] == "approve"
    try:
        services.assistant_request_decide(row=row, user=request.user, approve=approve, note=form.cleaned_data["note"])
    except services.DecisionRefused as refused:
        messages.error(request, str(refused))
        return redirect("assistants:requests")
    if approve:
        messages.success(request, f"Approved: {row.summary}. It is carried out now, once.")
    else:
        messages.success(request, f"Rejected: {row.summary}. Nothing was sent to the service.")
    return redirect("assistants:requests")
