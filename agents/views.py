"""Views of the Agents area: the approvals queue, the agents list, an agent's
page (activate, pause, rename, change with a message, runs), chat, runs.

Remote errors a person can fix (400/409/422) are placed on the form or row
they concern; every other remote error is shown in place too (a message box
in the form or row, with the request id) except on plain page loads, which
the errors middleware turns into a full error page.
"""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from agents import selectors, services
from agents.forms import (
    AGENT_STATUSES,
    APPROVAL_STATUSES,
    RUN_STATUSES,
    AgentActionForm,
    AgentChangeForm,
    AgentCreateForm,
    AgentRenameForm,
    ApprovalDecisionForm,
    ChatForm,
)
from agents.reading import (
    read_agent,
    read_agent_summary,
    read_approval,
    read_build,
    read_issues,
    read_run,
    webhook_endpoints,
)
from dashboard.api import errors
from dashboard.audit.selectors import always_allow_grants
from dashboard.audit.services import audit_decision_note
from dashboard.idempotency import new_idempotency_key
from dashboard.live.selectors import operation_view
from dashboard.web.forms import RETRY_SAME_WRITE, failed_write
from dashboard.web.htmx import client_redirect, is_partial, next_url, render_region, send_to
from dashboard.web.pager import CursorPager, choice, tabs
from dashboard.web.reading import as_dict, text
from dashboard.web.remote_errors import describe_remote_error, render_remote_error

# --- helpers ----------------------------------------------------------------------


def _agent_at(body: Any, agent_id: str) -> dict[str, Any]:
    """The agent read from `body`, under the id the page asked for when the
    body names none (its links are built from it)."""
    agent = read_agent(body)
    agent["id"] = agent["id"] or agent_id
    return agent


def _uuid_or_empty(value: str | None) -> str:
    try:
        return str(UUID(str(value))) if value else ""
    except ValueError:
        return ""


# --- approvals queue ------------------------------------------------------------------

DECIDE_PERMISSION = "audit.decide_approvals"


def _decide_refusal(request: HttpRequest) -> str:
    """Why this person may not decide approvals here ("" when they may)."""
    if not request.workspace.can_write:
        role = request.workspace.member_role or "read-only"
        return f"Your role in this workspace is {role}: you can see the queue, not decide."
    if not request.user.has_perm(DECIDE_PERMISSION):
        return "Only Approvers decide approvals. Ask an administrator to add you to the Approvers group."
    return ""


def _decision_form(approval: dict, *, may_decide: bool) -> ApprovalDecisionForm | None:
    """The row's form (one key per decision) when it is pending and this person may decide."""
    if approval["status"] != "pending" or not may_decide:
        return None
    return ApprovalDecisionForm(initial={"agent_id": approval["agent_id"] or None, "risk": approval["risk"]})


def _approval_row(
    approval: dict,
    *,
    agent_names: dict[str, str],
    may_decide: bool,
    outcome: Any = None,
    notice: str = "",
    form: ApprovalDecisionForm | None = None,
) -> dict[str, Any]:
    return {
        "approval": approval,
        "agent_name": approval["agent_name"] or agent_names.get(approval["agent_id"], ""),
        "form": form or _decision_form(approval, may_decide=may_decide),
        "outcome": read_run(outcome) if isinstance(outcome, dict) and outcome else None,
        "outcome_raw": outcome,
        "notice": notice,
    }


def _agent_names(client) -> dict[str, str]:
    """Agent id -> name for the filter and the rows (one page of up to 100 agents)."""
    page = selectors.agent_list(client=client, status=None, cursor=None, limit=100)
    return {summary["id"]: summary["name"] for summary in map(read_agent_summary, page.items)}


