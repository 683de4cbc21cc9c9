"""Gauges read from the database (and the cache, and the broker) at scrape time.

What "now" looks like is already stored: the tracked rows, the poller's
slots, the heartbeat, the inbox's refresh times, stored keys, axes' attempts.
Reading it when Prometheus asks (every 15-60 s) costs a handful of aggregate
queries per scrape and nothing per request or per task, and needs no
multiprocess gauge (a dead process cannot leave a stale value behind). Each
part is read on its own: one that fails (the broker down, a table missing
mid-migration) is left out of this scrape, logged, and reported by
`console_metrics_collect_ok{part}` = 0; the others are still served.
They are the console's, not a process's: served once, at `/metrics/state`
(scrape.py), never beside each process's counters.

Areas add their own gauges through `register_gauges()` (called in their
AppConfig.ready()), since the core names no area: objects/metrics.py adds the
object jobs by kind and state.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from dashboard.metrics.registry import OTHER, STATES, state_label

logger = logging.getLogger("dashboard.metrics")

BROKER_TIMEOUT_SECONDS = 1.0
# A delivery's channel is "email" or "webhook:<id>": the label keeps the type.
DELIVERY_CHANNELS = ("email", "webhook")


@dataclass(frozen=True)
class Gauge:
    """A gauge an area reports: its samples as (label values, value)."""

    name: str
    documentation: str
    labels: tuple[str, ...] = ()
    samples: Sequence[tuple[tuple[str, ...], float]] = field(default_factory=list)


GaugeSource = Callable[[], Iterable[Gauge]]
_sources: dict[str, GaugeSource] = {}


def register_gauges(part: str, source: GaugeSource) -> None:
    """Add an area's gauges to every scrape (`part` names it in console_metrics_collect_ok)."""
    _sources[part] = source


def _family(gauge: Gauge) -> GaugeMetricFamily:
    family = GaugeMetricFamily(gauge.name, gauge.documentation, labels=list(gauge.labels))
    for values, value in gauge.samples:
        family.add_metric(list(values), value)
    return family


def _age(now: datetime, then: datetime | None) -> float | None:
    return None if then is None else max(0.0, (now - then).total_seconds())


# --- the core's parts ---------------------------------------------------------------


def live_gauges(now: datetime) -> Iterator[Gauge]:
    from dashboard.live import registry as kinds
    from dashboard.live.models import PollerSlot, TrackedOperation
    from dashboard.live.selectors import operation_oldest_due_at, operations_stale_on_lease

    # Every registered kind in each state it can be followed in (the known
    # states less its final ones) is there at zero: the series exist from the start.
    counts: dict[tuple[str, str], float] = {}
    for name in kinds.kind_names():
        registered = kinds.get_kind(name)
        for state in sorted(STATES - set(registered.final_statuses) if registered else ()):
            counts[(name, state)] = 0.0
    # Rows still followed only (not final: the partial index live_op_due's rows): what
    # ended is counted as it ends (console_live_operations_finished), not read for ever.
    rows = TrackedOperation.objects.filter(is_final=False).values("kind", "status").annotate(n=Count("id"))
    for row in rows.order_by():
        kind = kinds.get_kind(row["kind"])
        if kind is None:
            key = (OTHER, state_label(row["status"]))
        else:
            key = (kind.name, state_label(row["status"], also=kind.final_statuses))
        counts[key] = counts.get(key, 0) + row["n"]
    yield Gauge(
        "console_live_operations",
        "Tracked operations still followed (not final), by kind and state.",
        ("kind", "state"),
        [(key, value) for key, value in sorted(counts.items())],
    )
    # The same "oldest due row" /readyz and the System status page read (due, no lease held).
    oldest = operation_oldest_due_at(now=now)
    yield Gauge(
        "console_live_oldest_due_seconds",
        "How long the longest-waiting due tracked operation (no poll under way) has been due; 0: none.",
        samples=[((), _age(now, oldest) or 0.0)],
    )
    # What the oldest due row cannot see: rows a poll holds (or a dead worker held)
    # but has not polled for two intervals. /readyz's `leases` part reads the same.
    stale = operations_stale_on_lease(now=now)
    yield Gauge(
        "console_live_stale_leased_operations",
        "Tracked operations a poll holds (or held) on a lease but has not polled for two intervals; 0: none.",
        samples=[((), float(stale.count))],
    )
    yield Gauge(
        "console_live_stale_lease_seconds",
        "How long the longest-frozen leased tracked operation has been due; 0: none.",
        samples=[((), _age(now, stale.oldest_due_at) or 0.0)],
    )
    slots = PollerSlot.objects.aggregate(
        idle=Count("id", filter=Q(token="")),
        queued=Count("id", filter=~Q(token="") & Q(started_at__isnull=True)),
        running=Count("id", filter=~Q(token="") & Q(started_at__isnull=False)),
    )
    yield Gauge(
        "console_live_poller_slots",
        "Poller slots (LIVE_POLL_MAX_QUEUED poll messages at most): idle, queued in the broker, running.",
        ("state",),
        [((state,), float(slots[state] or 0)) for state in ("idle", "queued", "running")],
    )


