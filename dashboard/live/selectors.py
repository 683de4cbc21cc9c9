"""Reads of tracked operations. Nothing here calls the remote service: the
status a browser sees is always the one stored on the row by the poller."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.urls import reverse
from django.utils import timezone

from dashboard.live import heartbeat, registry
from dashboard.live.models import TrackedOperation

# A row that is not final and hasn't been refreshed for this long has no
# worker polling it: the page says live updates are paused.
PAUSED_AFTER = timedelta(seconds=30)


def operation_for_viewer(*, user, operation_id: int) -> TrackedOperation:
    """The operation if `user` started it; 404 for anyone else (no hint it exists)."""
    op = TrackedOperation.objects.select_related("owner_key").filter(id=operation_id, started_by=user).first()
    if op is None:
        raise Http404("No such operation.")
    return op


def operations_for_user(
    *, user, kind: str | None = None, workspace_id: str | None = None, limit: int = 20
) -> QuerySet[TrackedOperation]:
    ops = TrackedOperation.objects.select_related("owner_key").filter(started_by=user)
    if kind:
        ops = ops.filter(kind=kind)
    if workspace_id:
        ops = ops.filter(owner_key__workspace_id=workspace_id)
    return ops.order_by("-created_at", "-id")[:limit]


def last_refreshed_at(op: TrackedOperation) -> datetime:
    return op.last_polled_at or op.created_at


def updates_paused(op: TrackedOperation, *, now: datetime | None = None) -> bool:
    """True when a live row has gone unrefreshed long enough that no poller can be running."""
    if op.is_final:
        return False
    now = now or timezone.now()
    return now - last_refreshed_at(op) > PAUSED_AFTER


@dataclass(frozen=True)
class PauseReason:
    """Why a live row has not been refreshed, from what the console can know."""

    cause: str  # service, slow, broker, worker, behind
    message: str


def pause_reason(op: TrackedOperation, *, now: datetime | None = None) -> PauseReason | None:
    """Why updates of `op` are paused (None when they are not), naming the
    real cause: the service (its last answer: rate-limiting, failing), a
    poll still waiting for the service, the broker, or the worker."""
    now = now or timezone.now()
    if not updates_paused(op, now=now):
        return None
    zone = op.owner_key.zone
    if op.last_error and op.next_poll_at and op.next_poll_at > now:
        at = op.next_poll_at.astimezone(zone).strftime("%H:%M:%S")
        # The row's last_error (shown beside this) words what the service answered.
        return PauseReason("service", f"The last check failed; the next one is at {at}, as the service allows.")
    if op.lease_until and op.lease_until > now:
        return PauseReason("slow", "The service is slow to answer the last check; the console is still waiting for it.")
    if not heartbeat.broker_is_up():
        return PauseReason(
            "broker", "The task queue (the broker) cannot be reached, so no checks run. They resume once it is back."
        )
    seen = heartbeat.heartbeat_last_seen()
    if seen is None or now - seen > heartbeat.HEARTBEAT_STALE_AFTER:
        since = f" (last seen at {seen.astimezone(zone).strftime('%H:%M:%S')})" if seen else ""
        return PauseReason(
            "worker",
            f"The background worker is not running{since}, so no checks run. They resume when it runs again.",
        )
    return PauseReason("behind", "The background worker is running but behind; this will be checked again shortly.")


@dataclass(frozen=True)
class OperationView:
    op: TrackedOperation
    kind: registry.OperationKind | None
    kind_title: str
    template: str
    paused: bool
    refreshed_at: datetime
    pause: PauseReason | None
    page_url: str
    extra: dict[str, Any]

    @property
    def stopped(self) -> bool:
        return self.op.status == TrackedOperation.STATUS_STOPPED


def operation_view(*, op: TrackedOperation, request=None, now: datetime | None = None) -> OperationView:
    """Everything the status partial renders, from the row alone."""
    kind = registry.get_kind(op.kind)
    snapshot = op.snapshot if isinstance(op.snapshot, dict) else {}
    extra: dict[str, Any] = {}
    if kind is not None and kind.context is not None:
        extra = kind.context(op, snapshot, request) or {}
    if kind is not None and kind.page_url is not None:
        page_url = kind.page_url(op)
    else:
        page_url = reverse("live:detail", args=[op.pk])
    return OperationView(
        op=op,
        kind=kind,
        kind_title=kind.title if kind else op.kind,
        template=kind.template if kind else registry.GENERIC_TEMPLATE,
        paused=updates_paused(op, now=now),
        refreshed_at=last_refreshed_at(op).astimezone(op.owner_key.zone),
        pause=pause_reason(op, now=now),
        page_url=page_url,
        extra=extra,
    )


def operation_views_for_user(
    *, user, kind: str | None = None, workspace_id: str | None = None, limit: int = 50
) -> list[OperationView]:
    """The user's latest operations ready to render as live rows."""
    ops = operations_for_user(user=user, kind=kind, workspace_id=workspace_id, limit=limit)
    return [operation_view(op=op) for op in ops]
