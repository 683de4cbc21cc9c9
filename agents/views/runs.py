"""Runs: one run as a timeline (the selected step in a side panel,
approvals decided in place, rerun after a confirmation), every agent's runs
and a live row of a list (one agent's runs are a region of the agent page,
`agents.pages.agent_runs_context`)."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from agents import selectors, services
from agents.forms import RUN_STATUSES, RerunForm, RunViewForm, uuid_or_empty
from agents.live import RUN_KIND, is_followed
from agents.pages import READ_ONLY, approval_rows_of_run, decide_refusal, live_rows, runs_read
from agents.plan import plan_graph, run_path
from agents.reading import read_agent
from agents.run_compare import compare_runs
from agents.run_reading import read_run, run_timeline
from agents.run_search import query_words
from agents.run_views import run_view_address, run_view_default, run_view_get, run_views_visible
from agents.runs_across import MAX_AGENTS
from dashboard.accounts.middleware import background_request
from dashboard.api import errors
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.live.selectors import operation_for_viewer, operation_status_version, operation_view
from dashboard.web.converters import RemoteIdConverter
from dashboard.web.htmx import client_redirect, is_partial, poll_unchanged, render_region, stop_polling
from dashboard.web.pager import CursorPager, choice, tabs
from dashboard.web.params import bounded_int, database_id

MAX_STEPS = 10_000
# A run id as the page takes it from the query (the remote_id converter's rule).
RUN_ID = re.compile(RemoteIdConverter.regex)


def selected_step(run: dict[str, Any], asked: Any) -> dict[str, Any] | None:
    """The step the side panel shows: the one asked for, else the first that
    failed, else the last (what a run "got to")."""
    steps = run["steps"]
    if not steps:
        return None
    number = bounded_int(asked, default=0, lowest=0, highest=MAX_STEPS)
    if 1 <= number <= len(steps):
        return steps[number - 1]
    return next((step for step in steps if step["error"]), steps[-1])


def _run_body(request: ConsoleRequest, run_id: str) -> dict:
    """The run as the console last stored it when this person follows it (no
    remote call: a step clicked while the run goes on), else as the service says."""
    followed = selectors.run_followed(user=request.user, run_id=run_id)
    if followed is not None and isinstance(followed.snapshot, dict) and followed.snapshot:
        return followed.snapshot
    return selectors.run_get(client=request.workspace.client, run_id=run_id)


@require_GET
def run_detail(request: ConsoleRequest, run_id: str) -> HttpResponse:
    """A run as a timeline. A run still going is followed by the live poller
    and its region updates from the console's row; the selected step's panel
    (`?step=`, kept for old links) swaps alone, without a remote call while
    the run is followed."""
    if is_partial(request) and request.GET.get("region") == "step":
        return _step_panel(request, str(run_id), request.GET.get("step"))
    return _run_page(request, str(run_id), request.GET.get("step"), asked=False)


@require_GET
def run_step(request: ConsoleRequest, run_id: str, number: int) -> HttpResponse:
    """A step's own address: the run page with that step's panel open (and
    focused), or the panel alone for htmx."""
    if is_partial(request):
        return _step_panel(request, str(run_id), number)
    return _run_page(request, str(run_id), number, asked=True)


def _step_panel(request: ConsoleRequest, run_id: str, number: Any) -> HttpResponse:
    run = read_run(_run_body(request, run_id))
    run["id"] = run["id"] or run_id
    step = selected_step(run, number)
    context = {"run": run, "step": step, "step_asked": True}
    return render(request, "agents/run.html#step_panel", context)


def _run_on_plan(request: ConsoleRequest, run: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """The run's agent's plan (as it is now) with the run's path marked, or
    why it is not drawn. One read of the agent; a failed read costs the
    drawing only, never the run page."""
    if not run["agent_id"] or not any(step["node_id"] for step in run["steps"]):
        return None, ""
    try:
        agent = read_agent(selectors.agent_get(client=request.workspace.client, agent_id=run["agent_id"]))
    except errors.ApiError as exc:
        return None, f"The plan could not be read: {exc.message}"
    graph = plan_graph(agent["plan_raw"], issues=[])
    return (run_path(graph, run["steps"]) if graph["nodes"] else None), ""


def _run_page(request: ConsoleRequest, run_id: str, number: Any, *, asked: bool) -> HttpResponse:
    body = selectors.run_get(client=request.workspace.client, run_id=run_id)
    run = read_run(body)
    run["id"] = run["id"] or run_id
    live = None
    if not run["is_final"]:
        op = services.run_follow(key=request.workspace.require_key(), run=body)
        if op is not None and not op.is_final:
            live = operation_view(op=op, request=request)
    refusal = decide_refusal(workspace=request.workspace, user=request.user)
    step = selected_step(run, number)
    followed = selectors.run_followed(user=request.user, run_id=run_id)
    graph, plan_error = _run_on_plan(request, run)
    return render(
        request,
        "agents/run.html",
        {
            "run": run,
            "op": live.op if live else None,
            "live": live,
            "extra": {"run": run, "timeline": run_timeline(run, now=timezone.now()), "zone": request.workspace.zone},
            "step": step,
            "step_asked": asked and step is not None,
            "following": followed is not None and is_followed(followed),
            "graph": graph,
            "plan_error": plan_error,
            "agent": {"id": run["agent_id"]},
            "approval_rows": approval_rows_of_run(run, may_decide=not refusal, workspace_id=request.workspace.id),
            "decide_refusal": refusal,
            "rerun_form": RerunForm(),
            "previous_run_id": _previous_of(request, run),
            "next": request.get_full_path(),
            "workspace_zone": request.workspace.zone,
        },
    )


def _previous_of(request: ConsoleRequest, run: dict[str, Any]) -> str | None:
    """The agent's run before this one, as the console has read them (no remote call)."""
    if not run["agent_id"] or run["created_at"] is None:
        return None
    return selectors.run_previous(
        workspace_id=request.workspace.id, agent_id=run["agent_id"], started_at=run["created_at"], run_id=run["id"]
    )