def heartbeat_gauges(now: datetime) -> Iterator[Gauge]:
    """The heartbeats dashboard/live/heartbeat.py keeps in the cache. One never
    seen (beat or a queue's worker not started yet, or the cache emptied) is
    +Inf, not left out: the series is there from the first scrape (an
    `absent()` rule would fire on a fresh stack), and an age rule fires for
    it as for a stale one once its `for:` has passed."""
    from dashboard.live import heartbeat

    yield Gauge(
        "console_live_tick_age_seconds",
        "Seconds since a worker last ran beat's live.tick (sent every CELERY_BEAT_TICK_SECONDS); +Inf: never seen.",
        samples=[((), _seen(now, heartbeat.heartbeat_last_seen()))],
    )
    yield Gauge(
        "console_beat_heartbeat_age_seconds",
        "Seconds since the Celery beat process last sent a task (it records at most every few seconds); "
        "+Inf: never seen.",
        samples=[((), _seen(now, heartbeat.beat_last_seen()))],
    )
    yield Gauge(
        "console_worker_heartbeat_age_seconds",
        "Seconds since a Celery worker consuming the queue last said it was alive (every few seconds); "
        "+Inf: never seen.",
        ("queue",),
        [((queue,), _seen(now, heartbeat.worker_last_seen(queue))) for queue in broker_queues()],
    )


def _seen(now: datetime, then: datetime | None) -> float:
    age = _age(now, then)
    return math.inf if age is None else age


def broker_queues() -> list[str]:
    """The console's queues: Celery's default (the poller's, short tasks) and the streams' ones when set."""
    from celery import current_app

    queues = [str(current_app.conf.task_default_queue)]
    for name in (settings.CELERY_STREAM_QUEUE, settings.AGENTS_STREAM_QUEUE):
        if name and name not in queues:
            queues.append(name)
    return queues


def broker_gauges(now: datetime) -> Iterator[Gauge]:
    """Messages waiting in each of the console's queues: Redis' LLEN (over
    kombu's priority lists), the SQLite broker's visible rows, AMQP's count:
    whatever the transport answers to a passive declare. A queue never made
    (Redis has no empty lists) is 0."""
    from kombu import Connection
    from kombu.exceptions import ChannelError

    samples = []
    url = settings.CELERY_BROKER_URL
    options = {} if url.startswith("sqlite://") else {"socket_timeout": BROKER_TIMEOUT_SECONDS}
    with Connection(url, connect_timeout=BROKER_TIMEOUT_SECONDS, transport_options=options) as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=BROKER_TIMEOUT_SECONDS)
        channel = conn.channel()
        try:
            for queue in broker_queues():
                try:
                    waiting = channel.queue_declare(queue=queue, passive=True).message_count
                except ChannelError:
                    waiting = 0
                samples.append(((queue,), float(waiting or 0)))
        finally:
            channel.close()
    yield Gauge("console_broker_queue_messages", "Messages waiting in the broker, by queue.", ("queue",), samples)


def inbox_gauges(now: datetime) -> Iterator[Gauge]:
    from dashboard.inbox.models import WorkspaceRefresh

    samples = [
        ((workspace_id,), _age(now, refreshed_at) or 0.0)
        for workspace_id, refreshed_at in WorkspaceRefresh.objects.filter(refreshed_at__isnull=False)
        .values_list("workspace_id", "refreshed_at")
        .order_by("workspace_id")
    ]
    # The label is a workspace id: bounded by the workspaces the console serves
    # (a few per team), and an operator needs to know which one's inbox is stale.
    yield Gauge(
        "console_inbox_refresh_age_seconds",
        "Seconds since a workspace's waiting items were last read from the service (INBOX_REFRESH_SECONDS apart).",
        ("workspace",),
        samples,
    )


