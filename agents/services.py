"""Writes of the Agents area. Every write carries the Idempotency-Key of the
form it came from (minted when the form was rendered); slow ones (builder
turns, activation, decisions, runs) use the transport's long timeout."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.postgres.search import SearchVector
from django.db import connection, transaction
from django.utils import timezone

from agents import selectors
from agents.insights import Fact, run_fact
from agents.live import INVOCATION_KIND, RUN_KIND
from agents.models import AlertRule, BuilderAnswer, InsightsRefresh, RunFact
from agents.run_reading import read_run
from agents.run_search import SEARCH_CONFIG
from dashboard.api import errors
from dashboard.api.messages import meaning_of, stored_meaning_of
from dashboard.api.paths import api_path
from dashboard.keys.selectors import workspace_clients
from dashboard.live.models import TrackedOperation
from dashboard.live.pushed import (
    LeaseKeeper,
    operation_lease,
    operation_lease_renew,
    operation_push,
    operation_release,
    stream_lease_seconds,
)
from dashboard.live.services import operation_track
from dashboard.live.storable import storable_text
from dashboard.outbox.services import outbox_send
from dashboard.web.reading import text

STREAM_TASK = "agents.stream_invocation"  # agents/tasks.py

# A refusal of the call itself that no repeat can change.
REFUSED_FOR_GOOD = (
    errors.InvalidRequestError,
    errors.ConflictError,
    errors.InsufficientCreditsError,
    errors.UnprocessableError,
)

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

    from dashboard.api import ServiceClient
    from dashboard.keys.models import ApiKey


def agent_create(*, client: ServiceClient, name: str, message: str, auto: bool, idempotency_key: str) -> dict:
    """Draft a new agent from a brief (`POST /v1/agents`): an agent build."""
    body: dict[str, Any] = {"message": message, "auto": bool(auto)}
    if name:
        body["name"] = name
    return client.post("/v1/agents", json=body, idempotency_key=idempotency_key, slow=True)


def agent_change(*, client: ServiceClient, agent_id: str, message: str, auto: bool, idempotency_key: str) -> dict:
    """A builder turn on the draft (`PATCH /v1/agents/{id}` with a message);
    also how a `needs_input` build's questions are answered."""
    return client.patch(
        api_path("/v1/agents/{}", agent_id),
        json={"message": message, "auto": bool(auto)},
        idempotency_key=idempotency_key,
        slow=True,
    )


def agent_rename(*, client: ServiceClient, agent_id: str, name: str, idempotency_key: str) -> dict:
    """`name` alone renames (no credits)."""
    return client.patch(api_path("/v1/agents/{}", agent_id), json={"name": name}, idempotency_key=idempotency_key)


def agent_activate(*, client: ServiceClient, agent_id: str, idempotency_key: str) -> dict:
    """Publish a version and set up wake-ups; 422 with `details.issues` when the plan isn't ready."""
    return client.post(api_path("/v1/agents/{}/activate", agent_id), idempotency_key=idempotency_key, slow=True)


def agent_pause(*, client: ServiceClient, agent_id: str, idempotency_key: str) -> dict:
    return client.post(api_path("/v1/agents/{}/pause", agent_id), idempotency_key=idempotency_key)


def approval_decide(
    *, client: ServiceClient, approval_id: str, decision: str, always: bool, idempotency_key: str
) -> dict:
    """Approve (the action runs now and the run resumes) or reject. Can take
    minutes: the transport waits up to the slow timeout."""
    body: dict[str, Any] = {"decision": decision}
    if always:
        body["always"] = True
    return client.post(api_path("/v1/approvals/{}", approval_id), json=body, idempotency_key=idempotency_key, slow=True)


# --- tracked operations ------------------------------------------------------------


def builder_answer_keep(*, workspace_id: str, agent_id: str, build: dict, asked_by: AbstractBaseUser) -> BuilderAnswer:
    """Keep the builder's answer (`read_build`) for everyone of the workspace:
    its questions stay until someone answers them."""
    answer, _ = BuilderAnswer.objects.update_or_create(
        workspace_id=workspace_id,
        agent_id=agent_id,
        defaults={
            "status": build["status"],
            "message": build["message"],
            "questions": build["questions"],
            "asked_by": asked_by,
        },
    )
    return answer


def builder_answer_seen(*, answer: BuilderAnswer) -> None:
    """A finished build's summary is news once; open questions stay."""
    if not answer.needs_input:
        answer.delete()


