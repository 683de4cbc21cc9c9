"""Claiming due rows: a batch of them, or one, leased for the poll that is
about to run (dashboard/live/services.py). A row is claimed only when a poll
is about to start, so nothing leased waits in the broker.

The lease is short (`LIVE_LEASE_SECONDS`, a few seconds) and renewed while
the batch works (`batch_lease_renewal`), so a killed worker's rows are free
again within one lease instead of a batch's whole worst case. Its token
starts with `POLL_LEASE_PREFIX`, which tells a poll's lease from a stream
follower's (dashboard/live/pushed.py) where rows held too long are counted
(selectors.operations_stale_on_lease)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from dashboard.live.leases import LeaseRenewal, lease_is_free, lease_take, lease_token_new
from dashboard.live.models import TrackedOperation

POLL_LEASE_PREFIX = "poll:"


def lease_duration() -> timedelta:
    """How long a poll's lease lasts between renewals: what a killed worker's rows wait."""
    return timedelta(seconds=settings.LIVE_LEASE_SECONDS)


def call_longest() -> timedelta:
    """The longest one remote call may take: its connect and read timeouts."""
    return timedelta(seconds=float(settings.SERVICE_TIMEOUT) + float(settings.SERVICE_CONNECT_TIMEOUT))


def batch_fetch_window() -> timedelta:
    """How long after its claim a batch may still start a fetch: one call's
    worst case. The rows it has not reached by then (a slow service, a busy
    key) are given back, due, to the next claim, rather than wait in it."""
    return call_longest()


def batch_longest() -> timedelta:
    """The longest a live batch may hold its rows: its fetch window, the last
    fetch's timeouts, and a lease to store the results. Renewal stops there,
    so even a stuck batch (a hung call, a lock) lets its rows go."""
    return batch_fetch_window() + call_longest() + lease_duration()


def batch_lease_renewal(token: str, *, clock: Callable[[], datetime] = timezone.now) -> LeaseRenewal:
    """The renewal a batch runs under (`with ...:`): its rows' lease, renewed
    while they are still held by `token`, for `batch_longest()` at most."""
    return LeaseRenewal(
        lambda: TrackedOperation.objects.filter(lease_token=token, is_final=False),
        token=token,
        seconds=lease_duration().total_seconds(),
        longest=batch_longest().total_seconds(),
        clock=clock,
        name="lease of a poll batch",
    )


def poll_batch_size() -> int:
    """Rows one poll task claims at a time (one batch)."""
    return max(1, int(settings.LIVE_POLL_BATCH))


def _due(now: datetime) -> Q:
    return Q(is_final=False, next_poll_at__lte=now) & lease_is_free(now)


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


def claim_batch(*, now: datetime, limit: int) -> tuple[str, list[TrackedOperation]]:
    """Lease up to `limit` due rows (not final, next_poll_at <= now, lease free
    or expired), most overdue first, and read them with their keys.

    On PostgreSQL the candidate rows are locked with SKIP LOCKED so two claims
    never wait on each other; on every database the lease itself is taken by a
    conditional UPDATE that re-checks the due condition, so a row can only be
    claimed once even where row locks don't exist (SQLite).
    """
    token = lease_token_new(POLL_LEASE_PREFIX)
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
    """Lease up to `limit` (default `LIVE_POLL_BATCH`) due rows; see `claim_batch`."""
    token, claimed = claim_batch(now=now or timezone.now(), limit=limit or poll_batch_size())
    return [Claim(operation_id=op.pk, lease_token=token) for op in claimed]


def claim_one(*, operation_id: int, now: datetime) -> str | None:
    """Take the lease of one row that isn't final and isn't leased (a poll asked for
    outside the tick). Due-ness is not required: asking for a poll means now."""
    rows = TrackedOperation.objects.filter(id=operation_id, is_final=False)
    return lease_take(rows, seconds=lease_duration().total_seconds(), now=now, token=lease_token_new(POLL_LEASE_PREFIX))