def key_gauges(now: datetime) -> Iterator[Gauge]:
    from dashboard.keys.models import ApiKey

    refused = ApiKey.objects.filter(refused_at__isnull=False).count()
    yield Gauge(
        "console_api_keys_refused",
        "Stored API keys the service refused (401) and nobody has checked again since.",
        samples=[((), float(refused))],
    )


def login_gauges(now: datetime) -> Iterator[Gauge]:
    from axes.models import AccessAttempt

    cool_off = settings.AXES_COOLOFF_TIME
    locked = AccessAttempt.objects.filter(
        failures_since_start__gte=settings.AXES_FAILURE_LIMIT, attempt_time__gte=now - cool_off
    ).count()
    yield Gauge(
        "console_login_locked_out",
        "Accounts or addresses locked out of logging in right now (django-axes' attempts at the limit).",
        samples=[((), float(locked))],
    )


def delivery_gauges(now: datetime) -> Iterator[Gauge]:
    """Notifications waiting to be sent and given up on, by channel type (a
    webhook's id folded into `webhook`: the label never grows with the data).
    Sent rows are not counted: they only pile up; `rate()` of the tasks
    `reach.deliver` shows the sending."""
    from dashboard.reach.models import Delivery

    counts = {
        (channel, state): 0.0
        for channel in DELIVERY_CHANNELS
        for state in (Delivery.STATUS_PENDING, Delivery.STATUS_FAILED)
    }
    rows = (
        Delivery.objects.filter(status__in=[Delivery.STATUS_PENDING, Delivery.STATUS_FAILED])
        .values("channel", "status")
        .annotate(n=Count("id"))
        .order_by()
    )
    for row in rows:
        channel = str(row["channel"]).split(":", 1)[0]
        key = (channel if channel in DELIVERY_CHANNELS else OTHER, row["status"])
        counts[key] = counts.get(key, 0.0) + row["n"]
    yield Gauge(
        "console_deliveries",
        "Notifications waiting to be sent (pending) or given up on after their retries (failed), by channel type.",
        ("channel", "state"),
        sorted(counts.items()),
    )


def workspace_gauges(now: datetime) -> Iterator[Gauge]:
    """Each workspace the console holds a key of, with its name (the newest
    key's: a workspace renamed on the service is renamed here when a key is
    next added or checked). Join it on `workspace` to show names:
    `console_inbox_refresh_age_seconds * on(workspace) group_left(name) console_workspace_info`."""
    from dashboard.keys.models import ApiKey

    names: dict[str, str] = {}
    for workspace_id, name in ApiKey.objects.values_list("workspace_id", "workspace_name").order_by("pk"):
        if workspace_id:
            names[workspace_id] = name or workspace_id
    yield Gauge(
        "console_workspace_info",
        "A workspace the console holds a key of, with its name (always 1): join on `workspace`.",
        ("workspace", "name"),
        [((workspace_id, names[workspace_id]), 1.0) for workspace_id in sorted(names)],
    )


CORE_PARTS: dict[str, Callable[[datetime], Iterable[Gauge]]] = {
    "live": live_gauges,
    "heartbeat": heartbeat_gauges,
    "broker": broker_gauges,
    "inbox": inbox_gauges,
    "keys": key_gauges,
    "logins": login_gauges,
    "workspaces": workspace_gauges,
    "deliveries": delivery_gauges,
}


class DatabaseCollector(Collector):
    """A prometheus_client collector: every part read anew at each scrape."""

    def collect(self) -> Iterator[Metric]:
        now = timezone.now()
        parts: dict[str, Callable[[], Iterable[Gauge]]] = {
            name: partial(read, now) for name, read in CORE_PARTS.items()
        }
        parts.update(_sources)
        ok = GaugeMetricFamily(
            "console_metrics_collect_ok",
            "1 when a part of the database-derived metrics was read in this scrape, 0 when it failed (see the log).",
            labels=["part"],
        )
        seconds = GaugeMetricFamily(
            "console_metrics_collect_seconds", "Time this scrape took to read each part.", labels=["part"]
        )
        for name, read in parts.items():
            started = time.perf_counter()
            try:
                gauges = list(read())
            except Exception as exc:
                # Class name only: a broker or database URL in a message may carry a password.
                logger.warning("metrics: reading %s failed (%s)", name, type(exc).__name__)
                ok.add_metric([name], 0)
                continue
            finally:
                seconds.add_metric([name], time.perf_counter() - started)
            ok.add_metric([name], 1)
            for gauge in gauges:
                yield _family(gauge)
        yield ok
        yield seconds
