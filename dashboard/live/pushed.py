"""Pushed states: a consumer other than the poller follows an operation
itself (a worker reading a streamed call) and writes what it receives at
once, stored exactly as a poll's result is. It holds the row with a short
lease (dashboard/live/leases.py) that it renews while it lives
(`LeaseKeeper`): the batch poller leaves a held row alone and takes it back
when the lease runs out, so a killed follower's row is polled again within
`LIVE_STREAM_LEASE_SECONDS`."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.conf import settings
from django.utils import timezone

from dashboard.live import registry
from dashboard.live.leases import LeaseRenewal, lease_renew, lease_take
from dashboard.live.models import TrackedOperation
from dashboard.live.outcomes import REQUEST_ID_LIMIT, STATUS_LIMIT, poll_interval, run_on_final, stopped_fields
from dashboard.live.storable import storable, storable_text

logger = logging.getLogger("dashboard.live")


def operation_lease(*, operation_id: int, seconds: float, now: datetime | None = None) -> str | None:
    """Hold a row for a consumer that follows the operation itself (a worker
    reading a streamed call): the batch poller leaves a leased row alone, and
    takes it back if the consumer dies and the lease runs out. Returns the
    lease token, or None when the row is final or held already."""
    return lease_take(TrackedOperation.objects.filter(id=operation_id, is_final=False), seconds=seconds, now=now)


def operation_push(
    *,
    operation_id: int,
    lease_token: str,
    snapshot: dict,
    context: dict | None = None,
    release: bool = False,
    now: datetime | None = None,
) -> bool:
    """Store a state the lease holder received (an event of a streamed call)
    at once, exactly as a poll's result is stored (cleaned, status by the
    kind, final or scheduled), so the page that watches the row shows it on
    its next look. `context` is merged into the row's context (a conversation
    id learnt on the way). `release` hands a row that is not final back to
    the poller, due at its usual interval. False when the lease is no longer
    the caller's (nothing is written)."""
    now = now or timezone.now()
    op = TrackedOperation.objects.filter(id=operation_id, lease_token=lease_token).first()
    if op is None:
        return False
    kind = registry.get_kind(op.kind)
    snapshot = storable(snapshot if isinstance(snapshot, dict) else {"value": snapshot})
    status = (kind.read_status(snapshot) if kind else registry.status_member(snapshot)) or op.status
    final = kind.is_final(status) if kind else False
    fields: dict[str, Any] = {
        "status": storable_text(str(status), limit=STATUS_LIMIT),
        "snapshot": snapshot,
        "is_final": final,
        "last_polled_at": now,
        "updated_at": now,
        "error_count": 0,
        "last_error": "",
        "last_error_request_id": "",
    }
    if context:
        fields["context"] = storable({**(op.context or {}), **context})
    if final or release:
        fields.update(
            lease_until=None,
            lease_token="",
            next_poll_at=None if final else now + poll_interval(poll_count=op.poll_count),
        )
    stored = bool(TrackedOperation.objects.filter(id=operation_id, lease_token=lease_token).update(**fields))
    if stored and final:
        run_on_final(kind, [operation_id])
    return stored


def operation_release(
    *, operation_id: int, lease_token: str, message: str = "", request_id: str = "", stop: bool = False
) -> bool:
    """The lease holder gives the row back: to the poller, due now (a stream
    that broke: the next poll re-reads the operation), or stopped with
    `message` (a refusal no poll can change)."""
    now = timezone.now()
    if stop:
        fields: dict[str, Any] = stopped_fields(TrackedOperation(pk=operation_id), now, message, request_id)
    else:
        fields = {"next_poll_at": now, "last_error": storable_text(message), "last_polled_at": now}
        fields["last_error_request_id"] = storable_text(request_id, limit=REQUEST_ID_LIMIT)
    return bool(
        TrackedOperation.objects.filter(id=operation_id, lease_token=lease_token).update(
            **fields, lease_until=None, lease_token="", updated_at=now
        )
    )


def stream_lease_seconds() -> float:
    """How long a stream follower holds its row between renewals: short, so
    a killed worker's row goes back to the poller within a minute."""
    return float(settings.LIVE_STREAM_LEASE_SECONDS)


def operation_lease_renew(
    *, operation_id: int, lease_token: str, seconds: float | None = None, now: datetime | None = None
) -> bool:
    """Extend the lease of a holder that is still alive. False when the row is
    no longer its own (the poller took it after the lease ran out, or it is
    final): the holder stops and writes nothing more. A lease that ran out
    but that nobody took is renewed: nobody else read the row meanwhile."""
    seconds = stream_lease_seconds() if seconds is None else seconds
    rows = TrackedOperation.objects.filter(id=operation_id, is_final=False)
    return lease_renew(rows, token=lease_token, seconds=seconds, now=now)


class LeaseKeeper(LeaseRenewal):
    """Keeps a stream follower's short lease while the follower lives
    (`LeaseRenewal`: every third of the lease, a chat stream being silent
    between `started` and `result` for minutes with no keep-alive from the
    service; `renew()` renews it as events arrive). When the worker dies the
    lease runs out and the poller takes the row back."""

    def __init__(self, *, operation_id: int, lease_token: str, seconds: float | None = None) -> None:
        self.operation_id = operation_id
        self.lease_token = lease_token
        super().__init__(
            lambda: TrackedOperation.objects.filter(id=operation_id, is_final=False),
            token=lease_token,
            seconds=stream_lease_seconds() if seconds is None else seconds,
            name=f"lease of operation {operation_id}",
        )
