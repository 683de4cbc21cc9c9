"""Chat with an agent: its threads, one thread continued, a message sent
(the worker streams the answer into the tracked row; the browser polls the
console only)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from agents import selectors, services
from agents.forms import ChatForm, uuid_or_empty
from agents.pages import READ_ONLY
from agents.reading import read_agent
from agents.run_reading import read_run
from dashboard.api import errors
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.remote_errors import RemoteErrorView
from dashboard.frame.workspace import ConsoleRequest
from dashboard.live.models import TrackedOperation
from dashboard.live.selectors import operation_view
from dashboard.web.htmx import render_region
from dashboard.web.pager import CursorPager
from dashboard.web.params import database_id

# Runs read to gather threads: one page of the largest size the contract allows.
THREAD_RUNS = 100


def _chat_url(agent_id: str, **query: Any) -> str:
    url = reverse("agents:chat", args=[agent_id])
    query = {name: value for name, value in query.items() if value}
    return f"{url}?{urlencode(query)}" if query else url


def _sent_op(request: ConsoleRequest, agent_id: str, value: Any) -> TrackedOperation | None:
    """This person's message (a tracked row) to this agent, from a `sent` or
    `after` number in the query or form; None for anything else."""
    op_id = database_id(value)
    if op_id is None:
        return None
    ops = selectors.invocations_by_id(user=request.user, agent_id=agent_id, operation_id=op_id)
    return ops[0] if ops else None


def _whose(request: ConsoleRequest, starter: Any, *, mine: bool) -> str:
    """ "you", a teammate's name, or "" (begun outside the console)."""
    if starter is not None and starter.pk != request.user.pk:
        return starter.get_full_name() or starter.get_username()
    return "you" if starter is not None or mine else ""


def _chat_page(
    request: ConsoleRequest,
    agent_id: str,
    *,
    form: ChatForm | None = None,
    remote_error: RemoteErrorView | None = None,
    sent: TrackedOperation | None = None,
) -> HttpResponse:
    thread_id = uuid_or_empty(request.GET.get("thread") or request.POST.get("thread_id"))
    client = request.workspace.client
    agent = read_agent(selectors.agent_get(client=client, agent_id=agent_id), asked_id=agent_id)
    if sent is not None:
        # A first message whose conversation id has not come back yet: the
        # message alone, and the form continues after it.
        messages_in_thread = [operation_view(op=sent)]
    elif thread_id:
        messages_in_thread = selectors.invocations_in_thread(user=request.user, agent_id=agent_id, thread_id=thread_id)
    else:
        messages_in_thread = []
    earlier = []
    if thread_id:
        # Turns of this conversation sent from elsewhere (another person, the
        # API, a rerun): the service lists them as the thread's runs, newest first.
        followed = {
            str((view.op.snapshot or {}).get("run_id") or (view.op.context or {}).get("run_id"))
            for view in messages_in_thread
        }
        runs = selectors.run_list(client=client, agent_id=agent_id, thread_id=thread_id, limit=THREAD_RUNS).items
        earlier = [run for run in map(read_run, reversed(runs)) if run["id"] not in followed]
    initial = {"thread_id": thread_id or None, "after": sent.pk if sent is not None else None}
    starter = (
        selectors.conversation_starter(workspace_id=request.workspace.id, agent_id=agent_id, thread_id=thread_id)
        if thread_id and sent is None
        else None
    )
    return render(
        request,
        "agents/chat.html",
        {
            "agent": agent,
            "thread_id": thread_id,
            "thread": messages_in_thread,
            # A conversation is under way once a first message went (its id may not be back yet).
            "in_conversation": bool(thread_id or sent is not None),
            "whose": _whose(request, starter, mine=sent is not None or bool(messages_in_thread)),
            "earlier": earlier,
            "workspace_zone": request.workspace.zone,
            "form": form or ChatForm(initial=initial),
            "remote_error": remote_error,
        },
    )


@require_GET
def chat(request: ConsoleRequest, agent_id: str) -> HttpResponseBase:
    sent = _sent_op(request, str(agent_id), request.GET.get("sent"))
    if sent is not None:
        thread_id = (sent.context or {}).get("thread_id") or (sent.snapshot or {}).get("thread_id")
        if thread_id:
            return redirect(_chat_url(str(agent_id), thread=thread_id))
    return _chat_page(request, str(agent_id), sent=sent)


@require_POST
@requires_write(READ_ONLY)
def chat_send(request: ConsoleRequest, agent_id: str) -> HttpResponseBase:
    form = ChatForm(request.POST)
    if not form.is_valid():
        return _chat_page(request, str(agent_id), form=form)
    data = form.cleaned_data
    thread_id = str(data["thread_id"]) if data["thread_id"] else ""
    if not thread_id and data.get("after"):
        # Continuing after a first message: its conversation, learnt since.
        after = _sent_op(request, str(agent_id), data["after"])
        thread_id = str(((after.context or {}).get("thread_id") if after else "") or "")
    try:
        op = services.invocation_start(
            key=request.workspace.require_key(),
            agent_id=str(agent_id),
            message=(data["message"] or "").strip(),
            payload=data["payload"],
            thread_id=thread_id or None,
            idempotency_key=data["idempotency_key"],
        )
    except errors.ApiError as exc:
        return _chat_page(request, str(agent_id), form=form, remote_error=failed_write(request, form, exc))
    op.refresh_from_db()  # a stream run at once (eager tasks) may know the conversation already
    thread_id = (op.context or {}).get("thread_id") or thread_id
    return redirect(_chat_url(str(agent_id), thread=thread_id) if thread_id else _chat_url(str(agent_id), sent=op.pk))


# --- threads -------------------------------------------------------------------------------


def read_threads(runs: list[dict]) -> list[dict[str, Any]]:
    """Runs (newest first) gathered by conversation, the latest activity
    first: each thread with its newest run, its first message in this page
    and how many of its runs the page holds."""
    threads: dict[str, dict[str, Any]] = {}
    for run in runs:
        if not run["thread_id"]:
            continue
        thread = threads.setdefault(
            run["thread_id"], {"id": run["thread_id"], "latest": run, "first": run, "count": 0, "waiting": False}
        )
        thread["first"] = run  # runs come newest first: the last seen is the oldest
        thread["count"] += 1
        thread["waiting"] = thread["waiting"] or run["status"] in ("running", "waiting")
    return list(threads.values())


@require_GET
def threads(request: ConsoleRequest, agent_id: str) -> HttpResponse:
    """An agent's conversations, from its runs (the service has no list of
    threads: runs carry `thread_id`), a page of runs at a time."""
    client = request.workspace.client
    pager = CursorPager.from_query(request.GET)
    agent = read_agent(selectors.agent_get(client=client, agent_id=str(agent_id)), asked_id=str(agent_id))
    page = selectors.run_list(client=client, agent_id=str(agent_id), cursor=pager.remote_cursor, limit=THREAD_RUNS)
    context = {
        "agent": agent,
        "threads": read_threads([read_run(item) for item in page.items]),
        "paging": pager.links({}, page.next_cursor),
        "workspace_zone": request.workspace.zone,
    }
    return render_region(request, "agents/threads.html", "thread_list", context)
