"""Reads of tracked operations. Nothing here calls the remote service: the
status a browser sees is always the one stored on the row by the poller."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import Count, Field, Min, Q, QuerySet
from django.http import Http404
from django.urls import reverse
from django.utils import timezone

from dashboard.api import errors
from dashboard.api.messages import catalogue_entry
from dashboard.keys.selectors import working_workspace_ids
from dashboard.live import heartbeat, registry
from dashboard.live.claims import POLL_LEASE_PREFIX
from dashboard.live.leases import lease_is_free
from dashboard.live.models import PollerSlot, TrackedOperation
from dashboard.live.outcomes import FAST_POLLS, FIRST_POLL_INTERVAL, LATER_POLL_INTERVAL
from dashboard.outbox.selectors import HELD_MESSAGE, outbox_holds

# A row that is not final and hasn't been refreshed for this long has no
# worker polling it: the page says live updates are paused.
PAUSED_AFTER = timedelta(seconds=30)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def operation_for_viewer(*, user, operation_id: int) -> TrackedOperation:
    """The operation if `user` started it, in a workspace they hold a working
    key of; 404 for anyone else (no hint it exists)."""
    op = (
        TrackedOperation.objects.select_related("owner_key")
        .filter(id=operation_id, started_by=user, owner_key__workspace_id__in=working_workspace_ids(user=user))
        .first()
    )
    if op is None:
        raise Http404("No such operation.")
    return op


def operations_for_user(
    *, user, kind: str | None = None, workspace_id: str | None = None, limit: int = 20
) -> QuerySet[TrackedOperation]:
    ops = TrackedOperation.objects.select_related("owner_key").filter(
        started_by=user, owner_key__workspace_id__in=working_workspace_ids(user=user)
    )
    if kind:
        ops = ops.filter(kind=kind)
    if workspace_id:
        ops = ops.filter(owner_key__workspace_id=workspace_id)
    return ops.order_by("-created_at", "-id")[:limit]


def last_refreshed_at(op: TrackedOperation) -> datetime:
    return op.last_polled_at or op.created_at


def _paused(*, is_final: bool, refreshed_at: datetime, now: datetime | None) -> bool:
    return not is_final and (now or timezone.now()) - refreshed_at > PAUSED_AFTER


def updates_paused(op: TrackedOperation, *, now: datetime | None = None) -> bool:
    """True when a live row has gone unrefreshed long enough that no poller can be running."""
    return _paused(is_final=op.is_final, refreshed_at=last_refreshed_at(op), now=now)


def _microseconds(moment: datetime) -> int:
    # Exact and independent of the time zone the value was read in.
    return (moment - EPOCH) // timedelta(microseconds=1)


def status_version(*, updated_at: datetime, refreshed_at: datetime, is_final: bool, paused: bool) -> str:
    """What the status region shows, in a few characters: the poll URL carries
    the version the page shows, and an equal version means nothing to send.

    Every write that changes what the region renders (status, snapshot,
    errors, the refresh time) goes through the poller's conditional UPDATE,
    which sets `updated_at`; `paused` is the one part that changes with the
    clock alone, so it is part of the version too (an unchanged row that
    becomes paused is rendered once more, with the notice)."""
    parts = f"{_microseconds(updated_at)}|{_microseconds(refreshed_at)}|{int(is_final)}|{int(paused)}"
    return hashlib.blake2s(parts.encode(), digest_size=8).hexdigest()


# The columns a status version is made of (status_version), in this order.
VERSION_COLUMNS = ("updated_at", "last_polled_at", "created_at", "is_final")


def _version_sql() -> str:
    """One row's version columns by primary key and viewer. Written out (names
    from the model) rather than built by the ORM on every poll: building and
    compiling a queryset costs ten times the query itself, and this is the
    whole of an unchanged poll's work (bench/status_poll.py)."""
    columns = ", ".join(_column(name) for name in VERSION_COLUMNS)
    table = connection.ops.quote_name(TrackedOperation._meta.db_table)
    return f"SELECT {columns} FROM {table} WHERE {_column('id')} = %s AND {_column('started_by')} = %s"


def _column(name: str) -> str:
    field = TrackedOperation._meta.get_field(name)
    assert isinstance(field, Field)  # a concrete column of the row
    return connection.ops.quote_name(field.column)


def _aware(moment: datetime) -> datetime:
    # A raw cursor on SQLite reads datetimes naive (they are stored in UTC).
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def operation_status_version(*, user, operation_id: int, now: datetime | None = None) -> str:
    """The version of the operation's status region, in one query on the
    primary key that reads four columns (no snapshot, no key, nothing
    rendered); 404 for anyone but the person who started it. A final row has
    none ("" matches no poll): its last render, answered 286, is what stops
    the polling, so it is always sent."""
    with connection.cursor() as cursor:
        cursor.execute(_version_sql(), [operation_id, user.pk])
        row = cursor.fetchone()
    if row is None:
        raise Http404("No such operation.")
    updated_at, last_polled_at, created_at, is_final = row
    if is_final:
        return ""
    refreshed_at = _aware(last_polled_at or created_at)  # created_at and updated_at are never NULL
    return status_version(
        updated_at=_aware(updated_at),
        refreshed_at=refreshed_at,
        is_final=False,
        paused=_paused(is_final=False, refreshed_at=refreshed_at, now=now),
    )


