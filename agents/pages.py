"""What several Agents pages show alike, given `request.workspace`, the user
and the query (never the request): approval rows (the queue, a run's page,
the inbox post them all to `approval_decide`), who may decide them, the
runs of an agent as rows (the agent page, the runs list), and the insights
(their pages and the agent page's section). Views parse, call
this, selectors or services, and render; no view imports another."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import PermissionsMixin
from django.urls import reverse
from django.utils import timezone

from agents import selectors, services
from agents.forms import RUN_STATUSES, ApprovalDecisionForm, uuid_or_empty
from agents.insights import (
    DEFAULT_WINDOW,
    OUTCOME_WORDS,
    OUTCOMES,
    WINDOWS,
    Fact,
    insights_charts,
    insights_summary,
    window_start,
)
from agents.models import InsightsRefresh
from agents.queue import decided_by_service, deciders, waited_words
from agents.reading import read_agent_summary
from agents.run_reading import read_run
from agents.runs_across import runs_across
from dashboard.live.selectors import operation_view
from dashboard.people.roles import DECIDE_APPROVALS
from dashboard.web.pager import CursorPager, Tab, choice, tabs

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.http import QueryDict

    from dashboard.frame.workspace import Workspace

# What a member whose workspace role only reads is told by every write address
# of the area (`requires_write`; a console role that only reads is told the
# core's one sentence instead).
READ_ONLY = (
    "Agents are drafted, changed, run and talked to, and their approvals decided, only by a member "
    "who may write: ask a workspace admin for such a role."
)
# Deciding is the console role's word (Approver, Administrator), on top of writing.
DECIDE_PERMISSION = DECIDE_APPROVALS
NOT_AN_APPROVER = "Only Approvers decide approvals. Ask an administrator to make you an Approver (People page)."
# The event a decision's answer carries (`{"ids": [...]}`): the queue's pane reads again an
# approval it shows that was just decided elsewhere on the page (static/js/approvals.js).
APPROVALS_DECIDED = "approvals-decided"


# --- approvals --------------------------------------------------------------------------


def is_approver(user: AbstractBaseUser) -> bool:
    # A user model without permissions has no role to ask.
    return isinstance(user, PermissionsMixin) and user.has_perm(DECIDE_PERMISSION)


def decide_refusal(*, workspace: Workspace, user: AbstractBaseUser) -> str:
    """Why this person may not decide approvals here ("" when they may): the
    note above the queue, the run's approvals and the inbox's (the view
    refuses a forged post itself, with `requires_write` then
    `requires_permission`, in the same order: the console role, the
    workspace's role, then Approver)."""
    if not workspace.console_may_write:
        return f"Your console role is {workspace.console_role}: you can see the queue, not decide."
    if not workspace.key_may_write:
        role = workspace.member_role or "read-only"
        return f"Your role in this workspace is {role}: you can see the queue, not decide."
    if not is_approver(user):
        return NOT_AN_APPROVER
    return ""


def _decision_form(approval: dict[str, Any], *, may_decide: bool) -> ApprovalDecisionForm | None:
    """The row's form (one key per decision) when it is pending and this person may decide."""
    if approval["status"] != "pending" or not may_decide:
        return None
    return ApprovalDecisionForm(
        initial={"agent_id": approval["agent_id"] or None}, auto_id=decision_ids(approval["id"])
    )


def decision_ids(approval_id: str) -> str:
    """The ids of a row's form fields ("approval-<id>-note"): several rows share a page."""
    return f"approval-{approval_id}-%s"


def approval_row(
    approval: dict[str, Any],
    *,
    agent_names: dict[str, str],
    may_decide: bool,
    outcome: Any = None,
    notice: str = "",
    form: ApprovalDecisionForm | None = None,
    decided_by: str = "",
) -> dict[str, Any]:
    """One row of the queue (`agents/approvals.html#approval_row`, and its
    dense line `#queue_item`): with the time it has waited and who decided it."""
    return {
        "approval": approval,
        "agent_name": approval["agent_name"] or agent_names.get(approval["agent_id"], ""),
        "form": form or _decision_form(approval, may_decide=may_decide),
        "outcome": read_run(outcome) if isinstance(outcome, dict) and outcome else None,
        "outcome_raw": outcome,
        "notice": notice,
        "waited": waited_words(approval["requested_at"]) if approval["status"] == "pending" else "",
        "decided_by": decided_by or decided_by_service(approval.get("raw")),
        # Bulk decisions take the pending ones that need no confirmation (agents/bulk_decisions.py).
        "bulk": may_decide and approval["status"] == "pending" and not approval["needs_confirmation"],
    }


def approval_rows_of_run(run: dict[str, Any], *, may_decide: bool, workspace_id: str = "") -> list[dict[str, Any]]:
    """A run's approvals as rows of the queue (the same partial, form and
    decision view), decidable on the run page by whoever may decide; a
    decided one names the console person who decided it, where the console
    knows (its audit trail, one query), not the service key's owner."""
    approvals = [approval for approval in run["approvals"] if approval["id"]]
    decided = deciders(workspace_id=workspace_id, approval_ids=[a["id"] for a in approvals]) if workspace_id else {}
    rows = []
    for approval in approvals:
        approval["agent_id"] = approval["agent_id"] or run["agent_id"]
        approval["run_id"] = approval["run_id"] or run["id"]
        rows.append(
            approval_row(approval, agent_names={}, may_decide=may_decide, decided_by=decided.get(approval["id"], ""))
        )
    return rows


# --- runs as rows -----------------------------------------------------------------------


def read_runs(items: list[Any]) -> list[dict[str, Any]]:
    """Runs as the lists show them, each with its body (`raw`) to follow it."""
    runs = []
    for item in items:
        run = read_run(item)
        run["raw"] = item
        runs.append(run)
    return runs


def live_rows(*, workspace: Workspace, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The list's rows; a run still going is tracked (a row, made once per
    run and person) and its row polls the console for it. Tracking is not
    following: seeing a list subscribes nobody to its runs' news."""
    rows = []
    key = None
    for run in runs:
        live = None
        if run["id"] and not run["is_final"] and run["status"]:
            key = key or workspace.require_key()
            op = services.run_follow(key=key, run=run["raw"])
            if op is not None and not op.is_final:
                live = operation_view(op=op)
        rows.append({"run": run, "live": live})
    return rows


@dataclass(frozen=True)
class RunsRead:
    """One page of the runs list: the runs (read, each with its agent's name),
    the next page's cursor, and the agents the filter offers."""

    runs: list[dict[str, Any]]
    next_cursor: str | None
    agents: list[dict[str, Any]]
    names: dict[str, str]


def runs_read(*, workspace: Workspace, status: str, agent_id: str, thread_id: str, cursor: str | None) -> RunsRead:
    """Every agent's runs newest first, or one agent's (and one thread's):
    what the runs page lists and the API answers. One read of the agents,
    then one page of one agent's runs, or one merged page across agents."""
    client = workspace.client
    agents = [
        read_agent_summary(item)
        for item in selectors.agent_list(client=client, status=None, cursor=None, limit=100).items
    ]
    names = {agent["id"]: agent["name"] for agent in agents}
    if agent_id:
        page = selectors.run_list(
            client=client, agent_id=agent_id, status=status or None, thread_id=thread_id or None, cursor=cursor
        )
        found = read_runs(page.items)
        for run in found:
            run["agent_id"] = run["agent_id"] or agent_id
        next_cursor = page.next_cursor
    else:
        found, next_cursor = runs_across(client=client, agents=agents, status=status or None, cursor=cursor)
    for run in found:
        run["agent_name"] = run.get("agent_name") or names.get(run["agent_id"], "")
    return RunsRead(runs=found, next_cursor=next_cursor, agents=agents, names=names)


def agent_runs_context(*, workspace: Workspace, query: QueryDict, agent_id: str) -> dict[str, Any]:
    """One agent's runs (a region of the agent page): by status and
    conversation, newest first, paged."""
    status = choice(query.get("status"), RUN_STATUSES, "")
    thread_id = uuid_or_empty(query.get("thread"))
    pager = CursorPager.from_query(query)
    page = selectors.run_list(
        client=workspace.client,
        agent_id=agent_id,
        status=status or None,
        thread_id=thread_id or None,
        cursor=pager.remote_cursor,
    )
    kept = {"status": status, "thread": thread_id}
    return {
        "run_status": status,
        "run_thread": thread_id,
        "run_tabs": tabs(RUN_STATUSES, status, {"thread": thread_id}, region="runs"),
        "run_rows": live_rows(workspace=workspace, runs=read_runs(page.items)),
        "run_paging": pager.links(kept, page.next_cursor, region="runs"),
    }


# --- insights (agents:insights, agents:agent_insights, the agent page's section) ----------

WINDOW_CHOICES = tuple((str(days), f"Last {days} days") for days in WINDOWS)


def insights_window(query: QueryDict) -> int:
    """The window the query asks for (7 or 30 days), 7 for anything else."""
    return int(choice(query.get("days"), WINDOW_CHOICES, str(DEFAULT_WINDOW)))


def _updating(state: InsightsRefresh | None, now: datetime) -> bool:
    """A refresh is on its way: asked for within the interval, not tried since."""
    asked = state.requested_at if state is not None else None
    return (
        state is not None
        and asked is not None
        and (state.tried_at is None or state.tried_at < asked)
        and now - asked < timedelta(seconds=services.insights_refresh_seconds())
    )


def _state_version(state: InsightsRefresh | None, now: datetime) -> str:
    if state is None:
        return "none"
    parts = (state.refreshed_at, state.tried_at, state.requested_at, state.error, _updating(state, now))
    return hashlib.blake2s("|".join(str(part) for part in parts).encode(), digest_size=8).hexdigest()


def insights_version(*, workspace_id: str, now: datetime | None = None) -> str:
    """What the insights region's poll compares: the refresh state it shows (one query)."""
    state = InsightsRefresh.objects.filter(workspace_id=workspace_id).first()
    return _state_version(state, now or timezone.now())


def _freshness(state: InsightsRefresh, now: datetime) -> dict[str, Any]:
    """What the page says of its numbers' age: when they were read, whether a
    refresh is on its way, why the last one failed, and the version its poll
    carries while one is on its way."""
    return {
        "refreshed_at": state.refreshed_at,
        "updating": _updating(state, now),
        "error": state.error,
        "version": _state_version(state, now),
    }


def insights_context(
    *, workspace: Workspace, query: QueryDict, agent_id: str | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """What the insights region shows: the window's summary, its charts,
    its window tabs and, across agents, a row per agent. The database only;
    asks the worker for a refresh when the numbers are old (the outbox)."""
    now = now or timezone.now()
    days, zone, workspace_id = insights_window(query), workspace.zone, workspace.id
    state = services.insights_request(workspace_id=workspace_id, now=now)
    facts = selectors.insights_facts(
        workspace_id=workspace_id, since=window_start(days=days, now=now, zone=zone), agent_id=agent_id
    )
    summary = insights_summary(facts, days=days, now=now, zone=zone)
    names = state.agent_names if isinstance(state.agent_names, dict) else {}
    # The agent page's section swaps itself from the agent's own insights page
    # (a link that also works without JavaScript); the across page keeps its address.
    url = reverse("agents:agent_insights", args=[agent_id]) if agent_id else reverse("agents:insights")
    context: dict[str, Any] = {
        "days": days,
        "summary": summary,
        "charts": insights_charts(summary),
        "outcomes": [(key, OUTCOME_WORDS[key]) for key in OUTCOMES],
        "freshness": _freshness(state, now),
        "workspace_zone": zone,
        "window_tabs": [
            Tab(label=label, url=f"{url}?days={value}", hx_url=f"{url}?days={value}", active=value == str(days))
            for value, label in WINDOW_CHOICES
        ],
        # The across page keeps the window in its address; the agent page's section does not
        # (the address is the agent page's).
        "push_tabs": agent_id is None,
        "insights_agent_id": agent_id or "",
        "insights_agent_name": (names.get(agent_id) or f"Agent {agent_id[:8]}") if agent_id else "",
    }
    if agent_id is None:
        context["agent_rows"] = _agent_rows(facts, names, days=days, now=now, zone=zone)
    return context


def _agent_rows(
    facts: list[Fact], names: dict[str, str], *, days: int, now: datetime, zone: tzinfo
) -> list[dict[str, Any]]:
    """A row per agent with runs in the window, most runs first; an agent the
    last refresh didn't name (deleted since) is named by its id's start."""
    by_agent: dict[str, list[Fact]] = defaultdict(list)
    for fact in facts:
        by_agent[fact.agent_id].append(fact)
    rows = [
        (names.get(agent_id) or f"Agent {agent_id[:8]}", agent_id, insights_summary(own, days=days, now=now, zone=zone))
        for agent_id, own in by_agent.items()
    ]
    rows.sort(key=lambda row: (-row[2].runs, row[0].lower()))
    return [{"agent_id": agent_id, "name": name, "summary": summary} for name, agent_id, summary in rows]
