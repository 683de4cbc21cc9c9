"""Bulk reruns: the runs that failed in a window (of one agent, or of every
agent the runs list reads) sent again as new runs, as one job (a
`RerunBatch` row) stepped by the core's engine (dashboard/jobs/engine.py,
the kind `agents.rerun_batch`).

Which runs: the service's word, read when the confirmation is drawn and
read again when the job starts (the form's ids are only a selection of
what the service lists as failed in that window, never taken on their
own). Each rerun re-reads its run (`GET /v1/runs/{id}`: what is sent is what
the service says woke it) and sends it with `uuid5(batch.uid, "rerun:<run
id>")` as its Idempotency-Key, the same on every retry (a redelivered step,
a 502, a timeout), so the service replays rather than running the agent
twice. Reruns go one after another, a few per step, through a client that
does not retry on its own: a 429 waits its Retry-After, a failing service
waits 5 s (the engine's one rule), so the job never asks faster than the
service allows. Running out of credits stops the job (every later rerun
would be refused the same way); a run the service no longer has is that
run's own outcome. Each new run is a tracked invocation the live loop
follows, so the job's page says how each ended."""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from agents import selectors, services
from agents.models import RerunBatch, RerunBatchItem
from agents.run_reading import read_run
from dashboard.api import errors
from dashboard.api.messages import meaning_of, with_request_id
from dashboard.jobs import engine
from dashboard.jobs.items import items_step
from dashboard.jobs.kinds import JobKind, Step
from dashboard.keys.models import ApiKey
from dashboard.live.storable import storable_text

logger = logging.getLogger("agents.bulk_reruns")

KIND = "agents.rerun_batch"  # the engine's name of this kind (dashboard/jobs)
MAX_RERUNS = 100  # runs per job: a bigger set is narrowed by agent or window first
CHUNK = 3  # reruns per step: each is a read and a send
# Pages of 100 failed runs read per agent, newest first: one agent's up to 3;
# every agent's one each (as the runs list, at most 1 + MAX_AGENTS calls).
PAGES_PER_AGENT = 3
MAX_AGENTS = 30  # as the runs list: beyond them, filter by agent
WINDOWS = {"24h": ("in the last 24 hours", timedelta(hours=24)), "7d": ("in the last 7 days", timedelta(days=7))}
WINDOW_CHOICES = [(value, words) for value, (words, _) in WINDOWS.items()]
DEFAULT_WINDOW = "24h"

# What a step waits on or stops on (the engine's rule), rather than one run's outcome.
_NOT_AN_OUTCOME = (
    errors.RateLimitedError,
    errors.ServerError,
    errors.ApiTimeoutError,
    errors.ApiConnectionError,
    errors.AuthenticationError,
    errors.InsufficientCreditsError,
)


class RerunRefused(ValueError):
    """A bulk rerun that can't start, in words for the person."""


def rerun_key(batch: RerunBatch, run_id: str) -> str:
    """The rerun's Idempotency-Key: one per run, the same on every retry."""
    return str(uuid.uuid5(batch.uid, f"rerun:{run_id}"))


# --- which runs (the confirmation, and the start) -----------------------------------------


@dataclass
class FailedRuns:
    """The failed runs of a filter, as the service lists them now."""

    runs: list[dict[str, Any]]  # newest first, each with agent_name
    since: datetime
    window_words: str
    agent_name: str  # "" for every agent
    more: bool  # more than MAX_RERUNS failed in the window (or more than was read)
    agents_beyond: int  # agents not read (beyond MAX_AGENTS)

    @property
    def chosen_by(self) -> str:
        who = f"agent {self.agent_name}" if self.agent_name else "every agent"
        return f"failed {self.window_words}, {who}"


