"""Runs and insights in the console's API (dashboard/console_api): the runs
list with the runs page's filters and cursor (agents/pages.py `runs_read`),
one run with its steps (the run page's read), and the insights as their
pages compute them (`insights_context`: the console's database only).
Scope `read`; a refusal costs no remote call."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, QueryDict
from ninja import Router

from agents import selectors
from agents.forms import RUN_STATUSES, uuid_or_empty
from agents.pages import insights_context, runs_read
from agents.run_reading import read_run
from dashboard.console_api.api import ApiRefusal, require_scope
from dashboard.tokens.scopes import READ
from dashboard.web.pager import MAX_CURSOR_LENGTH, choice

router = Router(tags=["runs"])

# What a run says of itself in the API: what the run page reads, without the console's own display helpers.
LEFT_OUT = frozenset({"raw", "duration"})


def _run(run: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in run.items() if key not in LEFT_OUT}


@router.get("/runs", summary="Every agent's runs newest first, or one agent's (the runs page's filters and cursor)")
def runs_list(request: HttpRequest, status: str = "", agent: str = "", thread: str = "", cursor: str = "") -> Any:
    require_scope(request, READ)
    statuses = {value for value, _ in RUN_STATUSES}
    if status not in statuses:
        known = ", ".join(value for value in statuses if value)
        raise ApiRefusal(422, "bad_filter", f"“{status[:40]}” is not a run status: use one of {known}, or none.")
    agent_id = uuid_or_empty(agent)
    if agent and not agent_id:
        raise ApiRefusal(422, "bad_filter", "`agent` is an agent's id (a UUID).")
    read = runs_read(
        workspace=request.workspace,  # type: ignore[attr-defined]
        status=choice(status, RUN_STATUSES, ""),
        agent_id=agent_id,
        thread_id=uuid_or_empty(thread) if agent_id else "",
        cursor=cursor[:MAX_CURSOR_LENGTH] or None,
    )
    return {"data": [_run(run) for run in read.runs], "next": read.next_cursor, "more": read.next_cursor is not None}


@router.get(
    "/runs/{remote_id:run_id}", summary="One run with its steps, tasks and approvals (as the run page reads it)"
)
def run_one(request: HttpRequest, run_id: str) -> Any:
    require_scope(request, READ)
    run = read_run(selectors.run_get(client=request.workspace.client, run_id=run_id))  # type: ignore[attr-defined]
    run["id"] = run["id"] or run_id
    return _run(run)


def _summary(summary: Any) -> dict[str, Any]:
    return {
        "runs": summary.runs,
        "counts": summary.counts,
        "success_rate": summary.success_rate,
        "cost_usd": summary.cost_usd,
        "p50_seconds": summary.p50_seconds,
        "p95_seconds": summary.p95_seconds,
        "approvals": summary.approvals,
        "approvals_waiting": summary.approvals_waiting,
        "runs_that_waited": summary.runs_that_waited,
        "wait_seconds": summary.wait_seconds,
        "wait_p50_seconds": summary.wait_p50_seconds,
        "wait_longest_seconds": summary.wait_longest_seconds,
        "days": [
            {
                "day": day.day.isoformat(),
                "runs": day.runs,
                "counts": day.counts,
                "cost_usd": day.cost_usd,
                "p50_seconds": day.p50_seconds,
                "p95_seconds": day.p95_seconds,
            }
            for day in summary.days
        ],
    }


def _insights(request: HttpRequest, days: str, agent_id: str | None) -> dict[str, Any]:
    query = QueryDict(mutable=True)
    query["days"] = days
    context = insights_context(workspace=request.workspace, query=query, agent_id=agent_id)  # type: ignore[attr-defined]
    freshness = context["freshness"]
    answer: dict[str, Any] = {
        "days": context["days"],
        "summary": _summary(context["summary"]),
        "refreshed_at": freshness["refreshed_at"].isoformat() if freshness["refreshed_at"] else None,
        "updating": freshness["updating"],
        "refresh_error": freshness["error"] or None,
    }
    if agent_id:
        answer["agent"] = {"id": agent_id, "name": context["insights_agent_name"]}
    else:
        answer["agents"] = [
            {"id": row["agent_id"], "name": row["name"], "summary": _summary(row["summary"])}
            for row in context["agent_rows"]
        ]
    return answer


@router.get(
    "/insights", summary="Every agent's runs over 7 or 30 days, as the insights page counts them (no service call)"
)
def insights(request: HttpRequest, days: str = "7") -> Any:
    require_scope(request, READ)
    return _insights(request, days, None)


@router.get("/agents/{remote_id:agent_id}/insights", summary="One agent's insights, as its insights page counts them")
def agent_insights(request: HttpRequest, agent_id: str, days: str = "7") -> Any:
    require_scope(request, READ)
    found = uuid_or_empty(agent_id)
    if not found:
        raise ApiRefusal(404, "not_found", "No agent has this id (an agent's id is a UUID).")
    return _insights(request, days, found)