@require_GET
def approvals(request: HttpRequest) -> HttpResponse:
    status = choice(request.GET.get("status"), APPROVAL_STATUSES, "pending")
    agent_id = _uuid_or_empty(request.GET.get("agent"))
    client = request.workspace.client
    pager = CursorPager.from_query(request.GET)
    page = selectors.approval_list(client=client, status=status, agent_id=agent_id, cursor=pager.remote_cursor)
    agent_names = _agent_names(client)
    refusal = _decide_refusal(request)
    rows = [_approval_row(read_approval(item), agent_names=agent_names, may_decide=not refusal) for item in page.items]
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
    client, *, approval_id: str, agent_id: str | None, answer: dict, decided: str, always: bool
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
def approval_decide(request: HttpRequest, approval_id: str) -> HttpResponseBase:
    """Decide one approval. The row comes back in place with its new state and
    the resumed run's outcome (both re-read); a second decision (409) says so
    and re-reads it. Only Approvers of a member who may write decide."""
    refusal = _decide_refusal(request)
    if refusal:
        return _row_problem(request, approval_id, refusal)
    form = ApprovalDecisionForm(request.POST)
    if not form.is_valid():
        # A stale or changed page, or an unconfirmed destructive approval: nothing is sent.
        problem = " ".join(form.errors.get("__all__", [])) or (
            "This decision could not be read; reload the page and decide again."
        )
        return _row_problem(request, approval_id, problem)
    data = form.cleaned_data
    client = request.workspace.client
    agent_id = str(data["agent_id"]) if data["agent_id"] else None
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
        row = _approval_row(read_approval(current), agent_names=_posted_name(request), may_decide=True, notice=notice)
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
    audit_decision_note(
        idempotency_key=data["idempotency_key"],
        summary=f"{'Always allowed' if data['always'] else decided.capitalize()}: {approval['summary']}",
        note=data["note"].strip(),
        details={
            "decision": data["decision"],
            "always": data["always"],
            "risk": approval["risk"] or data["risk"],
            "approval_id": str(approval_id),
            "agent_id": agent_id or approval["agent_id"],
            "agent_name": request.POST.get("agent_name", "")[:200],
        },
    )
    if not is_partial(request):
        messages.success(request, f"{decided.capitalize()}: {approval['summary']}")
        return redirect(next_url(request, reverse("agents:approvals")))
    row = _approval_row(approval, agent_names=_posted_name(request), may_decide=True, outcome=outcome)
    return _render_row(request, row)


def _row_problem(request: HttpRequest, approval_id: str, problem: str) -> HttpResponseBase:
    """A decision that was not sent: the reason in the row's message region."""
    if is_partial(request):
        response = render(request, "agents/approvals.html#decision_problem", {"problem": problem})
        return send_to(response, f"#approval-{approval_id}-messages")
    messages.error(request, problem)
    return redirect(next_url(request, reverse("agents:approvals")))


def _posted_name(request: HttpRequest) -> dict[str, str]:
    """The agent's name as the row showed it (display only; the spec's approval has no name)."""
    agent_id, name = request.POST.get("agent_id", ""), request.POST.get("agent_name", "")
    return {agent_id: name[:200]} if agent_id and name else {}


def _render_row(request: HttpRequest, row: dict) -> HttpResponse:
    return render(
        request,
        "agents/approvals.html#approval_row",
        {"row": row, "workspace_zone": request.workspace.zone, "next": reverse("agents:approvals")},
    )


def render_approval_error(request: HttpRequest, exc: errors.ApiError, approval_id: str | None = None) -> HttpResponse:
    """The message box in the row's own message region; the row and its
    buttons (with their keys, so a retry is the same decision) stay as they are."""
    target = f"#approval-{approval_id}-messages" if approval_id else "#messages"
    return render_remote_error(request, exc, target=target)


# --- agents list and new agent ---------------------------------------------------------


def _agents_index(request: HttpRequest, form: AgentCreateForm, remote_error=None) -> HttpResponse:
    status = choice(request.GET.get("status"), AGENT_STATUSES, "")
    client = request.workspace.client
    pager = CursorPager.from_query(request.GET)
    page = selectors.agent_list(client=client, status=status or None, cursor=pager.remote_cursor)
    context = {
        "status": status,
        "tabs": tabs(AGENT_STATUSES, status, {}),
        "agents": [read_agent_summary(item) for item in page.items],
        "paging": pager.links({"status": status}, page.next_cursor),
        "form": form,
        "remote_error": remote_error,
        "workspace_zone": request.workspace.zone,
    }
    if request.method == "POST":  # a refused create: the whole page, with the form as typed
        return render(request, "agents/index.html", context)
    return render_region(request, "agents/index.html", "agent_list", context)


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return _agents_index(request, AgentCreateForm())