def invocation_start(
    *,
    key: ApiKey,
    agent_id: str,
    message: str,
    thread_id: str | None,
    idempotency_key: str,
    payload: dict | None = None,
    stream: bool | None = None,
    client: ServiceClient | None = None,
) -> TrackedOperation:
    """Send a message (or an event) to an agent and record it as a tracked row.

    Streamed (the default, `AGENTS_STREAM_ANSWERS`): nothing is sent here.
    The row is made, leased for the stream, and a worker task
    (`agents.stream_invocation`) makes the call with `stream: true` and
    writes `started` (the conversation id) and the `result` (or `error`) to
    the row as they come: the answer is on the row the moment the service
    finishes, and the page that polls the row shows it within a second.

    Background (the plain-polling path): the message is sent with
    `background: true` now and the live poller repeats the same request with
    the same key until the invocation is finished (spec: "Repeat the same
    request with the same key to poll"), first after 5 s.

    The remote id is the Idempotency-Key itself: one row per message, and a
    double submit is the same row (and the same run). `client`: the key's own
    for the background send (a job passes one without retries: its engine
    waits on a 429 or a 5xx instead)."""
    if stream is None:
        stream = bool(settings.AGENTS_STREAM_ANSWERS)
    body: dict[str, Any] = {}
    if message:
        body["message"] = message
    if payload is not None:
        body["payload"] = payload
    if thread_id:
        body["thread_id"] = str(thread_id)
    title = message or f"Event {json.dumps(payload, ensure_ascii=False)}"
    context = {
        "agent_id": str(agent_id),
        # What the call sends (and a poll repeats), byte for byte (never a
        # secret). Kept as text: a JSONB column would reorder the body's keys.
        "idempotency_key": idempotency_key,
        "thread_id": str(thread_id or ""),
        "run_id": "",
    }
    if stream:
        context.update(mode="stream", body_json=json.dumps(body, ensure_ascii=False))
        # The row, its lease and the stream task are stored together: a broker
        # that is down keeps the task in the outbox, never fails this request.
        with transaction.atomic():
            op = operation_track(
                owner_key=key,
                kind=INVOCATION_KIND,
                remote_id=idempotency_key,
                title=title,
                context=context,
                snapshot={"status": "running", "thread_id": context["thread_id"] or None},
            )
            token = operation_lease(operation_id=op.pk, seconds=stream_lease_seconds())
            if token is not None:  # None: a replayed submit whose stream is already running or done
                _send_stream_task(op, token)
        return op
    body = {"background": True, **body}
    response = (client or key.client()).request(
        "POST", api_path("/v1/agents/{}/runs", agent_id), json=body, idempotency_key=idempotency_key, slow=True
    )
    answer = response.data if isinstance(response.data, dict) else {}
    context.update(
        mode="background",
        body_json=json.dumps(body, ensure_ascii=False),
        thread_id=str(answer.get("thread_id") or thread_id or ""),
        run_id=str(answer.get("run_id") or ""),
        request_id=response.request_id or "",
    )
    return operation_track(
        owner_key=key, kind=INVOCATION_KIND, remote_id=idempotency_key, title=title, snapshot=answer, context=context
    )


def _send_stream_task(op: TrackedOperation, lease_token: str) -> None:
    """Through the outbox, with the row. A stream holds a worker for as long
    as the run takes: a deployment with many chats routes these tasks to a
    worker of their own (a thread pool) with `AGENTS_STREAM_QUEUE`, so they
    never hold up the live poller."""
    outbox_send(task=STREAM_TASK, args=[op.pk, lease_token], queue=settings.AGENTS_STREAM_QUEUE or None, about=op)


