"""Writes on tracked operations: record one, claim the due ones, poll them.

How polling is scheduled (docs/architecture.md, "A tracked operation"):

* The database row is the schedule. `live.tick` (Celery beat, every
  `CELERY_BEAT_TICK_SECONDS`) only counts the due rows and sends enough
  `live.poll_due` tasks to cover them (`LIVE_POLL_BATCH` rows each), but
  never more than `LIVE_POLL_MAX_QUEUED` poll messages queued or running at
  once: each one holds a poller slot (`PollerSlot`) until it ends, so however
  slow the worker, the broker never holds more, and poll messages need no
  expiry (the work never waits on one). The tick stays two quick queries.
* A `live.poll_due` task claims a batch of due rows with a lease and polls
  them in one go: the remote calls run concurrently in a thread pool
  (`LIVE_POLL_THREADS`), bounded per key and per service (`gate.py`), and the
  results are written in bulk, one UPDATE per kind of outcome. Then it claims
  the next batch, for as long as rows are due (`LIVE_POLL_TASK_SECONDS` at
  most), so one Celery message carries many rows and more workers poll more.
* The lease makes this safe: rows are claimed only when a task is about to
  poll them (nothing leased waits in the broker), every write is guarded by
  the lease token, and a killed worker loses nothing: its lease is short
  (`LIVE_LEASE_SECONDS`) and renewed only while the batch works, so it runs
  out within seconds and a later task claims the rows again. A fetch is not
  started past the batch's window or once the lease is lost; that row is
  left for the next claim.
* Polling never loops: what is stored is cleaned first (`storable.py`), a
  save that fails still releases the row and counts as a failed check, and
  `LIVE_MAX_FAILURES` failed checks in a row stop the row with a message.
"""

from __future__ import annotations

import contextvars
import logging
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from itertools import zip_longest
from threading import Lock
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connections, transaction
from django.utils import timezone

from dashboard.api import errors
from dashboard.api.attempts import quiet_calls
from dashboard.api.client import ServiceClient
from dashboard.live import gate, registry
from dashboard.live.claims import (
    batch_fetch_window,
    batch_lease_renewal,
    claim_batch,
    claim_one,
    lease_duration,
    poll_batch_size,
)
from dashboard.live.lag import poll_lag_record
from dashboard.live.leases import lease_is_free
from dashboard.live.models import TrackedOperation
from dashboard.live.outcomes import (
    FIRST_POLL_INTERVAL,
    STATUS_LIMIT,
    Clock,
    Fetched,
    after_final,
    outcome_of,
    outcomes_store,
    owner_deactivated_message,
    rate_limited_until,
    stopped_fields,
)
from dashboard.live.storable import storable, storable_text
from dashboard.metrics import registry as metrics

logger = logging.getLogger("dashboard.live")


def poll_threads() -> int:
    """Remote calls one batch makes at the same time."""
    return max(1, int(settings.LIVE_POLL_THREADS))


# --- recording -----------------------------------------------------------------


def operation_track(
    *,
    owner_key,
    kind: str,
    remote_id: str,
    title: str = "",
    snapshot: dict | None = None,
    context: dict | None = None,
) -> TrackedOperation:
    """Record a remote operation to follow, or return the row already recording it.

    The same (owner key, kind, remote id) is one row: a replayed start (the same
    Idempotency-Key answers the same remote id) never makes a second one.
    It is started by the key's own user.
    The answer that started it is kept as the first snapshot, but it is always
    polled at least once: a 202 body is not the operation's full state.
    """
    remote_id = storable_text(str(remote_id))
    existing = TrackedOperation.objects.filter(owner_key=owner_key, kind=kind, remote_id=remote_id).first()
    if existing is not None:
        return existing
    snapshot = storable(snapshot) if isinstance(snapshot, dict) else {}
    kind_spec = registry.get_kind(kind)
    status = (kind_spec.read_status(snapshot) if kind_spec else registry.status_member(snapshot)) or (
        TrackedOperation.STATUS_PENDING
    )
    now = timezone.now()
    try:
        with transaction.atomic():
            return TrackedOperation.objects.create(
                owner_key=owner_key,
                started_by_id=owner_key.user_id,
                kind=kind,
                remote_id=remote_id,
                title=_short(storable_text(title or "")),
                context=storable(context or {}),
                status=storable_text(str(status), limit=STATUS_LIMIT),
                snapshot=snapshot,
                is_final=False,
                next_poll_at=now + FIRST_POLL_INTERVAL,
            )
    except IntegrityError:
        # Two submits raced past the lookup: the other one made the row.
        return TrackedOperation.objects.get(owner_key=owner_key, kind=kind, remote_id=remote_id)