@require_POST
def agent_create(request: HttpRequest) -> HttpResponse:
    form = AgentCreateForm(request.POST)
    if not form.is_valid():
        return _agents_index(request, form)
    data = form.cleaned_data
    client = request.workspace.client
    try:
        build = services.agent_create(
            client=client,
            name=data["name"],
            message=data["message"],
            auto=data["auto"],
            idempotency_key=data["idempotency_key"],
        )
    except errors.ApiError as exc:
        return _agents_index(request, form, remote_error=failed_write(request, form, exc))
    read = read_build(build)
    if not read["agent_id"]:
        messages.error(request, "The builder answered without an agent; look for it in the list.")
        return redirect("agents:index")
    services.builder_answer_keep(
        workspace_id=request.workspace.id, agent_id=read["agent_id"], build=read, asked_by=request.user
    )
    return _after_write(request, read["agent_id"])


# --- one agent ---------------------------------------------------------------------------


def _agent_page(request: HttpRequest, agent_id: str, *, region: str | None = None, **overrides) -> HttpResponse:
    """The agent page (or one of its regions for htmx), with any form or
    message given in `overrides` in place of the fresh one."""
    client = request.workspace.client
    agent = _agent_at(selectors.agent_get(client=client, agent_id=agent_id), agent_id)
    build = selectors.builder_answer_get(workspace_id=request.workspace.id, agent_id=agent_id)
    needs_input = (build is not None and build.needs_input) or agent["builder_needs_input"]
    questions = (build.questions if build is not None else []) if needs_input else []
    context: dict[str, Any] = {
        "agent": agent,
        "build": build,
        "needs_input": needs_input,
        "activate_form": AgentActionForm(),
        "pause_form": AgentActionForm(),
        "rename_form": AgentRenameForm(initial={"name": agent["name"]}),
        "change_form": AgentChangeForm(questions=questions),
        "workspace_zone": request.workspace.zone,
        "agent_approvals_url": reverse("agents:approvals") + "?" + urlencode({"agent": agent["id"]}),
    }
    context.update(overrides)
    if region is None or not is_partial(request):
        context.update(_runs_context(request, client, agent_id))
        if build is not None and build.asked_by_id == request.user.pk:
            # The builder's summary is news once, to whoever asked; questions stay until answered.
            services.builder_answer_seen(answer=build)
        return render(request, "agents/agent.html", context)
    return render(request, f"agents/agent.html#{region}", context)


def _runs_context(request: HttpRequest, client, agent_id: str) -> dict[str, Any]:
    status = choice(request.GET.get("status"), RUN_STATUSES, "")
    pager = CursorPager.from_query(request.GET)
    page = selectors.run_list(client=client, agent_id=agent_id, status=status or None, cursor=pager.remote_cursor)
    return {
        "run_status": status,
        "run_tabs": tabs(RUN_STATUSES, status, {}, region="runs"),
        "runs": [read_run(item) for item in page.items],
        "run_paging": pager.links({"status": status}, page.next_cursor, region="runs"),
    }


@require_GET
def agent_detail(request: HttpRequest, agent_id: str) -> HttpResponse:
    if is_partial(request) and request.GET.get("region") == "runs":
        # Filtering or paging the runs swaps the runs alone: one remote call.
        client = request.workspace.client
        context = {"agent": {"id": str(agent_id)}, "workspace_zone": request.workspace.zone}
        context.update(_runs_context(request, client, str(agent_id)))
        return render(request, "agents/agent.html#runs", context)
    return _agent_page(request, str(agent_id))


def _after_write(request: HttpRequest, agent_id: str) -> HttpResponseBase:
    return client_redirect(request, reverse("agents:detail", args=[agent_id]))


