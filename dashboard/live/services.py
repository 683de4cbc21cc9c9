"""Writes on tracked operations: record one, claim the due ones, poll one.

How polling is scheduled (docs/architecture.md, "A tracked operation"):

* The database row is the schedule. `live.tick` (Celery beat, every
  `CELERY_BEAT_TICK_SECONDS`) claims the due rows with a short lease and
  enqueues one `live.poll_operation(op_id, lease_token)` per claimed row.
* We enqueue per row rather than polling inline in the tick so that one slow
  remote answer (the transport may wait `SERVICE_TIMEOUT` and retry) never
  holds up every other operation, and so that several worker processes poll
  in parallel. The tick itself stays a few quick queries.
* The lease makes this safe: a poll only acts if it still holds the lease it
  was given, and writes its result with a conditional UPDATE on that lease.
  A killed worker loses nothing: its lease expires and a later tick claims
  the row again. Nothing waits in the broker with a countdown.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from dashboard.api import errors
from dashboard.api.messages import meaning_of
from dashboard.keys.errors import KeyDecryptionError
from dashboard.live import registry
from dashboard.live.models import TrackedOperation

logger = logging.getLogger("dashboard.live")

# Spec, "Limits": polling interval 5-10 s, backing off 5 s then 10 s.
FIRST_POLL_INTERVAL = timedelta(seconds=5)
LATER_POLL_INTERVAL = timedelta(seconds=10)
FAST_POLLS = 6  # the first half minute at 5 s, then every 10 s
MAX_ERROR_BACKOFF = timedelta(seconds=120)


def lease_duration() -> timedelta:
    # Long enough for one remote call with the transport's own retries.
    return timedelta(seconds=getattr(settings, "LIVE_LEASE_SECONDS", 90))


def claim_batch_size() -> int:
    return getattr(settings, "LIVE_TICK_BATCH", 100)


def poll_interval(*, poll_count: int) -> timedelta:
    """Delay before the next poll after `poll_count` successful polls."""
    return FIRST_POLL_INTERVAL if poll_count < FAST_POLLS else LATER_POLL_INTERVAL


def error_backoff(*, error_count: int) -> timedelta:
    """10 s, 20 s, 40 s... capped, after `error_count` failed polls in a row."""
    seconds = LATER_POLL_INTERVAL.total_seconds() * (2 ** max(error_count - 1, 0))
    return min(timedelta(seconds=seconds), MAX_ERROR_BACKOFF)


def _lease_is_free(now: datetime) -> Q:
    return Q(lease_until__isnull=True) | Q(lease_until__lte=now)


def _due(now: datetime) -> Q:
    return Q(is_final=False, next_poll_at__lte=now) & _lease_is_free(now)


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
    remote_id = str(remote_id)
    existing = TrackedOperation.objects.filter(owner_key=owner_key, kind=kind, remote_id=remote_id).first()
    if existing is not None:
        return existing
    snapshot = snapshot if isinstance(snapshot, dict) else {}
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
                title=_short(title),
                context=context or {},
                status=status,
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


def operations_claim_due(*, now: datetime | None = None, limit: int | None = None) -> list[Claim]:
    """Lease every due row (not final, next_poll_at <= now, lease free or expired).

    On PostgreSQL the candidate rows are locked with SKIP LOCKED so two ticks
    never wait on each other; on every database the lease itself is taken by a
    conditional UPDATE that re-checks the due condition, so a row can only be
    claimed by one tick even where row locks don't exist (SQLite).
    """
    now = now or timezone.now()
    limit = limit or claim_batch_size()
    token = uuid.uuid4().hex
    with transaction.atomic():
        candidates = TrackedOperation.objects.filter(_due(now)).order_by("next_poll_at", "id")
        if connection.features.has_select_for_update_skip_locked:
            candidates = candidates.select_for_update(skip_locked=True)
        ids = list(candidates.values_list("id", flat=True)[:limit])
        if not ids:
            return []
        TrackedOperation.objects.filter(_due(now), id__in=ids).update(
            lease_until=now + lease_duration(), lease_token=token
        )
        claimed = list(
            TrackedOperation.objects.filter(id__in=ids, lease_token=token)
            .order_by("next_poll_at", "id")
            .values_list("id", flat=True)
        )
    return [Claim(operation_id=op_id, lease_token=token) for op_id in claimed]


def _claim_one(*, operation_id: int, now: datetime) -> str | None:
    """Take the lease of one row that isn't final and isn't leased (a poll asked for
    outside the tick). Due-ness is not required: asking for a poll means now."""
    token = uuid.uuid4().hex
    taken = TrackedOperation.objects.filter(Q(id=operation_id, is_final=False) & _lease_is_free(now)).update(
        lease_until=now + lease_duration(), lease_token=token
    )
    return token if taken else None


# --- polling ---------------------------------------------------------------------


def _stop_message(exc: errors.ApiError) -> str:
    meaning = meaning_of(exc)
    if meaning.kind == "invalid":
        return f"{meaning.following.rstrip('.')}: {exc.message}"
    return meaning.following


def _transient_message(exc: errors.ApiError) -> str:
    return meaning_of(exc).following


def operation_poll(
    *, operation_id: int, lease_token: str | None = None, now: datetime | None = None
) -> TrackedOperation | None:
    """Fetch the latest state of one operation once, store it, schedule the next poll.

    Idempotent: a final row, a missing row, or a row whose lease the caller
    doesn't hold is left untouched (no remote call). With no `lease_token`
    the poll takes the lease itself if it is free.
    """
    now = now or timezone.now()
    op = TrackedOperation.objects.select_related("owner_key").filter(id=operation_id).first()
    if op is None or op.is_final:
        return op
    if lease_token is None:
        lease_token = _claim_one(operation_id=operation_id, now=now)
        if lease_token is None:
            return op
    elif op.lease_token != lease_token or op.lease_until is None or op.lease_until <= now:
        logger.info("live: skipping operation %s, its lease is no longer ours", operation_id)
        return op

    kind = registry.get_kind(op.kind)
    if kind is None:
        return _finish(op, lease_token, now, stop_message=f"The console doesn't know how to follow {op.kind!r}.")

    try:
        snapshot = kind.fetch(op.owner_key.client(max_retries=0), op)
    except errors.RateLimitedError as exc:
        wait = timedelta(seconds=exc.retry_after) if exc.retry_after else error_backoff(error_count=op.error_count + 1)
        # Strictly after Retry-After, never on its edge.
        return _record_error(op, lease_token, now, exc, next_poll_at=now + wait + timedelta(seconds=1))
    except errors.ApiError as exc:
        if meaning_of(exc).stops_following:
            # Another poll can't help: the key is refused or may not read
            # this, or the operation no longer exists.
            return _finish(op, lease_token, now, stop_message=_stop_message(exc), request_id=exc.request_id)
        return _record_error(
            op, lease_token, now, exc, next_poll_at=now + error_backoff(error_count=op.error_count + 1)
        )
    except KeyDecryptionError:
        return _finish(op, lease_token, now, stop_message="The stored API key can't be read any more; add it again.")
    except Exception:
        logger.exception("live: polling operation %s failed", operation_id)
        return _record_error(
            op, lease_token, now, None, next_poll_at=now + error_backoff(error_count=op.error_count + 1)
        )

    if not isinstance(snapshot, dict):
        snapshot = {"value": snapshot}
    status = kind.read_status(snapshot) or op.status
    final = kind.is_final(status)
    return _write(
        op,
        lease_token,
        status=status,
        snapshot=snapshot,
        is_final=final,
        next_poll_at=None if final else now + poll_interval(poll_count=op.poll_count + 1),
        poll_count=F("poll_count") + 1,
        error_count=0,
        last_error="",
        last_error_request_id="",
        last_polled_at=now,
    )


def _record_error(op, lease_token, now, exc: errors.ApiError | None, *, next_poll_at) -> TrackedOperation:
    message = _transient_message(exc) if exc is not None else "The last check failed; trying again shortly."
    logger.warning(
        "live: polling operation %s failed (%s, request id %s); next poll at %s",
        op.id,
        type(exc).__name__ if exc else "error",
        getattr(exc, "request_id", None),
        next_poll_at.isoformat(),
    )
    return _write(
        op,
        lease_token,
        next_poll_at=next_poll_at,
        error_count=F("error_count") + 1,
        last_error=message,
        last_error_request_id=(getattr(exc, "request_id", None) or "")[:128],
        last_polled_at=now,
    )


def _finish(op, lease_token, now, *, stop_message: str, request_id: str | None = None) -> TrackedOperation:
    logger.warning("live: stopped following operation %s: %s", op.id, stop_message)
    return _write(
        op,
        lease_token,
        status=TrackedOperation.STATUS_STOPPED,
        is_final=True,
        next_poll_at=None,
        last_error=stop_message,
        last_error_request_id=(request_id or "")[:128],
        last_polled_at=now,
    )


def _write(op: TrackedOperation, lease_token: str, **fields) -> TrackedOperation:
    """Store a poll's result and release the lease, only if we still hold it."""
    fields.update(lease_until=None, lease_token="", updated_at=timezone.now())
    written = TrackedOperation.objects.filter(id=op.id, lease_token=lease_token).update(**fields)
    if not written:
        logger.info("live: lost the lease of operation %s meanwhile; result dropped", op.id)
    op.refresh_from_db()
    return op
