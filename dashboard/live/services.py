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
  the lease token, and a killed worker loses nothing: its lease runs out and
  a later task claims the rows again. A fetch is not started once the lease
  is too short to finish it; that row is left for the next claim.
* Polling never loops: what is stored is cleaned first (`storable.py`), a
  save that fails still releases the row and counts as a failed check, and
  `LIVE_MAX_FAILURES` failed checks in a row stop the row with a message.
"""

from __future__ import annotations

import contextvars
import logging
import uuid
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import zip_longest
from threading import Lock
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, connections, transaction
from django.db.models import Expression, Field, Q
from django.utils import timezone

from dashboard.api import errors
from dashboard.api.client import ServiceClient
from dashboard.api.messages import meaning_of
from dashboard.keys.errors import KeyDecryptionError
from dashboard.live import gate, registry
from dashboard.live.lag import poll_lag_record
from dashboard.live.leases import lease_is_free, lease_take
from dashboard.live.models import TrackedOperation
from dashboard.live.storable import storable, storable_text
from dashboard.metrics import registry as metrics

logger = logging.getLogger("dashboard.live")

# Spec, "Limits": polling interval 5-10 s, backing off 5 s then 10 s.
FIRST_POLL_INTERVAL = timedelta(seconds=5)
LATER_POLL_INTERVAL = timedelta(seconds=10)
FAST_POLLS = 6  # the first half minute at 5 s, then every 10 s
MAX_ERROR_BACKOFF = timedelta(seconds=120)

SAVE_FAILED = "The console could not store what the service sent; trying again shortly."
STATUS_LIMIT = TrackedOperation._meta.get_field("status").max_length or 40
REQUEST_ID_LIMIT = TrackedOperation._meta.get_field("last_error_request_id").max_length or 128

Clock = Callable[[], datetime]


def lease_duration() -> timedelta:
    # Long enough for a batch: fetches start only in its first part (see _fetch_deadline).
    return timedelta(seconds=settings.LIVE_LEASE_SECONDS)


def poll_batch_size() -> int:
    """Rows one poll task claims at a time (one batch)."""
    return max(1, int(settings.LIVE_POLL_BATCH))


def poll_threads() -> int:
    """Remote calls one batch makes at the same time."""
    return max(1, int(settings.LIVE_POLL_THREADS))


def max_failures() -> int:
    """Failed checks in a row (polls or saves) after which a row stops."""
    return max(1, int(settings.LIVE_MAX_FAILURES))


def poll_interval(*, poll_count: int) -> timedelta:
    """Delay before the next poll after `poll_count` successful polls."""
    return FIRST_POLL_INTERVAL if poll_count < FAST_POLLS else LATER_POLL_INTERVAL


def error_backoff(*, error_count: int) -> timedelta:
    """10 s, 20 s, 40 s... capped, after `error_count` failed polls in a row."""
    seconds = LATER_POLL_INTERVAL.total_seconds() * (2 ** max(error_count - 1, 0))
    return min(timedelta(seconds=seconds), MAX_ERROR_BACKOFF)


def _due(now: datetime) -> Q:
    return Q(is_final=False, next_poll_at__lte=now) & lease_is_free(now)


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


# --- claiming --------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    operation_id: int
    lease_token: str


def operations_due_count(*, now: datetime | None = None, limit: int | None = None) -> int:
    """How many rows are due and free (counted up to `limit`): what the tick sends tasks for."""
    now = now or timezone.now()
    due = TrackedOperation.objects.filter(_due(now))
    if limit:
        due = due.order_by()[:limit]
    return due.count()


def _claim_batch(*, now: datetime, limit: int) -> tuple[str, list[TrackedOperation]]:
    """Lease up to `limit` due rows (not final, next_poll_at <= now, lease free
    or expired), most overdue first, and read them with their keys.

    On PostgreSQL the candidate rows are locked with SKIP LOCKED so two claims
    never wait on each other; on every database the lease itself is taken by a
    conditional UPDATE that re-checks the due condition, so a row can only be
    claimed once even where row locks don't exist (SQLite).
    """
    token = uuid.uuid4().hex
    with transaction.atomic():
        candidates = TrackedOperation.objects.filter(_due(now)).order_by("next_poll_at", "id")
        if connection.features.has_select_for_update_skip_locked:
            candidates = candidates.select_for_update(skip_locked=True)
        ids = list(candidates.values_list("id", flat=True)[:limit])
        if not ids:
            return token, []
        TrackedOperation.objects.filter(_due(now), id__in=ids).update(
            lease_until=now + lease_duration(), lease_token=token
        )
        claimed = list(
            # The key's person too (same query): a deactivated person's key is used by nothing.
            TrackedOperation.objects.select_related("owner_key__user")
            .filter(id__in=ids, lease_token=token)
            .order_by("next_poll_at", "id")
        )
    return token, claimed


def operations_claim_due(*, now: datetime | None = None, limit: int | None = None) -> list[Claim]:
    """Lease up to `limit` (default `LIVE_POLL_BATCH`) due rows; see `_claim_batch`."""
    token, claimed = _claim_batch(now=now or timezone.now(), limit=limit or poll_batch_size())
    return [Claim(operation_id=op.pk, lease_token=token) for op in claimed]


def _claim_one(*, operation_id: int, now: datetime) -> str | None:
    """Take the lease of one row that isn't final and isn't leased (a poll asked for
    outside the tick). Due-ness is not required: asking for a poll means now."""
    rows = TrackedOperation.objects.filter(id=operation_id, is_final=False)
    return lease_take(rows, seconds=lease_duration().total_seconds(), now=now)


# --- polling: the entry points ------------------------------------------------------


@dataclass(frozen=True)
class PollReport:
    claimed: int = 0  # rows leased for this batch
    polled: int = 0  # remote calls made
    written: int = 0  # rows whose result was stored (the lease still ours)


def operations_poll_due(*, now: datetime | None = None, limit: int | None = None) -> PollReport:
    """Claim one batch of due rows and poll every row of it (what `live.poll_due` repeats)."""
    claimed_at = now or timezone.now()
    token, ops = _claim_batch(now=claimed_at, limit=limit or poll_batch_size())
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
        lease_token = _claim_one(operation_id=operation_id, now=checked_at)
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


@dataclass
class _Fetched:
    op: TrackedOperation
    kind: registry.OperationKind
    polled_at: datetime | None = None  # None: no call was made
    snapshot: Any = None
    error: Exception | None = None
    defer_until: datetime | None = None  # not polled: due again then (None: at once)


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


def _rate_limited_until(exc: errors.RateLimitedError, op: TrackedOperation, polled_at: datetime) -> datetime:
    wait = timedelta(seconds=exc.retry_after) if exc.retry_after else error_backoff(error_count=op.error_count + 1)
    # Strictly after Retry-After, never on its edge.
    return polled_at + wait + timedelta(seconds=1)


def _fetch_deadline(ops: list[TrackedOperation]) -> datetime | None:
    """The last moment a fetch may start and still end (timeouts included)
    before the lease does; later rows are left for the next claim."""
    leases = [op.lease_until for op in ops if op.lease_until is not None]
    if not leases:
        return None
    call_seconds = float(settings.SERVICE_TIMEOUT) + float(settings.SERVICE_CONNECT_TIMEOUT)
    # Never less than half the lease, whatever the settings: some rows always get polled.
    margin = min(call_seconds, lease_duration().total_seconds() / 2)
    return min(leases) - timedelta(seconds=margin)


def _poll_batch(ops: list[TrackedOperation], lease_token: str, *, clock: Clock) -> PollReport:
    """Poll every row of a claimed batch concurrently and store the results in bulk."""
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
            outcomes[op.pk] = _outcome(_Fetched(op, kind, polled_at=clock(), error=client))

    retry_after = _RetryAfter()
    fetched = _fetch_all(jobs, retry_after=retry_after, deadline=_fetch_deadline(ops), clock=clock)
    for result in fetched:
        outcomes[result.op.pk] = _outcome(result)
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

    written = _store(ops, outcomes, lease_token, clock=clock)
    _after_final(ops, outcomes)
    return PollReport(
        claimed=len(ops), polled=sum(1 for result in fetched if result.polled_at is not None), written=written
    )


def _fetch_all(
    jobs: list[_Job], *, retry_after: _RetryAfter, deadline: datetime | None, clock: Clock
) -> list[_Fetched]:
    """Every job's fetch, concurrently when there are several (a thread pool that
    makes remote calls only: every database read and write stays in the caller)."""

    def fetch(job: _Job) -> _Fetched:
        return _fetch(job, retry_after=retry_after, deadline=deadline, clock=clock)

    threads = min(poll_threads(), len(jobs))
    if threads <= 1:
        return [fetch(job) for job in jobs]

    def fetch_in_pool(job: _Job) -> _Fetched:
        try:
            return fetch(job)
        finally:
            # A kind's fetch should not touch the database, but if it did, the
            # pool thread's connection must not outlive it.
            connections.close_all()

    def in_context(pair: tuple[contextvars.Context, _Job]) -> _Fetched:
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


def _fetch(job: _Job, *, retry_after: _RetryAfter, deadline: datetime | None, clock: Clock) -> _Fetched:
    op, kind = job.op, job.kind
    with gate.call_slot(service=job.client.base_url, key=str(op.owner_key_id)):
        now = clock()
        until = retry_after.until(op.owner_key_id, now)
        if until is not None:
            return _Fetched(op, kind, defer_until=until)
        if deadline is not None and now > deadline:
            return _Fetched(op, kind)
        try:
            snapshot = kind.fetch(job.client, op)
        except errors.RateLimitedError as exc:
            retry_after.push(op.owner_key_id, _rate_limited_until(exc, op, now))
            return _Fetched(op, kind, polled_at=now, error=exc)
        except Exception as exc:
            return _Fetched(op, kind, polled_at=now, error=exc)
        return _Fetched(op, kind, polled_at=now, snapshot=snapshot)


def _observe(result: _Fetched, outcome: dict[str, Any]) -> None:
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


# --- outcomes: the fields each result writes ------------------------------------------


def _outcome(result: _Fetched) -> dict[str, Any]:
    op, kind, now = result.op, result.kind, result.polled_at
    if now is None:
        # Not polled (another row's 429, or the lease too short): released as it was.
        return {"next_poll_at": result.defer_until} if result.defer_until else {}
    exc = result.error
    if isinstance(exc, errors.RateLimitedError):
        return _failed(op, now, exc, next_poll_at=_rate_limited_until(exc, op, now))
    if isinstance(exc, errors.ApiError):
        if meaning_of(exc).stops_following:
            # Another poll can't help: the key is refused or may not read
            # this, or the operation no longer exists.
            if exc.status == 401:
                # The transport's hook marked the key from the fetch's pool thread;
                # marked again here, in the thread that holds the batch's database work.
                from dashboard.api.hooks import KeyRefusal, key_refused

                key_refused(KeyRefusal(stored_key_id=op.owner_key_id, request_id=exc.request_id))
            return stopped_fields(op, now, _stop_message(exc), request_id=exc.request_id)
        return _failed(op, now, exc)
    if isinstance(exc, KeyDecryptionError):
        return stopped_fields(op, now, "The stored API key can't be read any more; add it again.")
    if exc is not None:
        logger.error("live: polling operation %s failed", op.pk, exc_info=exc)
        return _failed(op, now, None)
    try:
        return _succeeded(op, kind, result.snapshot, now)
    except Exception:
        # The kind could not read what came back (an odd shape): a failed check.
        logger.exception("live: reading the answer for operation %s failed", op.pk)
        return _failed(op, now, None)


def _succeeded(op: TrackedOperation, kind: registry.OperationKind, snapshot: Any, now: datetime) -> dict[str, Any]:
    snapshot = storable(snapshot if isinstance(snapshot, dict) else {"value": snapshot})
    status = storable_text(str(kind.read_status(snapshot) or op.status), limit=STATUS_LIMIT)
    final = kind.is_final(status)
    return {
        "status": status,
        "snapshot": snapshot,
        "is_final": final,
        "next_poll_at": None if final else now + poll_interval(poll_count=op.poll_count + 1),
        "poll_count": op.poll_count + 1,
        "error_count": 0,
        "last_error": "",
        "last_error_request_id": "",
        "last_polled_at": now,
    }


def _failed(
    op: TrackedOperation,
    now: datetime,
    exc: errors.ApiError | None,
    *,
    next_poll_at: datetime | None = None,
    message: str | None = None,
    reason: str = "an unexpected error",
) -> dict[str, Any]:
    """A failed check (a poll, or the save of its result): polling goes on after a
    backoff, unless this is the `LIVE_MAX_FAILURES`-th failure in a row, which
    stops the row. `message` is what the page shows meanwhile (the catalogue's
    wording for `exc` by default), `reason` what it says when the row stops."""
    error_count = op.error_count + 1
    request_id = getattr(exc, "request_id", None)
    # A 429 is the service asking to wait, not a failure: it never stops a row.
    if error_count >= max_failures() and not isinstance(exc, errors.RateLimitedError):
        if exc is not None:
            reason = meaning_of(exc).title
        stopped = stopped_fields(
            op, now, f"The last {error_count} checks all failed ({reason[:1].lower()}{reason[1:]}).", request_id
        )
        return {**stopped, "error_count": error_count}
    if message is None:
        message = meaning_of(exc).following if exc is not None else "The last check failed; trying again shortly."
    next_poll_at = next_poll_at or now + error_backoff(error_count=error_count)
    logger.warning(
        "live: polling operation %s failed (%s, request id %s); next poll at %s",
        op.pk,
        type(exc).__name__ if exc else "error",
        request_id,
        next_poll_at.isoformat(),
    )
    return {
        "next_poll_at": next_poll_at,
        "error_count": error_count,
        "last_error": storable_text(message),
        "last_error_request_id": storable_text(request_id or "", limit=REQUEST_ID_LIMIT),
        "last_polled_at": now,
    }


def stopped_fields(op: TrackedOperation, now: datetime, message: str, request_id: str | None = None) -> dict[str, Any]:
    logger.warning("live: stopped following operation %s: %s", op.pk, message)
    return {
        "status": TrackedOperation.STATUS_STOPPED,
        "is_final": True,
        "next_poll_at": None,
        "last_error": storable_text(message),
        "last_error_request_id": storable_text(request_id or "", limit=REQUEST_ID_LIMIT),
        "last_polled_at": now,
    }


def owner_deactivated_message(op: TrackedOperation) -> str:
    return (
        f"Stopped following: {op.owner_key.user.get_username()}'s account was deactivated, so their stored "
        "API key is no longer used. Whatever the service did stays there."
    )


def _stop_message(exc: errors.ApiError) -> str:
    meaning = meaning_of(exc)
    if meaning.kind == "invalid":
        return f"{meaning.following.rstrip('.')}: {exc.message}"
    return meaning.following


# --- storing: in bulk, guarded by the lease ------------------------------------------


class _ValueById(Expression):
    """One column's new value for each row of an UPDATE:
    `CASE id WHEN 1 THEN ... WHEN 2 THEN ... ELSE column END`.

    What `bulk_update` writes, without its `When(pk=...)` per row and column,
    each resolved as a filter: that cost more than the remote calls."""

    def __init__(self, field: Field, values: dict[int, Any]) -> None:
        super().__init__(output_field=field)
        self.column_field = field
        self.values = values

    def as_sql(self, compiler, connection) -> tuple[str, list[Any]]:
        quote = compiler.quote_name_unless_alias
        table = quote(self.column_field.model._meta.db_table)
        params: list[Any] = []
        for op_id, value in self.values.items():
            params += [op_id, self.column_field.get_db_prep_save(value, connection)]
        whens = " ".join(["WHEN %s THEN %s"] * len(self.values))
        sql = f"CASE {table}.{quote('id')} {whens} ELSE {table}.{quote(self.column_field.column)} END"
        if connection.features.requires_casted_case_in_updates:
            sql = f"CAST({sql} AS {self.column_field.db_type(connection)})"
        return sql, params


def _store(ops: list[TrackedOperation], outcomes: dict[int, dict[str, Any]], lease_token: str, *, clock: Clock) -> int:
    """Write every outcome and release the lease, only where the lease is still
    ours: one UPDATE per group of rows that set the same fields (usually one).

    A group whose UPDATE fails is written row by row, and a row whose own
    write fails (something in it the database refuses) is written as a failed
    check instead: its lease is released and, after `LIVE_MAX_FAILURES` of
    them, it stops. A bad answer never holds a row until its lease runs out.
    """
    by_id = {op.pk: op for op in ops}
    released = {"lease_until": None, "lease_token": "", "updated_at": timezone.now()}

    def store_together(op_ids: list[int], names: tuple[str, ...]) -> int:
        try:
            with transaction.atomic():
                return TrackedOperation.objects.filter(id__in=op_ids, lease_token=lease_token).update(
                    **_values_by_field(names, {op_id: outcomes[op_id] for op_id in op_ids}), **released
                )
        except Exception:
            logger.exception("live: storing %d poll results at once failed; storing them one by one", len(op_ids))
            return sum(
                _store_one(by_id[op_id], {**outcomes[op_id], **released}, lease_token, clock=clock) for op_id in op_ids
            )

    groups: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for op_id, fields in outcomes.items():
        groups[tuple(sorted(fields))].append(op_id)
    written = 0
    for names, group in groups.items():
        for op_ids in _chunks(group, names):
            count = store_together(op_ids, names)
            if count < len(op_ids):
                logger.info("live: lost the lease of %d operation(s) meanwhile; results dropped", len(op_ids) - count)
            written += count
    return written


def _after_final(ops: list[TrackedOperation], outcomes: dict[int, dict[str, Any]]) -> None:
    """Each kind's `on_final` with its rows this batch found final. A row
    whose write was lost is passed too: the hook re-reads rows and is
    idempotent, so at worst it finds nothing to do."""
    final_by_kind: dict[str, list[int]] = defaultdict(list)
    for op in ops:
        if outcomes.get(op.pk, {}).get("is_final"):
            final_by_kind[op.kind].append(op.pk)
    for name, op_ids in final_by_kind.items():
        run_on_final(registry.get_kind(name), op_ids)


def run_on_final(kind: registry.OperationKind | None, op_ids: list[int]) -> None:
    if kind is None or kind.on_final is None or not op_ids:
        return
    try:
        kind.on_final(op_ids)
    except Exception:
        logger.exception("live: the after-final step of %s failed for %d operation(s)", kind.name, len(op_ids))


def _chunks(op_ids: list[int], names: tuple[str, ...]) -> list[list[int]]:
    """Rows per UPDATE within the database's limit of query parameters (two
    per row and field at most, and the row's id in the filter)."""
    limit = connection.features.max_query_params or 65535
    size = max(1, min(500, (limit - 20) // (2 * len(names) + 1)))
    return [op_ids[start : start + size] for start in range(0, len(op_ids), size)]


def _values_by_field(names: tuple[str, ...], rows: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """For `update()`: a field's value where every row has the same one, else one per row."""
    values: dict[str, Any] = {}
    for name in names:
        column = {op_id: fields[name] for op_id, fields in rows.items()}
        first = next(iter(column.values()))
        if all(type(value) is type(first) and value == first for value in column.values()):
            values[name] = first
        else:
            field = TrackedOperation._meta.get_field(name)
            assert isinstance(field, Field)
            values[name] = _ValueById(field, column)
    return values


def _store_one(op: TrackedOperation, fields: dict[str, Any], lease_token: str, *, clock: Clock) -> int:
    try:
        with transaction.atomic():
            return TrackedOperation.objects.filter(pk=op.pk, lease_token=lease_token).update(**fields)
    except Exception:
        logger.exception("live: storing the poll result of operation %s failed", op.pk)
    failed = _failed(
        op,
        fields.get("last_polled_at") or clock(),
        None,
        message=SAVE_FAILED,
        reason="the console could not store what the service sent",
    )
    try:
        with transaction.atomic():
            return TrackedOperation.objects.filter(pk=op.pk, lease_token=lease_token).update(
                **failed, lease_until=None, lease_token="", updated_at=timezone.now()
            )
    except Exception:
        logger.exception("live: operation %s could not be released; its lease will run out", op.pk)
        return 0