def _action_key(request: HttpRequest) -> str:
    """The key of an activate/pause button; a missing or malformed one (a
    hand-made request) gets a fresh key rather than an error nobody can fix."""
    form = AgentActionForm(request.POST)
    return form.cleaned_data["idempotency_key"] if form.is_valid() else new_idempotency_key()


def _action_failed(
    request: HttpRequest, agent_id: str, *, form_name: str, key: str, exc: errors.ApiError
) -> HttpResponse:
    """Activate or pause failed: the message in the readiness region. After a
    failure worth retrying the button keeps its key, so pressing it again can
    never publish two versions."""
    overrides: dict[str, Any] = {"activation_error": describe_remote_error(request, exc)}
    if isinstance(exc, RETRY_SAME_WRITE):
        overrides[form_name] = AgentActionForm(initial={"idempotency_key": key})
    return _agent_page(request, agent_id, region="activation", **overrides)


@require_POST
def agent_activate(request: HttpRequest, agent_id: str) -> HttpResponse:
    client = request.workspace.client
    key = _action_key(request)
    try:
        answer = services.agent_activate(client=client, agent_id=str(agent_id), idempotency_key=key)
    except errors.UnprocessableError as exc:
        issues = read_issues((exc.details or {}).get("issues") if isinstance(exc.details, dict) else exc.details)
        return _agent_page(
            request,
            str(agent_id),
            region="activation",
            activation_issues=issues or [{"message": exc.message, "code": "", "where": ""}],
            activation_request_id=exc.request_id,
        )
    except errors.ApiError as exc:
        return _action_failed(request, str(agent_id), form_name="activate_form", key=key, exc=exc)
    version = answer.get("version") if isinstance(answer, dict) else None
    messages.success(request, f"The agent is active{f' (version {version})' if version else ''}.")
    return _after_write(request, str(agent_id))


@require_POST
def agent_pause(request: HttpRequest, agent_id: str) -> HttpResponse:
    client = request.workspace.client
    key = _action_key(request)
    try:
        services.agent_pause(client=client, agent_id=str(agent_id), idempotency_key=key)
    except errors.ApiError as exc:
        return _action_failed(request, str(agent_id), form_name="pause_form", key=key, exc=exc)
    messages.success(request, "The agent is paused: its wake-ups are off; runs in flight finish.")
    return _after_write(request, str(agent_id))