def _failed_of_agent(
    client, *, agent_id: str, since: datetime, room: int, pages: int = PAGES_PER_AGENT
) -> tuple[list[dict[str, Any]], bool]:
    """One agent's failed runs started since `since`, newest first, up to `room` (and whether more were seen)."""
    found: list[dict[str, Any]] = []
    cursor = None
    for _ in range(pages):
        page = selectors.run_list(client=client, agent_id=agent_id, status="failed", cursor=cursor, limit=100)
        for run in (read_run(item) for item in page.items):
            run["agent_id"] = run["agent_id"] or agent_id
            started = run["created_at"]
            if started is not None and started < since:
                return found, False  # newest first: the rest are older
            if run["status"] != "failed" or not run["id"]:
                continue  # the service's word for each run, not only the filter's
            if len(found) >= room:
                return found, True
            found.append(run)
        if not page.next_cursor:
            return found, False
        cursor = page.next_cursor
    return found, True  # pages left unread: said as "more"


def failed_runs_read(*, client, agents: list[dict[str, Any]], agent_id: str, window: str) -> FailedRuns:
    """The runs that failed in the window: one agent's, or every agent's (the
    first MAX_AGENTS of the agents list), newest first, at most MAX_RERUNS."""
    words, span = WINDOWS.get(window, WINDOWS[DEFAULT_WINDOW])
    since = timezone.now() - span
    names = {agent["id"]: agent["name"] for agent in agents}
    wanted = [agent_id] if agent_id else [agent["id"] for agent in agents[:MAX_AGENTS]]
    found: list[dict[str, Any]] = []
    more = False
    for each in wanted:
        runs, beyond = _failed_of_agent(
            client,
            agent_id=each,
            since=since,
            room=MAX_RERUNS + 1 - len(found),
            pages=PAGES_PER_AGENT if agent_id else 1,
        )
        found.extend(runs)
        more = more or beyond
        if len(found) > MAX_RERUNS:
            break
    if len(found) > MAX_RERUNS:
        found, more = found[:MAX_RERUNS], True
    found.sort(key=lambda run: run["created_at"] or since, reverse=True)
    for run in found:
        run["agent_name"] = run.get("agent_name") or names.get(run["agent_id"], "")
    return FailedRuns(
        runs=found,
        since=since,
        window_words=words,
        agent_name=names.get(agent_id, agent_id[:8]) if agent_id else "",
        more=more,
        agents_beyond=0 if agent_id else max(len(agents) - MAX_AGENTS, 0),
    )


def batch_start(*, key: ApiKey, user, uid: uuid.UUID, failed: FailedRuns, picked: list[str]) -> RerunBatch:
    """Make the job and send its first step. `failed` is the service's list
    read now; `picked` the ids the confirmation showed (a run shown there
    and still listed now is rerun; one listed now but not shown is not: the
    person did not see it). The same `uid` again (a double submit) is the
    same job. Raises RerunRefused, nothing started, for an empty selection."""
    existing = RerunBatch.objects.filter(uid=uid, started_by_id=user.pk).first()
    if existing is not None:
        return existing
    shown = set(picked[: MAX_RERUNS * 2])
    runs = [run for run in failed.runs if run["id"] in shown]
    if not runs:
        raise RerunRefused(
            "None of the runs shown failed in this window any more: nothing was sent."
            if shown
            else "No failed run was shown to rerun."
        )
    with transaction.atomic():
        batch = RerunBatch.objects.create(
            uid=uid,
            workspace_id=key.workspace_id,
            owner_key=key,
            started_by=user,
            chosen_by=storable_text(failed.chosen_by, limit=300),
        )
        RerunBatchItem.objects.bulk_create(
            RerunBatchItem(
                batch=batch,
                position=position,
                run_id=storable_text(run["id"], limit=128),
                agent_id=run["agent_id"][:64],
                agent_name=storable_text(run.get("agent_name") or "", limit=200),
                started_at=run["created_at"],
                woken_by=storable_text(_woken_words(run), limit=200),
            )
            for position, run in enumerate(runs)
        )
        engine.send_step(KIND, batch.pk)
    return batch


def _woken_words(run: dict[str, Any]) -> str:
    if run["event_message"]:
        message = " ".join(run["event_message"].split())
        return f"“{message[:150]}…”" if len(message) > 150 else f"“{message}”"
    return "an event" if run["event_payload"] is not None else ""


# --- one step (the task) ----------------------------------------------------------------