@dataclass(frozen=True)
class PauseReason:
    """Why a live row has not been refreshed, from what the console can know."""

    cause: str  # broker, rate_limit, service, slow, worker, queue, behind
    message: str


# What the poller stores on a row the service rate-limited (the catalogue's
# words, in English: dashboard/live/outcomes.py stores them untranslated).
RATE_LIMITED = catalogue_entry(errors.RateLimitedError).following


def poll_messages_waiting_since(*, now: datetime) -> datetime | None:
    """When the oldest poll message still waiting in the broker was sent, if
    it has waited longer than PAUSED_AFTER (a poller slot sent and not begun,
    dashboard/live/slots.py): no worker is taking the poller's messages."""
    return (
        PollerSlot.objects.filter(started_at__isnull=True, sent_at__lte=now - PAUSED_AFTER)
        .exclude(token="")
        .order_by("sent_at")
        .values_list("sent_at", flat=True)
        .first()
    )


def pause_reason(op: TrackedOperation, *, now: datetime | None = None) -> PauseReason | None:
    """Why updates of `op` are paused (None when they are not), naming the
    real cause: its task still in the outbox (the broker was down when it
    started: said at once, not after 30 s), the service (rate-limiting, or
    failing: its last answer set the wait), a worker still waiting for a slow
    service (its lease is renewed only while it lives), the broker, the
    worker not running or the one that held the row stopped, or a worker
    that is behind."""
    now = now or timezone.now()
    if not op.is_final and outbox_holds(op):
        return PauseReason("broker", HELD_MESSAGE)
    if not updates_paused(op, now=now):
        return None
    zone = op.owner_key.zone
    if op.last_error and op.next_poll_at and op.next_poll_at > now:
        at = op.next_poll_at.astimezone(zone).strftime("%H:%M:%S")
        # The row's last_error (shown beside this) words what the service answered.
        if op.last_error == RATE_LIMITED:
            return PauseReason(
                "rate_limit", f"The service is rate-limiting the console; the next check is at {at}, as it allows."
            )
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
    stuck = poll_messages_waiting_since(now=now)
    if stuck is not None:
        at = stuck.astimezone(zone).strftime("%H:%M:%S")
        return PauseReason(
            "queue",
            f"The checks are waiting in the task queue (since {at}): no worker is taking them. "
            "They run once a worker does.",
        )
    if op.lease_token and op.lease_until is not None:
        # Held, never given back, and the lease ran out: its worker stopped (killed, restarted).
        return PauseReason(
            "worker", "The worker that was following this stopped; the poller takes it over at its next check."
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
    def watch_seconds(self) -> str:
        """The browser's poll interval for this row, as htmx writes it ("1", "2", "0.5")."""
        seconds = self.kind.watch_seconds if self.kind is not None else 2.0
        return f"{max(float(seconds), 0.25):g}"

    @property
    def stopped(self) -> bool:
        return self.op.status == TrackedOperation.STATUS_STOPPED

    @property
    def version(self) -> str:
        """The version this render shows (`status_version`): the region's poll URL carries it."""
        return status_version(
            updated_at=self.op.updated_at,
            refreshed_at=last_refreshed_at(self.op),
            is_final=self.op.is_final,
            paused=self.paused,
        )


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


def operation_oldest_due_at(*, now: datetime | None = None) -> datetime | None:
    """When the row waiting longest for a poll fell due (not final, due, no
    lease held), or None when none waits: what /readyz, the System status page
    and the metrics call the oldest due row. The tick's own due condition, read
    through the partial index `live_op_due` in its order, first row only."""
    now = now or timezone.now()
    return (
        TrackedOperation.objects.filter(is_final=False, next_poll_at__lte=now)
        .filter(lease_is_free(now))
        .order_by("next_poll_at")
        .values_list("next_poll_at", flat=True)
        .first()
    )


@dataclass(frozen=True)
class StaleLeases:
    """Rows a poll holds (or held: a lease that ran out, never given back) but
    has not polled for two of their intervals: frozen, as a person watching
    them feels it, although nothing is due and free. A stream follower's
    rows are not counted: its stream tells it when something changes."""

    count: int
    oldest_due_at: datetime | None  # when the longest-frozen one fell due


def operations_stale_on_lease(*, now: datetime | None = None) -> StaleLeases:
    """`StaleLeases` in one aggregate over the partial index `live_op_due`.
    A row is polled each interval (5 s at first, then 10 s: outcomes.py), so
    one interval past its due time it has gone two without a poll."""
    now = now or timezone.now()
    unpolled = Q(poll_count__lt=FAST_POLLS, next_poll_at__lte=now - FIRST_POLL_INTERVAL) | Q(
        poll_count__gte=FAST_POLLS, next_poll_at__lte=now - LATER_POLL_INTERVAL
    )
    found = (
        TrackedOperation.objects.filter(is_final=False, lease_token__startswith=POLL_LEASE_PREFIX)
        .filter(unpolled)
        .aggregate(count=Count("id"), oldest=Min("next_poll_at"))
    )
    return StaleLeases(count=int(found["count"] or 0), oldest_due_at=found["oldest"])
