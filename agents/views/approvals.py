"""The approvals queue: list, decide (with its permission, confirmation,
note and audit), and the decided row re-read. The run page decides through
the same view and form (`approval_decide`), and so does the inbox."""

from __future__ import annotations

import contextlib
from typing import Any

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from agents import selectors, services
from agents.forms import APPROVAL_STATUSES, ApprovalDecisionForm, uuid_or_empty
from agents.pages import DECIDE_PERMISSION, NOT_AN_APPROVER, READ_ONLY, approval_row, decide_refusal, decision_ids
from agents.reading import read_agent_summary, read_approval
from dashboard.api import ServiceClient, errors
from dashboard.audit.selectors import always_allow_grants
from dashboard.audit.services import audit_decision_note
from dashboard.frame.permissions import requires_permission, requires_write
from dashboard.frame.remote_errors import render_remote_error
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import is_partial, next_url, render_region, send_to
from dashboard.web.pager import CursorPager, choice, tabs
from dashboard.web.reading import as_dict, text

# --- approvals queue ------------------------------------------------------------------

GONE_MESSAGE = (
    "The service no longer lists this approval (decided elsewhere, or removed): nothing was sent. "
    "Reload the page to see it as it is now."
)


def _agent_names(client: ServiceClient) -> dict[str, str]:
    """Agent id -> name for the filter and the rows (one page of up to 100 agents)."""
    page = selectors.agent_list(client=client, status=None, cursor=None, limit=100)
    return {summary["id"]: summary["name"] for summary in map(read_agent_summary, page.items)}


@require_GET
def approvals(request: ConsoleRequest) -> HttpResponse:
    status = choice(request.GET.get("status"), APPROVAL_STATUSES, "pending")
    agent_id = uuid_or_empty(request.GET.get("agent"))
    client = request.workspace.client
    pager = CursorPager.from_query(request.GET)
    page = selectors.approval_list(client=client, status=status, agent_id=agent_id, cursor=pager.remote_cursor)
    agent_names = _agent_names(client)
    refusal = decide_refusal(workspace=request.workspace, user=request.user)
    rows = [approval_row(read_approval(item), agent_names=agent_names, may_decide=not refusal) for item in page.items]
    context = {
        "status": status,
        "agent_id": agent_id,
        "agent_choices": sorted(agent_names.items(), key=lambda pair: pair[1].lower()),
        "tabs": tabs(APPROVAL_STATUSES, status, {"agent": agent_id}),
        "rows": rows,
        "paging": pager.links({"status": status, "agent": agent_id}, page.next_cursor),
        "workspace_zone": request.workspace.zone,
        "next": request.get_full_path(),
        "decide_refusal": refusal,
        "grants": always_allow_grants(workspace_id=request.workspace.id),
    }
    return render_region(request, "agents/approvals.html", "approval_list", context)


def _reread(
    client: ServiceClient, *, approval_id: str, agent_id: str | None, answer: dict, decided: str, always: bool
) -> tuple[dict, Any]:
    """The approval and its run as they are now, read again: the decision's
    answer has an open shape, so the page shows what a re-read knows."""
    try:
        current = selectors.approval_find(client=client, approval_id=approval_id, agent_id=agent_id)
    except errors.ApiError:
        current = None
    answered = as_dict(answer.get("approval"))
    if current is not None and read_approval(current)["status"] == "pending" and answered:
        current = None  # a list not caught up yet: the answer's approval is newer
    approval = read_approval(current or answered or {"id": approval_id})
    if approval["status"] == "pending":
        # An answer without the approval and a list not caught up: the
        # decision just made is its status; the rest (summary, input) stands.
        approval["status"], approval["always"] = decided, always
    outcome: Any = answer.get("outcome")
    run_id = approval["run_id"] or text(as_dict(outcome).get("id"))
    if run_id:
        # The decision stands whatever this read does; on failure the answer's outcome is what we know.
        with contextlib.suppress(errors.ApiError):
            outcome = selectors.run_get(client=client, run_id=run_id)
    return approval, outcome