@require_POST
def agent_rename(request: HttpRequest, agent_id: str) -> HttpResponse:
    form = AgentRenameForm(request.POST)
    if not form.is_valid():
        return _agent_page(request, str(agent_id), region="rename", rename_form=form)
    client = request.workspace.client
    try:
        services.agent_rename(
            client=client,
            agent_id=str(agent_id),
            name=form.cleaned_data["name"],
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except errors.ApiError as exc:
        error = failed_write(request, form, exc)
        return _agent_page(request, str(agent_id), region="rename", rename_form=form, rename_error=error)
    messages.success(request, "Renamed.")
    return _after_write(request, str(agent_id))


@require_POST
def agent_change(request: HttpRequest, agent_id: str) -> HttpResponse:
    build = selectors.builder_answer_get(workspace_id=request.workspace.id, agent_id=str(agent_id))
    questions = build.questions if build is not None and build.needs_input else []
    form = AgentChangeForm(request.POST, questions=questions)
    if not form.is_valid():
        return _agent_page(request, str(agent_id), region="change", change_form=form)
    client = request.workspace.client
    try:
        answer = services.agent_change(
            client=client,
            agent_id=str(agent_id),
            message=form.reply_text(),
            auto=form.cleaned_data["auto"],
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except errors.ApiError as exc:
        error = failed_write(request, form, exc)
        return _agent_page(request, str(agent_id), region="change", change_form=form, change_error=error)
    read = read_build(answer)
    services.builder_answer_keep(
        workspace_id=request.workspace.id, agent_id=str(agent_id), build=read, asked_by=request.user
    )
    if read["status"] != "needs_input":
        messages.success(request, "The builder changed the draft. Activate the agent to publish the change.")
    return _after_write(request, str(agent_id))


@require_GET
def agent_webhook(request: HttpRequest, agent_id: str) -> HttpResponse:
    """The private webhook address, only when someone asks to see it (never
    on the agent page itself): whoever holds it can wake the agent."""
    client = request.workspace.client
    agent = selectors.agent_get(client=client, agent_id=str(agent_id))
    endpoints = webhook_endpoints(agent)
    response = render_region(
        request, "agents/webhook.html", "address", {"agent": _agent_at(agent, str(agent_id)), "endpoints": endpoints}
    )
    response["Cache-Control"] = "no-store"
    return response


# --- chat ----------------------------------------------------------------------------------


def _chat_page(request: HttpRequest, agent_id: str, *, form: ChatForm | None = None, remote_error=None) -> HttpResponse:
    thread_id = _uuid_or_empty(request.GET.get("thread") or request.POST.get("thread_id"))
    client = request.workspace.client
    agent = _agent_at(selectors.agent_get(client=client, agent_id=agent_id), agent_id)
    messages_in_thread = (
        selectors.invocations_in_thread(user=request.user, agent_id=agent_id, thread_id=thread_id) if thread_id else []
    )
    earlier = []
    if thread_id:
        # Turns of this conversation sent from elsewhere (another person, the
        # API): the service lists them as the thread's runs, newest first.
        followed = {
            str((view.op.snapshot or {}).get("run_id") or (view.op.context or {}).get("run_id"))
            for view in messages_in_thread
        }
        runs = selectors.run_list(client=client, agent_id=agent_id, thread_id=thread_id, limit=100).items
        earlier = [run for run in map(read_run, reversed(runs)) if run["id"] not in followed]
    return render(
        request,
        "agents/chat.html",
        {
            "agent": agent,
            "thread_id": thread_id,
            "thread": messages_in_thread,
            "earlier": earlier,
            "workspace_zone": request.workspace.zone,
            "form": form or ChatForm(initial={"thread_id": thread_id or None}),
            "remote_error": remote_error,
        },
    )


@require_GET
def chat(request: HttpRequest, agent_id: str) -> HttpResponse:
    return _chat_page(request, str(agent_id))


@require_POST
def chat_send(request: HttpRequest, agent_id: str) -> HttpResponse:
    form = ChatForm(request.POST)
    if not form.is_valid():
        return _chat_page(request, str(agent_id), form=form)
    data = form.cleaned_data
    try:
        op = services.invocation_start(
            key=request.workspace.require_key(),
            agent_id=str(agent_id),
            message=(data["message"] or "").strip(),
            payload=data["payload"],
            thread_id=str(data["thread_id"]) if data["thread_id"] else None,
            idempotency_key=data["idempotency_key"],
        )
    except errors.ApiError as exc:
        return _chat_page(request, str(agent_id), form=form, remote_error=failed_write(request, form, exc))
    thread_id = (op.context or {}).get("thread_id") or ""
    url = reverse("agents:chat", args=[agent_id])
    return redirect(f"{url}?{urlencode({'thread': thread_id})}" if thread_id else url)


# --- runs ------------------------------------------------------------------------------------


@require_GET
def run_detail(request: HttpRequest, run_id: str) -> HttpResponse:
    """A run as the service reports it now; a run still going is followed by
    the live poller and the page updates from the console's row."""
    client = request.workspace.client
    body = selectors.run_get(client=client, run_id=str(run_id))
    run = read_run(body)
    run["id"] = run["id"] or str(run_id)
    live = None
    if not run["is_final"]:
        op = services.run_follow(key=request.workspace.require_key(), run=body)
        if op is not None and not op.is_final:
            live = operation_view(op=op, request=request)
    return render(
        request,
        "agents/run.html",
        {
            "run": run,
            "op": live.op if live else None,
            "live": live,
            "extra": {"run": run},
            "workspace_zone": request.workspace.zone,
        },
    )
