"""The MCP endpoint (/api/mcp: the token middleware has authenticated it; the
SDK answers, dashboard/assistants/server.py) and the Assistant requests page:
an assistant's writes that wait for an Approver, with the token's name and the
exact arguments, approved or rejected here."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.accounts import step_up
from dashboard.assistants import selectors, services
from dashboard.assistants.forms import DecisionForm
from dashboard.assistants.registry import tool_named
from dashboard.assistants.server import mcp_exchange
from dashboard.assistants.tools import tool_risk
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import DECIDE_APPROVALS

WHO_DECIDES = "Approvers, Managers and Administrators decide what assistants asked to do."


# A token request: no session and no CSRF cookie (the token middleware says so); the SDK checks the rest.
@csrf_exempt
@require_http_methods(["GET", "POST", "DELETE"])
def mcp(request: HttpRequest) -> HttpResponse:
    return mcp_exchange(request)


def _page(request: ConsoleRequest, *, refused: int | None = None, words: str = "", note: str = "") -> HttpResponse:
    """The page; a refused decision (`refused`, a row's id) is said on its
    row, with the note as typed."""
    workspace_id = request.workspace.id
    waiting, waiting_count = selectors.requests_waiting_shown(workspace_id=workspace_id)
    for row in waiting:
        # What approving it asks of this Approver first: a fresh code, or a second factor to set up.
        row.risk = tool_risk(tool_named(row.tool))  # type: ignore[attr-defined]
        row.step_up = step_up.step_up_needed(user=request.user, approval=row.risk, session=request.session)  # type: ignore[attr-defined]
    context = {
        "waiting": waiting,
        "waiting_count": waiting_count,
        "decided": selectors.requests_decided(workspace_id=workspace_id),
        "form": DecisionForm(),
        "refused": refused,
        "refused_words": words,
        "refused_note": note,
    }
    return render(request, "assistants/requests.html", context, status=400 if refused else 200)


@require_GET
@requires_permission(DECIDE_APPROVALS, WHO_DECIDES)
def requests_page(request: ConsoleRequest) -> HttpResponse:
    return _page(request)


def _step_up_refusal(request: ConsoleRequest, row, code: str) -> str:
    """Why this Approver may not approve `row` yet ("" when they may): a
    destructive or spend write asks for a fresh second factor, as an agent's
    approval of that risk does."""
    risk = tool_risk(tool_named(row.tool))
    needed = step_up.step_up_needed(user=request.user, approval=risk, session=request.session)
    if needed == step_up.SET_UP:
        return step_up.set_up_words()
    if needed == step_up.PASSKEY:
        return step_up.passkey_words(risk)
    if needed == step_up.CODE:
        if not code:
            return step_up.FIELD_WORDS.format(risk=risk)
        return step_up.step_up_verify(user=request.user, code=code, session=request.session)
    return ""


@require_POST
@requires_permission(DECIDE_APPROVALS, WHO_DECIDES)
def request_decide(request: ConsoleRequest, request_id: int) -> HttpResponseBase:
    row = selectors.request_in_workspace(workspace_id=request.workspace.id, pk=request_id)
    if row is None:
        raise Http404("No such assistant request in this workspace.")
    form = DecisionForm(request.POST)
    typed = (request.POST.get("note") or "")[:2000]
    if not form.is_valid():
        words = " ".join(str(e) for errors in form.errors.values() for e in errors)
        return _page(request, refused=row.pk, words=words, note=typed)
    approve = form.cleaned_data["decision"] == "approve"
    if approve and (refusal := _step_up_refusal(request, row, form.cleaned_data["step_up_code"])):
        return _page(request, refused=row.pk, words=refusal, note=typed)
    try:
        services.assistant_request_decide(row=row, user=request.user, approve=approve, note=form.cleaned_data["note"])
    except services.DecisionRefused as refused:
        messages.error(request, str(refused))
        return redirect("assistants:requests")
    if approve:
        messages.success(
            request, gettext("Approved: %(summary)s. It is carried out now, once.") % {"summary": row.summary}
        )
    else:
        messages.success(
            request, gettext("Rejected: %(summary)s. Nothing was sent to the service.") % {"summary": row.summary}
        )
    return redirect("assistants:requests")