@require_POST
@requires_write(READ_ONLY)
def run_rerun(request: ConsoleRequest, run_id: str) -> HttpResponseBase:
    """Send the run's message or payload again, as a new run (a new
    conversation), after the confirmation that showed exactly what goes.
    The run is read again here: what is sent is what the service says woke
    it, never what a form claims."""
    form = RerunForm(request.POST)
    run_id = str(run_id)
    run = read_run(selectors.run_get(client=request.workspace.client, run_id=run_id))
    if not run["agent_id"] or not (run["event_message"] or run["event_payload"] is not None):
        raise Http404("This run has no message or event to send again.")
    if not form.is_valid():
        messages.error(request, gettext("This rerun could not be read; reload the page and confirm again."))
        return client_redirect(request, reverse("agents:run", args=[run_id]))
    try:
        op = services.invocation_start(
            key=request.workspace.require_key(),
            agent_id=run["agent_id"],
            message=run["event_message"],
            payload=run["event_payload"],
            thread_id=None,
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except errors.ApiError as exc:
        remote_error = failed_write(request, form, exc)
        return render(
            request,
            "agents/run.html#rerun",
            {"run": run, "rerun_form": form, "rerun_error": remote_error},
        )
    messages.success(request, gettext("Sent again as a new run."))
    url = reverse("agents:chat", args=[run["agent_id"]]) + f"?sent={op.pk}"
    return client_redirect(request, url)


@require_POST
def run_follow(request: ConsoleRequest, run_id: str) -> HttpResponseBase:
    """Follow a run by choice, or stop (`following` = 1 or 0): a person's own
    preference (what reaches them), no write in the workspace. Only followed
    runs and one's own messages raise "needs you" toasts."""
    run_id = str(run_id)
    body = selectors.run_get(client=request.workspace.client, run_id=run_id)
    run = read_run(body)
    run["id"] = run["id"] or run_id
    following = request.POST.get("following") == "1"
    if run["is_final"]:
        following = False  # nothing more to tell about a run that is over
    else:
        services.run_following_set(
            key=request.workspace.require_key(), run={**body, "id": run["id"]}, following=following
        )
    if not is_partial(request):
        return redirect(reverse("agents:run", args=[run_id]))
    return render(request, "agents/run.html#follow", {"run": run, "following": following, "follow_changed": True})


# --- runs lists -------------------------------------------------------------------------------


@require_GET
def runs(request: ConsoleRequest) -> HttpResponse:
    """Every agent's runs, newest first (or one agent's, when filtered); with
    `q`, the runs whose words hold it, from the console's database alone."""
    if not request.GET and not is_partial(request):
        # The person's default view, when they chose one (agents/run_views.py): its own address.
        default = run_view_default(user_id=request.user.pk, workspace_id=request.workspace.id)
        if default is not None:
            return redirect(run_view_address(default))
    if request.GET.get("q", "").strip():
        context = {**_search_context(request), **_views_bar(request)}
        return render_region(request, "agents/runs.html", "run_results", context)
    status = choice(request.GET.get("status"), RUN_STATUSES, "")
    agent_id = uuid_or_empty(request.GET.get("agent"))
    thread_id = uuid_or_empty(request.GET.get("thread")) if agent_id else ""
    pager = CursorPager.from_query(request.GET)
    read = runs_read(
        workspace=request.workspace, status=status, agent_id=agent_id, thread_id=thread_id, cursor=pager.remote_cursor
    )
    agents, names, found, next_cursor = read.agents, read.names, read.runs, read.next_cursor
    kept = {"status": status, "agent": agent_id, "thread": thread_id}
    context = {
        "status": status,
        "agent_id": agent_id,
        "thread_id": thread_id,
        "agent_choices": sorted(names.items(), key=lambda pair: pair[1].lower()),
        "tabs": tabs(RUN_STATUSES, status, {"agent": agent_id, "thread": thread_id}),
        "run_rows": live_rows(workspace=request.workspace, runs=found),
        "paging": pager.links(kept, next_cursor),
        "agents_beyond": max(len(agents) - MAX_AGENTS, 0) if not agent_id else 0,
        "max_agents": MAX_AGENTS,
        "workspace_zone": request.workspace.zone,
        **_views_bar(request),
    }
    region = "run_results" if request.GET.get("region") == "results" else "run_list"
    return render_region(request, "agents/runs.html", region, context)


def _views_bar(request: ConsoleRequest) -> dict[str, Any]:
    """The saved views above the list (agents/run_views.py): this person's and
    the shared ones, the one open (`?view=`), their default; one query each."""
    if is_partial(request):
        return {}  # the bar is outside the swapped regions
    workspace_id, user_id = request.workspace.id, request.user.pk
    default = run_view_default(user_id=user_id, workspace_id=workspace_id)
    return {
        "run_views": list(run_views_visible(user_id=user_id, workspace_id=workspace_id)),
        "open_view": run_view_get(user_id=user_id, workspace_id=workspace_id, pk=database_id(request.GET.get("view"))),
        "default_view_id": default.pk if default else None,
        "view_form": RunViewForm(initial={"query": request.GET.urlencode()}),
    }


def _search_context(request: ConsoleRequest) -> dict[str, Any]:
    """The runs search: what the console has read of the workspace's runs
    (the insights worker keeps their words), asked to read anew when old;
    no remote call. Agents are named as that worker last read them."""
    asked = request.GET.get("q", "")[:200]
    words = query_words(asked)
    # Only with a working key of the workspace (no key, or a refused one, is said by the frame).
    workspace_id = request.workspace.require_key().workspace_id
    state = services.insights_request(workspace_id=workspace_id)
    names = state.agent_names if isinstance(state.agent_names, dict) else {}
    found = selectors.run_search(workspace_id=workspace_id, words=words) if words else None
    return {
        "searching": True,
        "q": asked,
        "words": words,
        "search": found,
        "found": [
            {"run": run, "agent_name": names.get(run.agent_id) or f"Agent {run.agent_id[:8]}"}
            for run in (found.found if found else [])
        ],
        "refreshed_at": state.refreshed_at,
        "refresh_error": state.error,
        "workspace_zone": request.workspace.zone,
    }


# --- two runs compared ------------------------------------------------------------------------


@require_GET
def runs_compare(request: ConsoleRequest) -> HttpResponse:
    """Two runs side by side (`?run=A&run=B`, the runs list's form without
    JavaScript, or a run's "compare with the previous run"): two remote
    reads, each run with its steps; the earlier run is the first."""
    asked = list(dict.fromkeys(run_id.strip() for run_id in request.GET.getlist("run") if run_id.strip()))
    if len(asked) != 2 or not all(RUN_ID.fullmatch(run_id) for run_id in asked):
        context = {"pick_error": _pick_words(len(asked)), "workspace_zone": request.workspace.zone}
        return render(request, "agents/runs_compare.html", context, status=400)
    client = request.workspace.client
    pair = []
    for run_id in asked:
        run = read_run(selectors.run_get(client=client, run_id=run_id))
        run["id"] = run["id"] or run_id
        pair.append(run)
    if all(run["created_at"] for run in pair):
        pair.sort(key=lambda run: run["created_at"])
    first, second = pair
    context = {
        "first": first,
        "second": second,
        "comparison": compare_runs(first, second),
        "workspace_zone": request.workspace.zone,
    }
    return render(request, "agents/runs_compare.html", context)


def _pick_words(count: int) -> str:
    if count < 2:
        return "Pick two runs to compare: tick two rows of the runs list, then Compare." + (
            " One run was picked." if count == 1 else ""
        )
    return f"Pick two runs to compare, not {count}: untick all but two rows of the runs list."


@background_request
@never_cache
@require_GET
def run_row(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """One live row of a runs list, from the console's row alone (zero remote
    calls): 204 while unchanged, 286 once the run is over."""
    unchanged = poll_unchanged(request, lambda: operation_status_version(user=request.user, operation_id=pk))
    if unchanged is not None:
        return unchanged
    op = operation_for_viewer(user=request.user, operation_id=pk)
    if op.kind != RUN_KIND:
        raise Http404("No such run.")
    run = read_run(op.snapshot if isinstance(op.snapshot, dict) else {})
    run["id"] = run["id"] or op.remote_id
    run["agent_name"] = request.GET.get("name", "")[:120]  # as the list showed it (display only)
    live = operation_view(op=op) if not op.is_final else None
    context = {
        "row": {"run": run, "live": live},
        "with_agent": request.GET.get("agent") == "1",
        # The list's compare form, as the list named it (its checkbox survives the swap).
        "compare_form": "run-compare" if request.GET.get("compare") == "run-compare" else "",
        "workspace_zone": op.owner_key.zone,
    }
    return stop_polling(render(request, "agents/_run_row.html", context), final=op.is_final)