def _short(text: str, limit: int = 120) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --- polling: the entry points ------------------------------------------------------


@dataclass(frozen=True)
class PollReport:
    claimed: int = 0  # rows leased for this batch
    polled: int = 0  # remote calls made
    written: int = 0  # rows whose result was stored (the lease still ours)


def operations_poll_due(*, now: datetime | None = None, limit: int | None = None) -> PollReport:
    """Claim one batch of due rows and poll every row of it (what `live.poll_due` repeats)."""
    claimed_at = now or timezone.now()
    token, ops = claim_batch(now=claimed_at, limit=limit or poll_batch_size())
    if not ops:
        return PollReport()
    return _poll_batch(ops, token, clock=(lambda: now) if now else timezone.now)


def operation_poll(
    *, operation_id: int, lease_token: str | None = None, now: datetime | None = None
) -> TrackedOperation | None:
    """Fetch the latest state of one operation once, store it, schedule the next poll.

    Idempotent: a final row, a missing row, or a row whose lease the caller
    doesn't hold is left untouched (no remote call). With no `lease_token`
    the poll takes the lease itself if it is free.
    """
    checked_at = now or timezone.now()
    op = TrackedOperation.objects.select_related("owner_key__user").filter(id=operation_id).first()
    if op is None or op.is_final:
        return op
    if lease_token is None:
        lease_token = claim_one(operation_id=operation_id, now=checked_at)
        if lease_token is None:
            return op
        op.lease_token, op.lease_until = lease_token, checked_at + lease_duration()
    elif op.lease_token != lease_token or op.lease_until is None or op.lease_until <= checked_at:
        logger.info("live: skipping operation %s, its lease is no longer ours", operation_id)
        return op
    _poll_batch([op], lease_token, clock=(lambda: now) if now else timezone.now)
    op.refresh_from_db()
    return op


# --- polling: one batch ---------------------------------------------------------


@dataclass
class _Job:
    """One row of a batch, ready to fetch: its kind and its key's client."""

    op: TrackedOperation
    kind: registry.OperationKind
    client: ServiceClient


class _RetryAfter:
    """The Retry-After of each key during one batch, shared by its threads: after
    a 429 the batch's other rows of that key are put off without a call."""

    def __init__(self) -> None:
        self._lock = Lock()
        self._until: dict[int, datetime] = {}

    def until(self, key_id: int, now: datetime) -> datetime | None:
        with self._lock:
            until = self._until.get(key_id)
        return until if until is not None and until > now else None

    def push(self, key_id: int, until: datetime) -> None:
        with self._lock:
            self._until[key_id] = max(until, self._until.get(key_id, until))

    def items(self) -> list[tuple[int, datetime]]:
        with self._lock:
            return list(self._until.items())


def _poll_batch(ops: list[TrackedOperation], lease_token: str, *, clock: Clock) -> PollReport:
    """Poll every row of a claimed batch concurrently and store the results in
    bulk, its short lease renewed meanwhile (claims.batch_lease_renewal).

    A fetch starts only within the batch's window (claims.batch_fetch_window)
    and while the lease is still the batch's; the rows left are given back as
    they were, due, for the next claim."""
    deadline = clock() + batch_fetch_window()
    # Its calls' routine lines at DEBUG: one per row every few seconds, counted by the metrics.
    with batch_lease_renewal(lease_token, clock=clock) as lease, quiet_calls():

        def may_start(now: datetime) -> bool:
            return now <= deadline and not lease.lost

        return _poll_held(ops, lease_token, may_start=may_start, clock=clock)