@require_POST
@requires_write(READ_ONLY)
@requires_permission(DECIDE_PERMISSION, NOT_AN_APPROVER)
def approval_decide(request: ConsoleRequest, approval_id: str) -> HttpResponseBase:
    """Decide one approval. The row comes back in place with its new state and
    the resumed run's outcome (both re-read); a second decision (409) says so
    and re-reads it. Only Approvers of a member who may write decide. An
    approve first reads the approval again (one more list read): its risk at
    the service, not anything the form says, decides whether the approve
    needs its confirmation. The approvals page, the run page and the inbox
    all post their rows here."""
    form = ApprovalDecisionForm(request.POST, auto_id=decision_ids(str(approval_id)))
    if not form.is_valid() and set(form.errors) == {"note"}:
        # A note over its limit (refused before sending when the script ran): nothing is sent,
        # the row comes back with the note as typed and the refusal under it, in words.
        return _note_refused(request, str(approval_id), form)
    if not form.is_valid():
        # A stale or changed page: nothing is sent.
        problem = " ".join(str(message) for message in form.non_field_errors()) or (
            "This decision could not be read; reload the page and decide again."
        )
        return _row_problem(request, approval_id, problem)
    data = form.cleaned_data
    client = request.workspace.client
    agent_id = str(data["agent_id"]) if data["agent_id"] else None
    risk = ""
    if data["decision"] == "approve":
        # A reject needs no read first: refusing an action is always safe to send.
        try:
            current = selectors.approval_to_decide(client=client, approval_id=str(approval_id), agent_id=agent_id)
        except errors.ApiError as exc:
            if not is_partial(request):
                raise
            return render_approval_error(request, exc, approval_id=str(approval_id))
        if current is None:
            return _row_problem(request, approval_id, GONE_MESSAGE)
        risk = read_approval(current)["risk"]
        refusal = form.confirmation_refusal(risk)
        if refusal:
            return _row_problem(request, approval_id, refusal)
    try:
        answer = services.approval_decide(
            client=client,
            approval_id=str(approval_id),
            decision=data["decision"],
            always=data["always"],
            idempotency_key=data["idempotency_key"],
        )
    except errors.ConflictError as exc:
        current = selectors.approval_find(client=client, approval_id=str(approval_id), agent_id=agent_id)
        notice = "Already decided: someone decided this approval before you."
        if not is_partial(request):
            messages.info(request, notice)
            return redirect(next_url(request, reverse("agents:approvals")))
        if current is None:
            return render_approval_error(request, exc)
        if exc.request_id:
            notice = f"{notice} (request id {exc.request_id})"
        row = approval_row(read_approval(current), agent_names=_posted_name(request), may_decide=True, notice=notice)
        return _render_row(request, row)
    except errors.ApiError as exc:
        if not is_partial(request):
            raise
        return render_approval_error(request, exc, approval_id=str(approval_id))
    decided = "approved" if data["decision"] == "approve" else "rejected"
    approval, outcome = _reread(
        client,
        approval_id=str(approval_id),
        agent_id=agent_id,
        answer=as_dict(answer),
        decided=decided,
        always=data["always"],
    )
    services.run_poll_soon(key=request.workspace.require_key(), run_id=approval["run_id"])
    audit_decision_note(
        idempotency_key=data["idempotency_key"],
        summary=f"{'Always allowed' if data['always'] else decided.capitalize()}: {approval['summary']}",
        note=data["note"].strip(),
        details={
            "decision": data["decision"],
            "always": data["always"],
            # The service's word for it: read before an approve, re-read after a reject.
            "risk": risk or approval["risk"],
            "approval_id": str(approval_id),
            "agent_id": agent_id or approval["agent_id"],
            "agent_name": request.POST.get("agent_name", "")[:200],
        },
    )
    if not is_partial(request):
        messages.success(request, f"{decided.capitalize()}: {approval['summary']}")
        return redirect(next_url(request, reverse("agents:approvals")))
    row = approval_row(approval, agent_names=_posted_name(request), may_decide=True, outcome=outcome)
    return _render_row(request, row)


def _row_problem(request: ConsoleRequest, approval_id: str, problem: str) -> HttpResponseBase:
    """A decision that was not sent: the reason in the row's message region."""
    if is_partial(request):
        response = render(request, "agents/approvals.html#decision_problem", {"problem": problem})
        return send_to(response, f"#approval-{approval_id}-messages")
    messages.error(request, problem)
    return redirect(next_url(request, reverse("agents:approvals")))


def _note_refused(request: ConsoleRequest, approval_id: str, form: ApprovalDecisionForm) -> HttpResponseBase:
    """The approval's row again with the bound form: in place for htmx, else
    on a page of its own (the approvals list would lose what was typed)."""
    agent_id = text(request.POST.get("agent_id")) or None
    try:
        current = selectors.approval_to_decide(
            client=request.workspace.client, approval_id=approval_id, agent_id=agent_id
        )
    except errors.ApiError as exc:
        if not is_partial(request):
            raise
        return render_approval_error(request, exc, approval_id=approval_id)
    approval = read_approval(current) if current is not None else None
    if approval is None or approval["status"] != "pending":
        return _row_problem(request, approval_id, "This approval is no longer waiting for a decision; reload the page.")
    row = approval_row(approval, agent_names=_posted_name(request), may_decide=True, form=form)
    if is_partial(request):
        return _render_row(request, row)
    return render(
        request,
        "agents/approval_decide.html",
        {"row": row, "workspace_zone": request.workspace.zone, "next": next_url(request, reverse("agents:approvals"))},
    )


def _posted_name(request: ConsoleRequest) -> dict[str, str]:
    """The agent's name as the row showed it (display only; the spec's approval has no name)."""
    agent_id, name = request.POST.get("agent_id", ""), request.POST.get("agent_name", "")
    return {agent_id: name[:200]} if agent_id and name else {}


def _render_row(request: ConsoleRequest, row: dict) -> HttpResponse:
    return render(
        request,
        "agents/approvals.html#approval_row",
        {"row": row, "workspace_zone": request.workspace.zone, "next": next_url(request, reverse("agents:approvals"))},
    )


def render_approval_error(
    request: ConsoleRequest, exc: errors.ApiError, approval_id: str | None = None
) -> HttpResponse:
    """The message box in the row's own message region; the row and its
    buttons (with their keys, so a retry is the same decision) stay as they are."""
    target = f"#approval-{approval_id}-messages" if approval_id else "#messages"
    return render_remote_error(request, exc, target=target)
