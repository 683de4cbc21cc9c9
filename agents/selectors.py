"""Reads of the Agents area: agents, runs, approvals (one remote call each,
except `approval_find` and `approval_to_decide`, which page until they meet
the approval)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import Count, Min

from agents.insights import Fact
from agents.live import INVOCATION_KIND, RUN_KIND
from agents.models import BuilderAnswer, RunFact
from agents.run_search import SEARCH_CONFIG, excerpt
from dashboard.api.paths import api_path
from dashboard.live.models import TrackedOperation
from dashboard.live.selectors import OperationView, operation_view

if TYPE_CHECKING:
    from dashboard.api import Page, ServiceClient

PAGE_SIZE = 25
# The re-read after a second decision looks through at most this many pages.
FIND_PAGES = 20


def _params(**values) -> dict:
    return {name: value for name, value in values.items() if value not in (None, "")}


def agent_list(*, client: ServiceClient, status: str | None, cursor: str | None, limit: int = PAGE_SIZE) -> Page:
    """One page of agent summaries, oldest first (`GET /v1/agents`)."""
    return client.page("/v1/agents", params=_params(status=status, cursor=cursor, limit=limit), item_key="agents")


def agent_get(*, client: ServiceClient, agent_id: str) -> dict:
    """The full agent (`GET /v1/agents/{id}`)."""
    return client.get(api_path("/v1/agents/{}", agent_id))


def run_list(
    *,
    client: ServiceClient,
    agent_id: str,
    status: str | None = None,
    thread_id: str | None = None,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
) -> Page:
    """One page of an agent's runs, newest first (`GET /v1/agents/{id}/runs`)."""
    return client.page(
        api_path("/v1/agents/{}/runs", agent_id),
        params=_params(status=status, thread_id=thread_id, cursor=cursor, limit=limit),
        item_key="runs",
    )


def run_get(*, client: ServiceClient, run_id: str) -> dict:
    """A run with its steps (`GET /v1/runs/{id}`)."""
    return client.get(api_path("/v1/runs/{}", run_id))


def approval_list(
    *,
    client: ServiceClient,
    status: str | None = "pending",
    agent_id: str | None = None,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
) -> Page:
    """One page of approvals (`GET /v1/approvals`); pending ones first-come-first."""
    return client.page(
        "/v1/approvals",
        params=_params(status=status, agent_id=agent_id, cursor=cursor, limit=limit),
        item_key="approvals",
    )


def approval_find(
    *, client: ServiceClient, approval_id: str, agent_id: str | None = None, status: str = "all"
) -> dict | None:
    """One approval as it is now. The service has no read of a single approval,
    so this pages through the list of `status` (every status by default),
    narrowed to its agent when known."""
    cursor = None
    for _ in range(FIND_PAGES):
        page = approval_list(client=client, status=status, agent_id=agent_id, cursor=cursor, limit=100)
        for item in page.items:
            if isinstance(item, dict) and str(item.get("id")) == str(approval_id):
                return item
        if not page.next_cursor:
            return None
        cursor = page.next_cursor
    return None


def approval_to_decide(*, client: ServiceClient, approval_id: str, agent_id: str | None = None) -> dict | None:
    """The approval as the service has it just before a decision (its risk
    decides whether the approve needs its confirmation; the form's word is not
    taken for it). The pending list first: short, so one read as a rule. Then
    every status, so an approval decided meanwhile goes on to the service's
    own "already decided" (409). None when the service lists it nowhere."""
    pending = approval_find(client=client, approval_id=approval_id, agent_id=agent_id, status="pending")
    return pending or approval_find(client=client, approval_id=approval_id, agent_id=agent_id)


# --- tracked operations (local rows; no remote call) ---------------------------


def invocations_in_thread(*, user, agent_id: str, thread_id: str, limit: int = 50) -> list[OperationView]:
    """This user's messages to one agent in one conversation, oldest first, with their live state."""
    ops = (
        TrackedOperation.objects.select_related("owner_key")
        .filter(started_by=user, kind=INVOCATION_KIND, context__agent_id=agent_id, context__thread_id=thread_id)
        .order_by("created_at", "id")[:limit]
    )
    return [operation_view(op=op) for op in ops]


def conversation_starter(*, workspace_id: str, agent_id: str, thread_id: str):
    """Who began a conversation through the console (the first message of
    the thread sent from this workspace), or None when it began elsewhere
    (the API, a webhook) or the console keeps no message of it."""
    op = (
        TrackedOperation.objects.select_related("started_by")
        .filter(
            owner_key__workspace_id=workspace_id,
            kind=INVOCATION_KIND,
            context__agent_id=agent_id,
            context__thread_id=thread_id,
        )
        .order_by("created_at", "id")
        .first()
    )
    return op.started_by if op is not None else None