def _poll_held(
    ops: list[TrackedOperation], lease_token: str, *, may_start: Callable[[datetime], bool], clock: Clock
) -> PollReport:
    outcomes: dict[int, dict[str, Any]] = {}
    jobs: list[_Job] = []
    clients: dict[int, ServiceClient | Exception] = {}
    for op in ops:
        kind = registry.get_kind(op.kind)
        if kind is None:
            outcomes[op.pk] = stopped_fields(op, clock(), f"The console doesn't know how to follow {op.kind!r}.")
            continue
        if not op.owner_key.user.is_active:
            # Rows are stopped when their person is deactivated (dashboard/people);
            # this covers a row claimed in the moment before.
            outcomes[op.pk] = stopped_fields(op, clock(), owner_deactivated_message(op))
            continue
        if op.owner_key_id not in clients:
            try:
                clients[op.owner_key_id] = op.owner_key.client(max_retries=0)
            except Exception as exc:
                clients[op.owner_key_id] = exc
        client = clients[op.owner_key_id]
        if isinstance(client, ServiceClient):
            jobs.append(_Job(op=op, kind=kind, client=client))
        else:
            # Outcomes like any fetch's: an unreadable key stops the row, anything
            # else is a failed check (a batch never fails whole and comes back).
            outcomes[op.pk] = outcome_of(Fetched(op, kind, polled_at=clock(), error=client))

    retry_after = _RetryAfter()
    fetched = _fetch_all(jobs, retry_after=retry_after, may_start=may_start, clock=clock)
    for result in fetched:
        outcomes[result.op.pk] = outcome_of(result)
        _observe(result, outcomes[result.op.pk])
    # Due -> polled (the row's next_poll_at as claimed), for the System status
    # page's p95 and the metrics: a few cache writes per batch (dashboard/live/lag.py).
    poll_lag_record(
        (result.polled_at - result.op.next_poll_at).total_seconds()
        for result in fetched
        if result.polled_at is not None and result.op.next_poll_at is not None
    )

    # Other rows of a key that answered 429, in no batch right now: not before Retry-After.
    for key_id, until in retry_after.items():
        try:
            TrackedOperation.objects.filter(owner_key_id=key_id, is_final=False, next_poll_at__lt=until).filter(
                lease_is_free(clock())
            ).update(next_poll_at=until)
        except Exception:
            logger.exception("live: putting off the other operations of key %s failed", key_id)

    written = outcomes_store(ops, outcomes, lease_token, clock=clock)
    after_final(ops, outcomes)
    return PollReport(
        claimed=len(ops), polled=sum(1 for result in fetched if result.polled_at is not None), written=written
    )


def _fetch_all(
    jobs: list[_Job], *, retry_after: _RetryAfter, may_start: Callable[[datetime], bool], clock: Clock
) -> list[Fetched]:
    """Every job's fetch, concurrently when there are several (a thread pool that
    makes remote calls only: every database read and write stays in the caller)."""

    def fetch(job: _Job) -> Fetched:
        return _fetch(job, retry_after=retry_after, may_start=may_start, clock=clock)

    threads = min(poll_threads(), len(jobs))
    if threads <= 1:
        return [fetch(job) for job in jobs]

    def fetch_in_pool(job: _Job) -> Fetched:
        try:
            return fetch(job)
        finally:
            # A kind's fetch should not touch the database, but if it did, the
            # pool thread's connection must not outlive it.
            connections.close_all()

    def in_context(pair: tuple[contextvars.Context, _Job]) -> Fetched:
        return pair[0].run(fetch_in_pool, pair[1])

    # Each fetch runs in a copy of the task's context (one copy per job: a
    # context is entered by one thread at a time), so its call carries the
    # task run's request id (and trace) like a call made by the task itself.
    ordered = [(contextvars.copy_context(), job) for job in _interleaved_by_key(jobs)]
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="live-poll") as pool:
        return list(pool.map(in_context, ordered))


def _interleaved_by_key(jobs: list[_Job]) -> list[_Job]:
    """One row of each key in turn, so that the pool's threads don't all wait
    for the slots of one busy key while other keys' rows queue behind them."""
    by_key: dict[int, list[_Job]] = defaultdict(list)
    for job in jobs:
        by_key[job.op.owner_key_id].append(job)
    return [job for row in zip_longest(*by_key.values()) for job in row if job is not None]


def _fetch(job: _Job, *, retry_after: _RetryAfter, may_start: Callable[[datetime], bool], clock: Clock) -> Fetched:
    op, kind = job.op, job.kind
    with gate.call_slot(service=job.client.base_url, key=str(op.owner_key_id)):
        now = clock()
        until = retry_after.until(op.owner_key_id, now)
        if until is not None:
            return Fetched(op, kind, defer_until=until)
        if not may_start(now):
            return Fetched(op, kind)
        try:
            snapshot = kind.fetch(job.client, op)
        except errors.RateLimitedError as exc:
            retry_after.push(op.owner_key_id, rate_limited_until(exc, op, now))
            return Fetched(op, kind, polled_at=now, error=exc)
        except Exception as exc:
            return Fetched(op, kind, polled_at=now, error=exc)
        return Fetched(op, kind, polled_at=now, snapshot=snapshot)


def _observe(result: Fetched, outcome: dict[str, Any]) -> None:
    """Metrics (dashboard/metrics): how late the call came after the row was
    due, and the state a row ended in. A row polled before it was due (a
    decision made it due at once) has no lag to tell."""
    if result.polled_at is None or not metrics.enabled():
        return
    due = result.op.next_poll_at
    lag = (result.polled_at - due).total_seconds() if due is not None and due <= result.polled_at else None
    final = outcome.get("status") if outcome.get("is_final") else None
    metrics.poll_observed(
        kind=result.kind.name, lag_seconds=lag, final_state=final, final_states=result.kind.final_statuses
    )
