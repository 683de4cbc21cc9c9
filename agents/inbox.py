"""What the Agents area adds to the inbox (dashboard/inbox/sources.py):

- from the service, through the task `inbox.refresh_workspace` (`refresh`):
  the workspace's pending approvals across agents, and runs waiting for a
  person or failed lately, whatever woke them (a webhook, a schedule, chat);
- from the console's database (`items`): those stored rows, the builder's
  open questions (`BuilderAnswer`, any member answers them) and this
  person's own tracked runs and chat messages that wait for them or failed.

An approval is a line in the inbox (risk, agent, time left, who is on it)
linking to exactly it in the approvals queue, where its exact input stands
beside the buttons (the one decision flow, agents/decisions.py). The line
costs no query of its own: a page of 1,000 waiting costs what one of 50 does.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.db import connection
from django.db.models import Field
from django.urls import reverse
from django.utils.translation import gettext, ngettext

from agents.deadlines import approval_due_at, deadline_overrides
from agents.deadlines import time_left as left_until
from agents.events import approvals_requested
from agents.live import INVOCATION_KIND, RUN_KIND, is_followed, waits_for_a_person
from agents.models import BuilderAnswer
from agents.pages import decide_refusal
from agents.queue import NAMES_KIND, SOURCE, stored_agent_names
from agents.reading import read_agent_summary, read_approval
from agents.run_reading import read_run
from agents.selectors import agent_list, approval_list, run_list
from agents.tell_apart import tell_apart
from dashboard.api.paths import api_path
from dashboard.inbox.selectors import failures_since, stored_items
from dashboard.inbox.sources import (
    ACTION_ANSWER,
    ACTION_APPROVE,
    KIND_APPROVAL,
    KIND_FAILED,
    KIND_QUESTION,
    KIND_WAITING,
    InboxItem,
    InboxSource,
    InboxViewer,
    StoredItem,
)
from dashboard.live.models import TrackedOperation
from dashboard.web.reading import as_dict, as_list, text

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest

NAMES_ID = NAMES_KIND
# How much one refresh reads, at most: pages of 100 approvals and agents, runs per agent and status.
MAX_PAGES = 10
RUNS_PER_AGENT = 25
WOKEN_BY = {
    "chat": "a chat message",
    "webhook": "a webhook",
    "schedule": "the schedule",
    "object_created": "a new record",
    "object_updated": "a changed record",
    "integration_trigger": "an integration",
    "app_call": "an app",
}


# --- refresh (the task only: remote reads) ------------------------------------------------


def _all_pages(read, **query) -> list[Any]:
    items: list[Any] = []
    cursor = None
    for _ in range(MAX_PAGES):
        page = read(cursor=cursor, limit=100, **query)
        items.extend(page.items)
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    return items


# What an inbox item shows of a run; its steps and tasks stay on the run's page.
RUN_MEMBERS_KEPT = ("id", "run_id", "agent_id", "status", "waiting_for", "event", "error", "created_at", "completed_at")


def _kept_of_run(item: Any) -> dict[str, Any]:
    run = as_dict(item)
    return {name: run[name] for name in RUN_MEMBERS_KEPT if name in run}


def _pending_approvals(client, names: dict[str, str]) -> list[StoredItem]:
    stored = []
    for item in _all_pages(lambda **q: approval_list(client=client, status="pending", **q)):
        approval = read_approval(item)
        if not approval["id"] or approval["status"] != "pending":
            continue
        stored.append(
            StoredItem(
                remote_id=f"approval:{approval['id']}",
                kind=KIND_APPROVAL,
                data={"approval": item, "agent_name": approval["agent_name"] or names.get(approval["agent_id"], "")},
                since=approval["requested_at"],
                settle_path=api_path("/v1/approvals/{}", approval["id"]),
            )
        )
    return stored


def approvals_refresh(client, workspace_id: str) -> list[StoredItem]:
    """The quick read of a workspace someone is looking at: its pending
    approvals only (usually one call), named with the agents' names the
    last full refresh kept."""
    approvals = _pending_approvals(client, stored_agent_names(workspace_id=workspace_id))
    approvals_requested(workspace_id=workspace_id, source=SOURCE, stored=approvals)
    return approvals


def refresh(client, workspace_id: str) -> list[StoredItem]:
    """The workspace's pending approvals, and runs of every agent that wait
    for a person or failed within INBOX_FAILED_DAYS."""
    agents = [read_agent_summary(item) for item in _all_pages(lambda **q: agent_list(client=client, status=None, **q))]
    names = {agent["id"]: agent["name"] for agent in agents if agent["id"]}
    # The agents' names, for the items the console knows of itself (builder questions, own runs).
    stored: list[StoredItem] = [StoredItem(remote_id=NAMES_ID, kind=NAMES_KIND, data={"names": names})]
    approvals = _pending_approvals(client, names)
    # Before the refresh keeps them: what the inbox did not hold yet is news (outbound events).
    approvals_requested(workspace_id=workspace_id, source=SOURCE, stored=approvals)
    stored += approvals
    cutoff = failures_since()
    for agent_id, name in names.items():
        for status in ("waiting", "failed"):
            page = run_list(client=client, agent_id=agent_id, status=status, limit=RUNS_PER_AGENT)
            for item in page.items:
                run = read_run(item)
                if not run["id"] or run["status"] != status:
                    continue
                if status == "waiting" and not waits_for_a_person(as_dict(item)):
                    continue  # a time or an event comes by itself
                ended = run["completed_at"] or run["created_at"]
                if status == "failed" and ended is not None and ended < cutoff:
                    continue  # (without a time, it is aged from when the console first saw it)
                approval_id = (run["waiting_for"] or {}).get("approval_id") if status == "waiting" else ""
                stored.append(
                    StoredItem(
                        remote_id=f"run:{run['id']}",
                        kind=KIND_WAITING if status == "waiting" else KIND_FAILED,
                        data={"run": _kept_of_run(item), "agent_id": agent_id, "agent_name": name},
                        since=run["created_at"] if status == "waiting" else ended,
                        # Deciding the approval it waits for settles the run too.
                        settle_path=api_path("/v1/approvals/{}", approval_id) if approval_id else "",
                    )
                )
    return stored


# --- items (the console's database only) --------------------------------------------------


def _woken_by(run: dict) -> str:
    kind = run["event_kind"]
    return WOKEN_BY.get(kind, f"a {kind.replace('_', ' ')} event" if kind else "the agent")


def _quoted(message: str) -> str:
    message = " ".join(message.split())
    return f"“{message[:120]}{'…' if len(message) > 120 else ''}”" if message else ""


def _run_item(run: dict, *, kind: str, agent_id: str, agent_name: str, started_by: str, since) -> InboxItem:
    agent = agent_name or "an agent"
    asked = _quoted(run["event_message"])
    if kind == KIND_FAILED:
        title = f"A run of {agent} failed" + (f": {run['error_message']}" if run["error_message"] else "")
    else:
        waiting_for = (run["waiting_for"] or {}).get("kind") or "a person"
        title = f"A run of {agent} waits for {'an ' if waiting_for == 'approval' else ''}{waiting_for}"
    if asked:
        title = f"{title} ({asked})"
    return InboxItem(
        key=f"run:{run['id']}",
        kind=kind,
        title=title,
        started_by=started_by,
        since=since,
        url=reverse("agents:run", args=[run["id"]]),
        agent_id=agent_id,
        agent_name=agent_name,
        area=SOURCE,
    )


def _stored(rows) -> list[InboxItem]:
    items = []
    cutoff = failures_since()
    overrides = None
    for row in rows:
        data = as_dict(row.data)
        if row.kind == KIND_APPROVAL:
            approval = read_approval(as_dict(data.get("approval")))
            if not approval["id"] or approval["status"] != "pending":
                continue
            name = text(data.get("agent_name")) or approval["agent_name"]
            if overrides is None:  # one query, only when there are approvals
                overrides = deadline_overrides(workspace_id=row.workspace_id)
            since = approval["requested_at"] or row.since
            items.append(
                InboxItem(
                    key=f"approval:{approval['id']}",
                    kind=KIND_APPROVAL,
                    title=approval["summary"],
                    started_by=f"the agent {name}" if name else "an agent",
                    since=since,
                    # Exactly this approval, selected in the queue (its agent's, so it is on the first page).
                    url=reverse("agents:approvals")
                    + "?"
                    + urlencode(
                        {"agent": approval["agent_id"], "approval": approval["id"]}
                        if approval["agent_id"]
                        else {"approval": approval["id"]}
                    ),
                    action=ACTION_APPROVE,
                    agent_id=approval["agent_id"],
                    agent_name=name,
                    area=SOURCE,
                    template="agents/inbox_approval.html",
                    data={"approval": approval},
                    covers=(f"run:{approval['run_id']}",) if approval["run_id"] else (),
                    risk=approval["risk"],
                    due_at=approval_due_at(
                        requested_at=since, agent_id=approval["agent_id"], risk=approval["risk"], overrides=overrides
                    ),
                )
            )
        elif row.kind in (KIND_WAITING, KIND_FAILED):
            run = read_run(as_dict(data.get("run")))
            if row.kind == KIND_FAILED and row.since is not None and row.since < cutoff:
                continue
            if run["id"]:
                items.append(
                    _run_item(
                        run,
                        kind=row.kind,
                        agent_id=text(data.get("agent_id")) or run["agent_id"],
                        agent_name=text(data.get("agent_name")),
                        started_by=_woken_by(run),
                        since=row.since,
                    )
                )
    return _told_apart(items)


def _told_apart(items: list[InboxItem]) -> list[InboxItem]:
    """Approvals with the same summary, each with what tells it from the others."""
    phrases = tell_apart(item.data["approval"] for item in items if item.kind == KIND_APPROVAL)
    return [
        replace(item, detail=phrases[item.data["approval"]["id"]])
        if item.kind == KIND_APPROVAL and item.data["approval"]["id"] in phrases
        else item
        for item in items
    ]


def _builder_questions(viewer: InboxViewer, names: dict[str, str]) -> list[InboxItem]:
    items = []
    answers = BuilderAnswer.objects.filter(
        workspace_id=viewer.workspace_id, status=BuilderAnswer.STATUS_NEEDS_INPUT
    ).select_related("asked_by")
    for answer in answers:
        questions = [text(as_dict(question).get("text")) for question in as_list(answer.questions)]
        questions = [question for question in questions if question]
        count = len(questions)
        # The questions and the builder's message are the service's words, not translated.
        title = (
            ngettext(
                "The agent builder asks %(count)s question: %(question)s",
                "The agent builder asks %(count)s questions: %(question)s",
                count,
            )
            % {"count": count, "question": questions[0]}
            if questions
            else (answer.message or gettext("The agent builder needs an answer"))
        )
        # Which agent it is about: two drafts' questions read alike otherwise.
        name = names.get(answer.agent_id, "")
        title = f"{title} (agent {name})" if name else f"{title} (a draft agent)"
        items.append(
            InboxItem(
                key=f"builder:{answer.agent_id}",
                kind=KIND_QUESTION,
                title=title,
                started_by=answer.asked_by.get_username() if answer.asked_by else "a former member",
                since=answer.answered_at,
                url=reverse("agents:detail", args=[answer.agent_id]) + "#agent-change",
                action=ACTION_ANSWER,
                agent_id=answer.agent_id,
                agent_name=names.get(answer.agent_id, ""),
                area=SOURCE,
            )
        )
    return items


def _own_work(viewer: InboxViewer, names: dict[str, str]) -> list[InboxItem]:
    """This person's chat messages and the runs they follow that wait for
    them, or failed lately (a run a list only showed live is not theirs);
    one item per run, however many rows track it."""
    ops = [op for op in viewer.operations if op.kind == INVOCATION_KIND or (op.kind == RUN_KIND and is_followed(op))]
    cutoff = failures_since()
    items = []
    seen: set[str] = set()
    for op in ops:
        snapshot = op.snapshot if isinstance(op.snapshot, dict) else {}
        if op.is_final and op.status in ("failed", TrackedOperation.STATUS_STOPPED) and op.updated_at >= cutoff:
            kind = KIND_FAILED
        elif not op.is_final and waits_for_a_person(snapshot):
            kind = KIND_WAITING
        else:
            continue
        run = read_run(snapshot)
        run["id"] = run["id"] or text((op.context or {}).get("run_id")) or (op.remote_id if op.kind == RUN_KIND else "")
        run["event_message"] = run["event_message"] or op.title
        if not run["id"] or run["id"] in seen:
            continue
        seen.add(run["id"])
        agent_id = text((op.context or {}).get("agent_id")) or run["agent_id"]
        items.append(
            _run_item(
                run,
                kind=kind,
                agent_id=agent_id,
                agent_name=names.get(agent_id, ""),
                # A followed run is not the person's: what woke it started it.
                started_by=op.started_by.get_username() if op.kind == INVOCATION_KIND else _woken_by(run),
                # The run's own times (the service's), never when the console began following it.
                since=(run["completed_at"] or op.updated_at)
                if kind == KIND_FAILED
                else (run["created_at"] or op.created_at),
            )
        )
    return items


def _names_in(rows) -> dict[str, str]:
    names_row = next((row for row in rows if row.kind == NAMES_KIND), None)
    return {text(k): text(v) for k, v in as_dict(as_dict(names_row.data).get("names") if names_row else {}).items()}


def agent_names_known(*, workspace_id: str) -> dict[str, str]:
    """Agent id -> name as the last inbox refresh read them (no remote call)."""
    return _names_in(stored_items(workspace_id=workspace_id, source=SOURCE))


def items(viewer: InboxViewer) -> list[InboxItem]:
    rows = stored_items(workspace_id=viewer.workspace_id, source=SOURCE)
    names = _names_in(rows)
    # The service's rows first: they know the agent's name and win a shared key.
    return [*_stored(rows), *_builder_questions(viewer, names), *_own_work(viewer, names)]


@functools.cache
def _stamp_sql(vendor: str) -> str:
    # Written out once (names from the model): the header poll runs it on every unchanged answer.
    table = connection.ops.quote_name(BuilderAnswer._meta.db_table)

    def column(name: str) -> str:
        field = BuilderAnswer._meta.get_field(name)
        assert isinstance(field, Field)  # a concrete column of the row
        return connection.ops.quote_name(field.column)

    return (
        f"SELECT COUNT(*), MAX({column('answered_at')}) FROM {table} "
        f"WHERE {column('workspace_id')} = %s AND {column('status')} = %s"
    )


def stamp(viewer: InboxViewer) -> str:
    """What changes the builder's open questions of the workspace (one statement)."""
    with connection.cursor() as cursor:
        cursor.execute(_stamp_sql(connection.vendor), [viewer.workspace_id, BuilderAnswer.STATUS_NEEDS_INPUT])
        count, last = cursor.fetchone()
    return f"{count}/{last}"


def item_context(item: InboxItem, request: ConsoleRequest) -> dict[str, Any]:
    """An approval's line: its risk and the time left to decide (from the
    item's own deadline, no query). Deciding is the queue's, where the exact
    input is shown beside the buttons; the line links to it selected."""
    if item.kind != KIND_APPROVAL:
        return {}
    # The person's role and permissions are read once per request (the user's permission cache).
    refusal = decide_refusal(workspace=request.workspace, user=request.user)
    context: dict[str, Any] = {"approval": item.data["approval"], "left": left_until(item.due_at)}
    if refusal:
        context.update(decide_refusal=refusal, action_label="Open")
    return context


AGENTS_INBOX = InboxSource(
    name=SOURCE,
    items=items,
    refresh=refresh,
    refresh_after=("/v1/approvals/",),
    watched_refresh=approvals_refresh,
    watched_kinds=(KIND_APPROVAL,),
    context=item_context,
    stamp=stamp,
)