def run_followed(*, user, run_id: str) -> TrackedOperation | None:
    """The row that follows run `run_id` for this person, if there is one."""
    return (
        TrackedOperation.objects.filter(started_by=user, kind=RUN_KIND, remote_id=run_id)
        .order_by("-updated_at")
        .first()
    )


def invocations_by_id(*, user, agent_id: str, operation_id: int) -> list[TrackedOperation]:
    """This user's message `operation_id` to this agent (a list of one, or none)."""
    return list(
        TrackedOperation.objects.select_related("owner_key").filter(
            pk=operation_id, started_by=user, kind=INVOCATION_KIND, context__agent_id=agent_id
        )[:1]
    )


def builder_answer_get(*, workspace_id: str, agent_id: str) -> BuilderAnswer | None:
    """The builder's last answer about an agent, as any member of the workspace sees it."""
    return BuilderAnswer.objects.filter(workspace_id=workspace_id, agent_id=agent_id).first()


# --- insights (the facts a worker keeps; no remote call) ---------------------------------


def insights_facts(*, workspace_id: str, since: datetime, agent_id: str | None = None) -> list[Fact]:
    """The facts of the workspace's runs started since `since` (of one agent
    when given): one query, only the columns the summary counts."""
    rows = RunFact.objects.filter(workspace_id=workspace_id, started_at__gte=since)
    if agent_id:
        rows = rows.filter(agent_id=agent_id)
    return [
        Fact(
            run_id=row["run_id"],
            agent_id=row["agent_id"],
            started_at=row["started_at"],
            ended_at=row["ended_at"],
            status=row["status"],
            cost_usd=row["cost_usd"],
            approvals=row["approvals"],
            approvals_waiting=row["approvals_waiting"],
            approval_wait_seconds=row["approval_wait_seconds"],
        )
        for row in rows.values(
            "run_id",
            "agent_id",
            "started_at",
            "ended_at",
            "status",
            "cost_usd",
            "approvals",
            "approvals_waiting",
            "approval_wait_seconds",
        )
    ]


# --- the runs search: the console's kept words, never the service (agents/run_search.py) ---

SEARCH_RESULTS = 50


@dataclass(frozen=True)
class FoundRun:
    run_id: str
    agent_id: str
    started_at: datetime
    status: str
    excerpt: str


@dataclass(frozen=True)
class RunSearch:
    """A search's answer and the range it covered: the runs the console has
    read (their count and the oldest one's start), the matches, newest first."""

    searched: int
    since: datetime | None
    matched: int
    found: list[FoundRun]


def run_search(*, workspace_id: str, words: list[str], limit: int = SEARCH_RESULTS) -> RunSearch:
    """Runs of the workspace whose kept words hold every one of `words`:
    PostgreSQL's full-text search over the stored tsvector (its GIN index),
    elsewhere a case-insensitive search of the text. Three queries whatever
    the number of runs: the range, the count of matches, the newest matches."""
    read = RunFact.objects.filter(workspace_id=workspace_id, words_read=True)
    span = read.aggregate(count=Count("id"), since=Min("started_at"))
    matching = read
    if connection.vendor == "postgresql":
        matching = matching.filter(search_vector=SearchQuery(" ".join(words), config=SEARCH_CONFIG))
    else:
        for word in words:
            matching = matching.filter(search_text__icontains=word)
    rows = matching.order_by("-started_at", "-id").values("run_id", "agent_id", "started_at", "status", "search_text")
    found = [
        FoundRun(
            run_id=row["run_id"],
            agent_id=row["agent_id"],
            started_at=row["started_at"],
            status=row["status"],
            excerpt=excerpt(row["search_text"], words),
        )
        for row in rows[:limit]
    ]
    return RunSearch(searched=span["count"], since=span["since"], matched=matching.count(), found=found)


def run_previous(*, workspace_id: str, agent_id: str, started_at: datetime, run_id: str) -> str | None:
    """The run of the same agent that started just before this one, among
    the runs the console has read (one query; None when it knows of none)."""
    return (
        RunFact.objects.filter(workspace_id=workspace_id, agent_id=agent_id, started_at__lt=started_at)
        .exclude(run_id=run_id)
        .order_by("-started_at", "-id")
        .values_list("run_id", flat=True)
        .first()
    )