def invocation_stream(*, operation_id: int, lease_token: str) -> None:
    """Make a streamed message's call and write each event to its row.

    `started` brings the conversation id (and, from some services, the run
    id); `result` is the invocation, written at once (a `waiting` one goes
    back to the poller, which follows its run); `error` ends the row as
    failed with the service's message. A stream that breaks before its end
    hands the row to the poller, which asks again with the same key (the
    service replays; the agent never runs twice). A row whose lease is not
    this task's (a redelivered task after the row moved on) is left alone."""
    op = TrackedOperation.objects.select_related("owner_key").filter(pk=operation_id).first()
    if op is None or op.is_final or op.lease_token != lease_token:
        return
    # The short lease may have run out while this task waited (in the outbox,
    # in the broker): it is taken again only if the poller has not taken it.
    if not operation_lease_renew(operation_id=op.pk, lease_token=lease_token):
        return
    context = dict(op.context or {})
    snapshot: dict[str, Any] = dict(op.snapshot or {})
    body = json.loads(context.get("body_json") or "{}")
    path = api_path("/v1/agents/{}/runs", context.get("agent_id", ""))
    try:
        client = op.owner_key.client()
        with LeaseKeeper(operation_id=op.pk, lease_token=lease_token) as lease:
            for event in client.stream(path, json=body, idempotency_key=context.get("idempotency_key") or op.remote_id):
                if not lease.renew():
                    return  # the poller has the row now: it writes, this task stops
                data = event.data if isinstance(event.data, dict) else {}
                if event.event == "started":
                    learnt = {name: str(data[name]) for name in ("thread_id", "run_id") if data.get(name)}
                    snapshot.update(status="running", **learnt)
                    if not operation_push(
                        operation_id=op.pk, lease_token=lease_token, snapshot=snapshot, context=learnt
                    ):
                        return
                elif event.event == "result":
                    result = {**data, "thread_id": data.get("thread_id") or snapshot.get("thread_id")}
                    result["run_id"] = result.get("run_id") or snapshot.get("run_id")
                    learnt = {name: str(result[name]) for name in ("thread_id", "run_id") if result.get(name)}
                    operation_push(
                        operation_id=op.pk, lease_token=lease_token, snapshot=result, context=learnt, release=True
                    )
                    return
    except errors.StreamError as exc:
        failed = {**snapshot, "status": "failed", "error": {"message": exc.message, "request_id": exc.request_id}}
        operation_push(operation_id=op.pk, lease_token=lease_token, snapshot=failed, release=True)
        return
    except errors.ApiError as exc:
        # Stored on the operation, as the poller stores it: in English (stored_meaning_of).
        meaning = stored_meaning_of(exc)
        if meaning.stops_following or isinstance(exc, REFUSED_FOR_GOOD):
            # Refused (bad request, no credits, gone, conflict): asking again changes nothing.
            message = f"{meaning.title.rstrip('.')}: {exc.message}" if exc.message else meaning.title
            operation_release(
                operation_id=op.pk, lease_token=lease_token, message=message, request_id=exc.request_id or "", stop=True
            )
            return
        operation_release(
            operation_id=op.pk, lease_token=lease_token, message=meaning.following, request_id=exc.request_id or ""
        )
        return
    # The stream ended without a result: the poller asks again.
    operation_release(
        operation_id=op.pk, lease_token=lease_token, message="The answer stream ended early; asking again."
    )


def run_follow(*, key: ApiKey, run: dict) -> TrackedOperation | None:
    """Have the live poller follow a run that isn't finished (the run page
    shows it updating). Following the same run again returns the same row."""
    read = read_run(run)
    if not read["id"]:
        return None
    return operation_track(
        owner_key=key,
        kind=RUN_KIND,
        remote_id=read["id"],
        title=read["event_message"] or f"Run {read['id'][:8]}",
        snapshot=run,
        context={"agent_id": read["agent_id"]},
    )


def run_following_set(*, key: ApiKey, run: dict, following: bool) -> TrackedOperation | None:
    """Follow a run by choice ("Follow this run": its "needs you", failure and
    end come as toasts and in the inbox) or stop. The row is the one that
    shows it live; the choice is a mark on it, nothing is sent."""
    op = run_follow(key=key, run=run)
    if op is None:
        return None
    context = dict(op.context) if isinstance(op.context, dict) else {}
    if bool(context.get("followed")) != following:
        context["followed"] = following
        TrackedOperation.objects.filter(pk=op.pk).update(context=context)
        op.context = context
    return op


def run_poll_soon(*, key: ApiKey, run_id: str) -> None:
    """A decision was just made on this run: its row (if followed) is due now,
    so the page following it shows the resumed run at the next look rather
    than after the poller's 5-10 s."""
    if run_id:
        TrackedOperation.objects.filter(owner_key=key, kind=RUN_KIND, remote_id=run_id, is_final=False).update(
            next_poll_at=timezone.now()
        )


# --- insights: the runs' facts, kept by a worker (agents/insights.py) ---------------------

INSIGHTS_TASK = "agents.insights_refresh"  # agents/tasks.py
# How far back the facts go: the longest window (30 days) plus a day, so the
# window's first day is whole in any time zone.
INSIGHTS_KEEP_DAYS = 31
# Runs per page read (the contract's largest) and pages read per agent at
# most in one refresh; past that the agent's older runs are left unread
# rather than a worker paging for ever (3000 runs of one agent a month).
INSIGHTS_PAGE = 100
INSIGHTS_MAX_PAGES = 30
INSIGHTS_MAX_AGENT_PAGES = 20
# Runs not over when last read, each read again with `GET /v1/runs/{id}`
# when the list no longer reaches them (at most this many per refresh).
INSIGHTS_MAX_RECHECKS = 50