def rerun_item(batch: RerunBatch, item: RerunBatchItem, client) -> None:
    """Send one run again: read it (what woke it, the service's word), send
    that as a new run with the item's own key, keep the outcome. A 429, a
    failing service, a refused key or no credits is raised for the step."""
    try:
        run = read_run(selectors.run_get(client=client, run_id=item.run_id))
        if not run["agent_id"] or not (run["event_message"] or run["event_payload"] is not None):
            item.outcome = RerunBatchItem.NOT_SENT
            item.message = "Not sent: nothing woke this run that the console can send again."
        else:
            op = services.invocation_start(
                key=batch.owner_key,
                client=client,
                agent_id=run["agent_id"] or item.agent_id,
                message=run["event_message"],
                payload=run["event_payload"],
                thread_id=None,
                idempotency_key=rerun_key(batch, item.run_id),
                stream=False,
            )
            item.outcome, item.sent, item.message = RerunBatchItem.SENT, op, "Sent again as a new run."
    except _NOT_AN_OUTCOME:
        raise
    except errors.ApiError as exc:
        item.outcome = RerunBatchItem.FAILED
        item.message = storable_text(with_request_id(meaning_of(exc).title, exc), limit=400)
    item.save(update_fields=["outcome", "message", "sent"])


def _stop_words(batch: RerunBatch, exc: errors.ApiError) -> str:
    """Out of credits stops the job in words (every later rerun would be refused
    the same way); anything else is the engine's rule."""
    if not isinstance(exc, errors.InsufficientCreditsError):
        return ""
    sent = batch.items.filter(outcome=RerunBatchItem.SENT).count()
    said = with_request_id("The workspace is out of credits", exc)
    return storable_text(f"{said}: {sent} sent again, the rest not sent.", limit=400)


def batch_chunk(batch: RerunBatch) -> Step:
    """One bounded chunk of a bulk rerun (the engine's chunk): a few reruns."""
    client = batch.owner_key.client(max_retries=0)
    return items_step(
        owner_key=batch.owner_key,
        to_do=batch.items.filter(outcome=RerunBatchItem.TO_DO).order_by("position"),
        size=CHUNK,
        work=lambda item: rerun_item(batch, item, client),
        stop_words=lambda exc: _stop_words(batch, exc),
    )


RERUN_BATCH = JobKind(
    name=KIND,
    model=RerunBatch,
    chunk=batch_chunk,
    active=(RerunBatch.RUNNING,),
    done=RerunBatch.DONE,
    stopped=RerunBatch.STOPPED,
    cancelled=RerunBatch.CANCELLED,
    cancelled_message="Cancelled: the runs sent again before stay sent.",
    kept_failing="The service kept failing; the runs not sent yet are listed below.",
    unexpected="The bulk rerun stopped on an unexpected error.",
    select_related=("owner_key__user",),
)


# --- progress (the page) ----------------------------------------------------------------


def batch_version(batch: RerunBatch) -> str:
    """Changes when the job moves, and when one of its new runs moves or ends (one query)."""
    new_runs = batch.items.filter(sent__isnull=False).aggregate(
        ended=Count("pk", filter=Q(sent__is_final=True)), moved=Max("sent__updated_at")
    )
    moved = new_runs["moved"].timestamp() if new_runs["moved"] else 0
    return f"{batch.updated_at.timestamp():.6f}-{batch.status}-{new_runs['ended']}-{moved:.6f}"


def batch_progress(batch: RerunBatch) -> dict[str, Any]:
    items = list(batch.items.select_related("sent").all())
    done = [item for item in items if item.outcome != RerunBatchItem.TO_DO]
    outcomes = Counter(item.outcome for item in done)
    ended = Counter(item.sent.status for item in items if item.sent is not None and item.sent.is_final)
    return {
        "batch": batch,
        "items": items,
        "total": len(items),
        "done": len(done),
        "sent": outcomes[RerunBatchItem.SENT],
        "not_sent": outcomes[RerunBatchItem.NOT_SENT],
        "failed": outcomes[RerunBatchItem.FAILED],
        "new_runs_ended": sum(ended.values()),
        "version": batch_version(batch),
    }
