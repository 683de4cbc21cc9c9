"""Claiming due rows: a batch of them, or one, leased for the poll that is
about to run (dashboard/live/services.py). A row is claimed only when a poll
is about to start, so nothing leased waits in the broker."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from dashboard.live.leases import lease_is_free, lease_take
from dashboard.live.models import TrackedOperation


def lease_duration() -> timedelta:
    # Long enough for a batch: fetches start only in its first part (see _fetch_deadline).
    return timedelta(seconds=settings.LIVE_LEASE_SECONDS)


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
    token, claimed = claim_batch(now=now or timezone.now(), limit=limit or poll_batch_size())
    return [Claim(operation_id=op.pk, lease_token=token) for op in claimed]


def claim_one(*, operation_id: int, now: datetime) -> str | None:
    """Take the lease of one row that isn't final and isn't leased (a poll asked for
    outside the tick). Due-ness is not required: asking for a poll means now."""
    rows = TrackedOperation.objects.filter(id=operation_id, is_final=False)
    return lease_take(rows, seconds=lease_duration().total_seconds(), now=now)
