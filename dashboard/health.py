"""Health and readiness: plain checks, each answering "ok" or "error: <Name>"
(an exception's class name, or the name of a condition such as
`HeartbeatStale`), never a URL, host or message, which could carry a password
from DATABASE_URL, CELERY_BROKER_URL or CACHE_URL.

* `/livez` asks nothing: the process answers (the container's healthcheck).
* `/healthz` (kept as it was: database and broker) is what the page's own
  script asks while the console looks unreachable (static/js/console.js), and
  what `make run`'s tests wait for; it is not an alias of `/readyz`, because a
  stopped beat must not make open pages say "connection lost".
* `/readyz` (`readiness_report`): database, broker, cache, beat, a worker of
  the poller's queue, the oldest due tracked row, each against a threshold
  in settings (READY_*), the stream followers' worker when they have a queue
  of their own (`streams`: CELERY_STREAM_QUEUE), and rows a poll holds but has not polled for two
  intervals (`leases`: a batch stuck on its rows). For a load balancer or a monitor: 503 names the part.

The infrastructure probes live in dashboard/probes.py (re-exported here) so the
live heartbeat can use them without importing this module, which reads it.
`manage.py preflight`, the System status page and the metrics reuse these
functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from dashboard.live import heartbeat
from dashboard.live.selectors import operation_oldest_due_at, operations_stale_on_lease
from dashboard.probes import (
    OK,
    broker_queue_depths,
    error_word,
    health_broker_check,
    health_cache_check,
    health_database_check,
)

__all__ = [
    "OK",
    "HealthReport",
    "ReadinessReport",
    "broker_queue_depths",
    "health_beat_check",
    "health_broker_check",
    "health_cache_check",
    "health_database_check",
    "health_poller_check",
    "health_report",
    "health_worker_check",
    "readiness_report",
]

# Conditions that are not exceptions, in the same "error: <Name>" shape.
NEVER_SEEN = "error: HeartbeatMissing"  # no heartbeat at all (never started, or the cache forgot)
STALE = "error: HeartbeatStale"  # older than its threshold
BEHIND = "error: PollerBehind"  # a due row has waited longer than READY_DUE_MAX_AGE
LEASE_STALE = "error: LeaseStale"  # rows held by a poll, not polled for two intervals


@dataclass(frozen=True)
class HealthReport:
    """`/healthz`: database and broker."""

    database: str
    broker: str

    @property
    def healthy(self) -> bool:
        return self.database == OK and self.broker == OK

    def as_dict(self) -> dict[str, str]:
        return {
            "status": OK if self.healthy else "unavailable",
            "database": self.database,
            "broker": self.broker,
        }


def health_report(*, broker_timeout: float = 2.0) -> HealthReport:
    return HealthReport(database=health_database_check(), broker=health_broker_check(timeout=broker_timeout))


def _age(moment: datetime | None, now: datetime) -> float | None:
    return None if moment is None else max((now - moment).total_seconds(), 0.0)


def _heartbeat_check(read, max_age: float, now: datetime | None) -> tuple[str, float | None]:
    """(check, age in seconds) of one heartbeat read with `read()`."""
    now = now or timezone.now()
    try:
        age = _age(read(), now)
    except Exception as exc:  # the cache down: the heartbeat can't be read
        return error_word(exc), None
    if age is None:
        return NEVER_SEEN, None
    return (OK if age <= max_age else STALE), age


def beat_heartbeat_age(*, now: datetime | None = None) -> tuple[str, float | None]:
    return _heartbeat_check(heartbeat.beat_last_seen, settings.READY_BEAT_MAX_AGE, now)


def worker_heartbeat_age(*, now: datetime | None = None) -> tuple[str, float | None]:
    return _heartbeat_check(heartbeat.worker_last_seen, settings.READY_WORKER_MAX_AGE, now)


def oldest_due_age(*, now: datetime | None = None) -> tuple[str, float | None]:
    """(check, seconds the oldest due row has waited; 0 when none waits)."""
    now = now or timezone.now()
    try:
        age = _age(operation_oldest_due_at(now=now), now) or 0.0
    except Exception as exc:  # the database down: its own check names it too
        return error_word(exc), None
    return (OK if age <= settings.READY_DUE_MAX_AGE else BEHIND), age


def stream_queues() -> list[str]:
    """The queues of stream followers the settings name apart from the
    poller's (chat answers and Studio progress ride them); none when the
    poller's own worker follows streams too."""
    default = heartbeat.default_queue()
    queues: list[str] = []
    for queue in (settings.CELERY_STREAM_QUEUE, settings.AGENTS_STREAM_QUEUE):
        if queue and queue != default and queue not in queues:
            queues.append(queue)
    return queues