# A look is written at most this often per workspace (a busy page is no
# stream of UPDATEs); beat's "looked at lately" is hours wide anyway.
INSIGHTS_LOOK_WRITES = timedelta(minutes=1)


def insights_refresh_seconds() -> float:
    return float(settings.AGENTS_INSIGHTS_REFRESH_SECONDS)


def insights_request(*, workspace_id: str, now: datetime | None = None) -> InsightsRefresh:
    """Someone opened the insights: the workspace is looked at (beat keeps
    refreshing it) and, when its numbers are older than the interval and no
    refresh was asked for within it, one is sent through the outbox. Returns
    the state the page words ("updated 3 min ago", "updating")."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=insights_refresh_seconds())
    state = InsightsRefresh.objects.filter(workspace_id=workspace_id).first()
    looked_lately = state is not None and state.looked_at is not None and now - state.looked_at < INSIGHTS_LOOK_WRITES
    if state is not None and looked_lately and not _refresh_wanted(state, stale):
        return state  # looked at a moment ago, numbers fresh or asked for: nothing to write
    with transaction.atomic():
        state, _ = InsightsRefresh.objects.select_for_update().get_or_create(workspace_id=workspace_id)
        state.looked_at = now
        fields = ["looked_at"]
        if _refresh_wanted(state, stale):
            state.requested_at = now
            fields.append("requested_at")
            outbox_send(task=INSIGHTS_TASK, args=[workspace_id], expires=insights_refresh_seconds())
        state.save(update_fields=fields)
    return state


def _refresh_wanted(state: InsightsRefresh, stale: datetime) -> bool:
    """Numbers older than `stale`, and no refresh asked for since."""
    fresh = state.refreshed_at is not None and state.refreshed_at >= stale
    asked = state.requested_at is not None and state.requested_at >= stale
    return not fresh and not asked


def insights_workspaces_due(*, now: datetime | None = None) -> list[str]:
    """Workspaces whose insights someone looked at lately (beat refreshes these
    only), and those with an alert rule on run facts (agents/alerts.py): the
    facts an alert is measured on are kept as fresh as a watched page's."""
    now = now or timezone.now()
    since = now - timedelta(hours=float(settings.AGENTS_INSIGHTS_LOOKED_HOURS))
    looked = InsightsRefresh.objects.filter(looked_at__gte=since).values_list("workspace_id", flat=True)
    alerted = AlertRule.objects.filter(measure__in=AlertRule.RUN_MEASURES).values_list("workspace_id", flat=True)
    return sorted(set(looked) | set(alerted))


def insights_refresh(*, workspace_id: str, now: datetime | None = None) -> int:
    """Read the workspace's new runs into its facts, acting as a working
    stored key of the workspace (the inbox refresh's selection: a key the
    service refuses gives way to the next). Returns the facts written.
    Safe to run twice or at once: every fact is an upsert by run id."""
    now = now or timezone.now()
    for client in workspace_clients(workspace_id=workspace_id):
        try:
            return _insights_refresh_as(client, workspace_id, now)
        except errors.AuthenticationError:
            continue
    _insights_record(workspace_id, now=now, error="No working key of this workspace is stored.")
    return 0


def _insights_record(
    workspace_id: str, *, now: datetime, error: str = "", done: bool = False, names: dict[str, str] | None = None
) -> None:
    defaults: dict[str, Any] = {"tried_at": now, "error": error[:300]}
    if done:
        defaults["refreshed_at"] = now
    if names:
        defaults["agent_names"] = names
    InsightsRefresh.objects.update_or_create(workspace_id=workspace_id, defaults=defaults)


def _every_agent(client: ServiceClient) -> dict[str, str]:
    """Every agent of the workspace by id with its name, archived ones too
    (their runs stay history). The names are kept for the pages, which then
    name agents without a remote call."""
    agents: dict[str, str] = {}
    for status in (None, "archived"):
        cursor = None
        for _ in range(INSIGHTS_MAX_AGENT_PAGES):
            page = selectors.agent_list(client=client, status=status, cursor=cursor, limit=INSIGHTS_PAGE)
            for item in page.items:
                if isinstance(item, dict) and item.get("id"):
                    agents[text(item["id"])[:128]] = storable_text(text(item.get("name")), limit=120)
            cursor = page.next_cursor
            if not cursor:
                break
    return agents


