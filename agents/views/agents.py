"""The agents list, the builder (create and change, its questions shown in
place), one agent's page (activation, plan graph, versions, schedule,
wake-ups, runs), activate, pause, rename, the webhook shown on request."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from agents import selectors, services
from agents.agent_list import (
    AGENT_LIST_MAX_PAGES,
    AGENT_LIST_PAGE,
    SORTS,
    agents_listing,
    agents_read,
    agents_read_forget,
)
from agents.forms import (
    AGENT_STATUSES,
    NAME_MAX_LENGTH,
    AgentActionForm,
    AgentChangeForm,
    AgentCreateForm,
    AgentRenameForm,
    question_options,
)
from agents.pages import READ_ONLY, agent_runs_context, insights_context
from agents.plan import issues_named, node_in, plan_graph
from agents.reading import read_agent, read_build, read_issues, webhook_endpoints
from dashboard.api import errors
from dashboard.frame.forms import RETRY_SAME_WRITE, failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.remote_errors import RemoteErrorView, describe_remote_error
from dashboard.frame.workspace import ConsoleRequest
from dashboard.idempotency import new_idempotency_key
from dashboard.web.htmx import client_redirect, is_partial, render_region
from dashboard.web.pager import PageLinks, choice, tabs
from dashboard.web.params import bounded_int

# --- agents list and new agent ---------------------------------------------------------


def _agents_index(
    request: ConsoleRequest,
    form: AgentCreateForm,
    remote_error: RemoteErrorView | None = None,
    builder: dict[str, Any] | None = None,
) -> HttpResponse:
    status = choice(request.GET.get("status"), AGENT_STATUSES, "")
    sort = choice(request.GET.get("sort"), SORTS, "newest")
    query = " ".join(str(request.GET.get("q") or "").split())[:NAME_MAX_LENGTH]
    page = bounded_int(request.GET.get("page"), default=1, lowest=1, highest=10_000)
    read = agents_read(
        client=request.workspace.client, workspace_id=request.workspace.id, archived=status == "archived"
    )
    listing = agents_listing(read, status=status, query=query, sort=sort, page=page)
    kept = {"status": status, "q": query, "sort": "" if sort == "newest" else sort}
    context = {
        "status": status,
        "sort": sort,
        "sorts": SORTS,
        "query": query,
        "tabs": tabs(AGENT_STATUSES, status, {"q": query, "sort": kept["sort"]}),
        "listing": listing,
        "read_limit": AGENT_LIST_PAGE * AGENT_LIST_MAX_PAGES,
        "agents": listing.rows,
        "paging": _listing_links(kept, listing.page, listing.pages),
        "form": form,
        "remote_error": remote_error,
        "builder": builder,
        "workspace_zone": request.workspace.zone,
    }
    if request.method == "POST":  # a refused create: the whole page, with the form as typed
        return render(request, "agents/index.html", context)
    return render_region(request, "agents/index.html", "agent_list", context)


def _listing_links(kept: dict[str, str], page: int, pages: int) -> PageLinks:
    """The pager's links to the pages before and after, keeping the tab,
    the search and the sort in the address."""
    base = [(name, value) for name, value in kept.items() if value]

    def url(number: int) -> str:
        pairs = base + ([("page", str(number))] if number > 1 else [])
        return "?" + urlencode(pairs)

    previous = url(page - 1) if page > 1 else None
    following = url(page + 1) if page < pages else None
    return PageLinks(previous=previous, next=following, hx_previous=previous, hx_next=following, page_number=page)


@require_GET
def index(request: ConsoleRequest) -> HttpResponse:
    return _agents_index(request, AgentCreateForm())


@require_POST
@requires_write(READ_ONLY)
def agent_create(request: ConsoleRequest) -> HttpResponseBase:
    form = AgentCreateForm(request.POST)
    if not form.is_valid():
        return _agents_index(request, form)
    data = form.cleaned_data
    client = request.workspace.client
    try:
        build = services.agent_create(
            client=client,
            name=data["name"],
            message=form.brief(),
            auto=data["auto"],
            idempotency_key=data["idempotency_key"],
        )
    except errors.ApiError as exc:
        return _agents_index(request, form, remote_error=failed_write(request, form, exc))
    read = read_build(build)
    if not read["agent_id"]:
        # No id anywhere in the answer: the questions (or the summary) are
        # shown right here rather than lost behind a redirect.
        return _builder_answered_in_place(request, form, read)
    services.builder_answer_keep(
        workspace_id=request.workspace.id, agent_id=read["agent_id"], build=read, asked_by=request.user
    )
    return _after_write(request, read["agent_id"])


def _builder_answered_in_place(request: ConsoleRequest, form: AgentCreateForm, read: dict) -> HttpResponseBase:
    agents_read_forget(workspace_id=request.workspace.id)  # the draft exists either way
    if read["status"] == "needs_input" and read["questions"]:
        fresh = AgentCreateForm(
            questions=read["questions"],
            initial={"name": form.cleaned_data["name"], "message": form.cleaned_data["message"]},
        )
        return _agents_index(request, fresh, builder=read)
    messages.success(request, read["message"] or "The builder drafted the agent; it is in the list as a draft.")
    return client_redirect(request, reverse("agents:index") + "?status=draft")


# --- one agent ---------------------------------------------------------------------------


def _agent_page(request: ConsoleRequest, agent_id: str, *, region: str | None = None, **overrides: Any) -> HttpResponse:
    """The agent page (or one of its regions for htmx), with any form or
    message given in `overrides` in place of the fresh one."""
    client = request.workspace.client
    agent = read_agent(selectors.agent_get(client=client, agent_id=agent_id), asked_id=agent_id)
    # What to fix, naming the plan's steps in words rather than their ids.
    agent["issues"] = issues_named(agent["issues"], agent["plan_raw"])
    if overrides.get("activation_issues"):
        overrides["activation_issues"] = issues_named(overrides["activation_issues"], agent["plan_raw"])
    build = selectors.builder_answer_get(workspace_id=request.workspace.id, agent_id=agent_id)
    needs_input = (build is not None and build.needs_input) or agent["builder_needs_input"]
    questions = (build.questions if build is not None else []) if needs_input else []
    graph = plan_graph(agent["plan_raw"], issues=agent["issues"])
    node_asked = request.GET.get("node", "")[:200]
    context: dict[str, Any] = {
        "agent": agent,
        "graph": graph,
        "selected_node": node_in(graph, node_asked) if node_asked else None,
        "node_asked": node_asked,
        "build": build,
        "needs_input": needs_input,
        "activate_form": AgentActionForm(),
        "pause_form": AgentActionForm(),
        "rename_form": AgentRenameForm(initial={"name": agent["name"]}),
        "change_form": AgentChangeForm(questions=questions),
        "workspace_zone": request.workspace.zone,
        "agent_approvals_url": reverse("agents:approvals") + "?" + urlencode({"agent": agent["id"]}),
    }
    kept_option = overrides.pop("kept_option", None)
    context.update(overrides)
    if context["needs_input"]:
        context["question_options"] = question_options(context["change_form"].questions, kept=kept_option)
    if region is None or not is_partial(request):
        context.update(agent_runs_context(workspace=request.workspace, query=request.GET, agent_id=agent_id))
        # The insights section: the database only (a worker keeps the numbers).
        context.update(insights_context(workspace=request.workspace, query=request.GET, agent_id=agent_id))
        if build is not None and build.asked_by_id == request.user.pk:
            # The builder's summary is news once, to whoever asked; questions stay until answered.
            services.builder_answer_seen(answer=build)
        return render(request, "agents/agent.html", context)
    return render(request, f"agents/agent.html#{region}", context)


@require_GET
def agent_detail(request: ConsoleRequest, agent_id: str) -> HttpResponse:
    if is_partial(request) and request.GET.get("region") == "runs":
        # Filtering or paging the runs swaps the runs alone: one remote call.
        context = {"agent": {"id": str(agent_id)}, "workspace_zone": request.workspace.zone}
        context.update(agent_runs_context(workspace=request.workspace, query=request.GET, agent_id=str(agent_id)))
        return render(request, "agents/agent.html#runs", context)
    if is_partial(request) and request.GET.get("region") == "node":
        # A step of the plan graph opens its settings beside it.
        return _agent_page(request, str(agent_id), region="plan_node")
    return _agent_page(request, str(agent_id))


def _after_write(request: ConsoleRequest, agent_id: str) -> HttpResponseBase:
    # Created, renamed, activated or paused: the list shows it now, not in a minute.
    agents_read_forget(workspace_id=request.workspace.id)
    return client_redirect(request, reverse("agents:detail", args=[agent_id]))


def _action_key(request: ConsoleRequest) -> str:
    """The key of an activate/pause button; a missing or malformed one (a
    hand-made request) gets a fresh key rather than an error nobody can fix."""
    form = AgentActionForm(request.POST)
    return form.cleaned_data["idempotency_key"] if form.is_valid() else new_idempotency_key()


def _action_failed(
    request: ConsoleRequest, agent_id: str, *, form_name: str, key: str, exc: errors.ApiError
) -> HttpResponse:
    """Activate or pause failed: the message in the readiness region. After a
    failure worth retrying the button keeps its key, so pressing it again can
    never publish two versions."""
    overrides: dict[str, Any] = {"activation_error": describe_remote_error(request, exc)}
    if isinstance(exc, RETRY_SAME_WRITE):
        overrides[form_name] = AgentActionForm(initial={"idempotency_key": key})
    return _agent_page(request, agent_id, region="activation", **overrides)


@require_POST
@requires_write(READ_ONLY)
def agent_activate(request: ConsoleRequest, agent_id: str) -> HttpResponseBase:
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
@requires_write(READ_ONLY)
def agent_pause(request: ConsoleRequest, agent_id: str) -> HttpResponseBase:
    client = request.workspace.client
    key = _action_key(request)
    try:
        services.agent_pause(client=client, agent_id=str(agent_id), idempotency_key=key)
    except errors.ApiError as exc:
        return _action_failed(request, str(agent_id), form_name="pause_form", key=key, exc=exc)
    messages.success(request, gettext("The agent is paused: its wake-ups are off; runs in flight finish."))
    return _after_write(request, str(agent_id))


@require_POST
@requires_write(READ_ONLY)
def agent_rename(request: ConsoleRequest, agent_id: str) -> HttpResponseBase:
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
    messages.success(request, gettext("Renamed."))
    return _after_write(request, str(agent_id))


@require_POST
@requires_write(READ_ONLY)
def agent_change(request: ConsoleRequest, agent_id: str) -> HttpResponseBase:
    build = selectors.builder_answer_get(workspace_id=request.workspace.id, agent_id=str(agent_id))
    questions = build.questions if build is not None and build.needs_input else []
    form = AgentChangeForm(request.POST, questions=questions)
    if not form.is_valid():
        return _agent_page(request, str(agent_id), region="change", change_form=form)
    client = request.workspace.client
    picked = form.picked_option()
    key = form.cleaned_data["idempotency_key"]
    try:
        answer = services.agent_change(
            client=client,
            agent_id=str(agent_id),
            message=form.reply_text(),
            auto=form.cleaned_data["auto"],
            idempotency_key=key,
        )
    except errors.ApiError as exc:
        if picked is not None:
            # A one-click answer failed: said above the options, which stay;
            # after a failure worth retrying the option keeps its key.
            return _agent_page(
                request,
                str(agent_id),
                region="change",
                change_error=describe_remote_error(request, exc),
                kept_option=(*picked, key) if isinstance(exc, RETRY_SAME_WRITE) else None,
            )
        error = failed_write(request, form, exc)
        return _agent_page(request, str(agent_id), region="change", change_form=form, change_error=error)
    read = read_build(answer)
    kept = services.builder_answer_keep(
        workspace_id=request.workspace.id, agent_id=str(agent_id), build=read, asked_by=request.user
    )
    if read["status"] == "needs_input":
        # More questions: shown in place, in the form that answers them.
        return _agent_page(
            request,
            str(agent_id),
            region="change",
            build=kept,
            needs_input=True,
            change_form=AgentChangeForm(questions=read["questions"]),
        )
    messages.success(request, gettext("The builder changed the draft. Activate the agent to publish the change."))
    return _after_write(request, str(agent_id))


@require_GET
def agent_webhook(request: ConsoleRequest, agent_id: str) -> HttpResponse:
    """The private webhook address, only when someone asks to see it (never
    on the agent page itself): whoever holds it can wake the agent."""
    client = request.workspace.client
    agent = selectors.agent_get(client=client, agent_id=str(agent_id))
    endpoints = webhook_endpoints(agent)
    response = render_region(
        request,
        "agents/webhook.html",
        "address",
        {"agent": read_agent(agent, asked_id=str(agent_id)), "endpoints": endpoints},
    )
    response["Cache-Control"] = "no-store"
    return response