def streams_heartbeat_age(*, now: datetime | None = None) -> tuple[str, float | None]:
    """(check, age) of the stalest worker of the stream queues: each must
    have been alive within READY_WORKER_MAX_AGE."""
    worst: tuple[str, float | None] = (OK, None)
    for queue in stream_queues():
        check, age = _heartbeat_check(
            lambda queue=queue: heartbeat.worker_last_seen(queue), settings.READY_WORKER_MAX_AGE, now
        )
        if check != OK:
            return check, age
        if age is not None and (worst[1] is None or age > worst[1]):
            worst = (check, age)
    return worst


def stale_lease_age(*, now: datetime | None = None) -> tuple[str, float | None, int | None]:
    """(check, seconds the longest-frozen leased row has been due, rows frozen
    on a lease): any such row fails the check, since nothing else would
    notice it (it is neither due and free nor a dead worker's, to the other
    checks)."""
    now = now or timezone.now()
    try:
        stale = operations_stale_on_lease(now=now)
    except Exception as exc:  # the database down: its own check names it too
        return error_word(exc), None, None
    return (OK if stale.count == 0 else LEASE_STALE), _age(stale.oldest_due_at, now) or 0.0, stale.count


def health_beat_check(*, now: datetime | None = None) -> str:
    """Celery beat published a task within READY_BEAT_MAX_AGE."""
    return beat_heartbeat_age(now=now)[0]


def health_worker_check(*, now: datetime | None = None) -> str:
    """A worker of the poller's queue was alive within READY_WORKER_MAX_AGE."""
    return worker_heartbeat_age(now=now)[0]


def health_poller_check(*, now: datetime | None = None) -> str:
    """No tracked row has been due for longer than READY_DUE_MAX_AGE."""
    return oldest_due_age(now=now)[0]


@dataclass(frozen=True)
class ReadinessReport:
    """`/readyz`: every part's check, and the ages behind the time-based ones."""

    parts: dict[str, str]
    seconds: dict[str, float | None] = field(default_factory=dict)
    counts: dict[str, int | None] = field(default_factory=dict)

    @property
    def ready(self) -> bool:
        return all(check == OK for check in self.parts.values())

    @property
    def down(self) -> list[str]:
        return [name for name, check in self.parts.items() if check != OK]

    def as_dict(self) -> dict[str, object]:
        return {
            "status": OK if self.ready else "unavailable",
            **self.parts,
            # Whole seconds: enough to act on, and the same for every reader.
            "seconds": {name: None if value is None else round(value) for name, value in self.seconds.items()},
            "counts": dict(self.counts),
        }


def readiness_report(*, now: datetime | None = None, broker_timeout: float = 2.0) -> ReadinessReport:
    now = now or timezone.now()
    beat, beat_age = beat_heartbeat_age(now=now)
    worker, worker_age = worker_heartbeat_age(now=now)
    poller, due_age = oldest_due_age(now=now)
    leases, stale_age, stale_count = stale_lease_age(now=now)
    # The stream followers' worker, when they have a queue of their own.
    streams: dict[str, str] = {}
    seconds: dict[str, float | None] = {}
    if stream_queues():
        streams["streams"], seconds["streams"] = streams_heartbeat_age(now=now)
    return ReadinessReport(
        parts={
            "database": health_database_check(),
            "broker": health_broker_check(timeout=broker_timeout),
            "cache": health_cache_check(),
            "beat": beat,
            "worker": worker,
            **streams,
            "poller": poller,
            "leases": leases,
        },
        seconds={
            "beat": beat_age,
            "worker": worker_age,
            **seconds,
            "oldest_due": due_age,
            "stale_lease": stale_age,
        },
        counts={"stale_leased": stale_count},
    )