def _new_runs_of(client: ServiceClient, agent_id: str, *, known_final: set[str], horizon: datetime) -> list[Fact]:
    """An agent's runs newest first, up to the first one already kept as
    over (everything older was read before) or the horizon. A run kept while
    not over is read again on the way."""
    facts: list[Fact] = []
    cursor = None
    for _ in range(INSIGHTS_MAX_PAGES):
        page = selectors.run_list(client=client, agent_id=agent_id, cursor=cursor, limit=INSIGHTS_PAGE)
        for item in page.items:
            fact = run_fact(item, agent_id=agent_id)
            if fact is None:
                continue
            if fact.run_id in known_final or fact.started_at < horizon:
                return facts
            facts.append(fact)
        cursor = page.next_cursor
        if not cursor:
            break
    return facts


def run_search_index(*, workspace_id: str, run_ids: list[str]) -> None:
    """The runs' words as a tsvector beside their text, on PostgreSQL (the
    GIN index searches that column); SQLite searches the text itself."""
    if connection.vendor != "postgresql" or not run_ids:
        return
    for start in range(0, len(run_ids), 500):
        RunFact.objects.filter(workspace_id=workspace_id, run_id__in=run_ids[start : start + 500]).update(
            search_vector=SearchVector("search_text", config=SEARCH_CONFIG)
        )


def _insights_refresh_as(client: ServiceClient, workspace_id: str, now: datetime) -> int:
    """One refresh with one key; AuthenticationError when the service refuses it."""
    horizon = now - timedelta(days=INSIGHTS_KEEP_DAYS)
    kept = RunFact.objects.filter(workspace_id=workspace_id, started_at__gte=horizon)
    # A run over whose words are not kept yet (read before the runs search)
    # is read once more, so the search covers what the insights cover.
    known_final = set(kept.filter(final=True, words_read=True).values_list("run_id", flat=True))
    facts: dict[str, Fact] = {}
    problems: list[str] = []
    agents = _every_agent(client)
    for agent_id in agents:
        try:
            # An agent whose read fails mid-way keeps nothing of this pass:
            # a stored newer run would otherwise stop the next pass above a gap.
            facts.update(
                (fact.run_id, fact) for fact in _new_runs_of(client, agent_id, known_final=known_final, horizon=horizon)
            )
        except errors.AuthenticationError:
            raise
        except errors.ApiError as exc:
            problems.append(meaning_of(exc).title)
    unseen = kept.filter(final=False).exclude(run_id__in=list(facts)).order_by("-started_at")
    gone: list[str] = []
    for run_id in unseen.values_list("run_id", flat=True)[:INSIGHTS_MAX_RECHECKS]:
        try:
            fact = run_fact(selectors.run_get(client=client, run_id=run_id))
        except errors.NotFoundError:
            gone.append(run_id)
            continue
        except errors.AuthenticationError:
            raise
        except errors.ApiError as exc:
            problems.append(meaning_of(exc).title)
            continue
        if fact is not None:
            facts[fact.run_id] = fact
    rows = [
        RunFact(
            workspace_id=workspace_id,
            run_id=fact.run_id,
            agent_id=fact.agent_id,
            started_at=fact.started_at,
            ended_at=fact.ended_at,
            status=fact.status,
            final=fact.final,
            cost_usd=fact.cost_usd,
            approvals=fact.approvals,
            approvals_waiting=fact.approvals_waiting,
            approval_wait_seconds=fact.approval_wait_seconds,
            read_at=now,
            search_text=fact.words or "",
            words_read=True,
        )
        for fact in facts.values()
    ]
    with transaction.atomic():
        RunFact.objects.bulk_create(
            rows,
            batch_size=500,
            update_conflicts=True,
            unique_fields=["workspace_id", "run_id"],
            update_fields=[
                "agent_id",
                "started_at",
                "ended_at",
                "status",
                "final",
                "cost_usd",
                "approvals",
                "approvals_waiting",
                "approval_wait_seconds",
                "read_at",
                "search_text",
                "words_read",
            ],
        )
        run_search_index(workspace_id=workspace_id, run_ids=[row.run_id for row in rows])
        RunFact.objects.filter(workspace_id=workspace_id, run_id__in=gone).delete()
        # Older than any window: nothing reads them any more.
        RunFact.objects.filter(workspace_id=workspace_id, started_at__lt=horizon - timedelta(days=1)).delete()
    _insights_record(workspace_id, now=now, error="; ".join(dict.fromkeys(problems)), done=not problems, names=agents)
    return len(rows)
