"""Whether the background side of live updates runs: when `live.tick` last
ran, and whether the broker answers. Read by the live status region to say
why updates are paused (dashboard/live/selectors.py `pause_reason`).

A tick is sent by Celery beat through the broker and run by a worker, so a
recent tick means all three work. The tick's time is kept in the cache,
which every process shares (CACHE_URL). It is recorded by a `task_prerun`
signal handler connected in LiveConfig.ready(), so the tasks themselves
need no change; `heartbeat_record()` may equally be called from the tick.

A tick needs beat, the broker and a worker at once, so its age alone cannot
say which of them stopped. Beat and the workers therefore leave heartbeats of
their own (read by `/readyz`, the System status page and the metrics):

* beat: whenever the beat process publishes a task (`before_task_publish`,
  only in the process `beat_init` marked), at most every BEAT_RECORD_SECONDS:
  beat sends `live.tick` every 0.5 s, so it is fresh while beat schedules,
  whether or not the broker or a worker takes the message;
* a worker: a consumer bootstep (`WorkerHeartbeat`) records every
  WORKER_HEARTBEAT_SECONDS on the worker's own timer, for each queue it
  consumes, with no task and no beat involved: a worker that runs while beat
  is stopped stays fresh. One cache write per queue per interval.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from celery import bootsteps
from django.core.cache import cache

from dashboard.celery import app
from dashboard.probes import OK, health_broker_check

logger = logging.getLogger("dashboard.live")

HEARTBEAT_CACHE_KEY = "live:heartbeat:tick"
BROKER_CACHE_KEY = "live:heartbeat:broker"
# Beat ticks every CELERY_BEAT_TICK_SECONDS (0.5 s by default): a minute without one means nothing is ticking.
HEARTBEAT_STALE_AFTER = timedelta(seconds=60)
# A status poll every 2 s per viewer must not open a broker connection each time.
BROKER_CHECK_SECONDS = 15
BROKER_CHECK_TIMEOUT = 1.0
TICK_TASK_NAME = "live.tick"

BEAT_CACHE_KEY = "live:heartbeat:beat"
WORKER_CACHE_KEY = "live:heartbeat:worker:{queue}"
# Beat publishes every 0.5 s; one cache write per 5 s is plenty for a 60 s threshold.
BEAT_RECORD_SECONDS = 5.0
# A worker's own beat: well inside READY_WORKER_MAX_AGE (60 s by default).
WORKER_HEARTBEAT_SECONDS = 10.0
# Heartbeats outlive any threshold; a process gone for a day is simply "not seen".
HEARTBEAT_KEEP_SECONDS = 24 * 3600


def heartbeat_record(*, now: datetime | None = None) -> None:
    """The tick ran now."""
    moment = now or datetime.now(UTC)
    cache.set(HEARTBEAT_CACHE_KEY, moment.timestamp(), timeout=None)


def heartbeat_last_seen() -> datetime | None:
    """When the tick last ran, or None when no tick was ever seen (or the cache forgot)."""
    return _moment_of(cache.get(HEARTBEAT_CACHE_KEY))


def broker_status() -> str:
    """ "ok" or the broker check's error (dashboard/probes.py), remembered for a few seconds."""
    status = cache.get(BROKER_CACHE_KEY)
    if not isinstance(status, str):
        status = health_broker_check(timeout=BROKER_CHECK_TIMEOUT)
        cache.set(BROKER_CACHE_KEY, status, BROKER_CHECK_SECONDS)
    return status


def broker_is_up() -> bool:
    return broker_status() == OK


def _moment_of(value: Any) -> datetime | None:
    if not isinstance(value, (int, float)):
        return None
    return datetime.fromtimestamp(value, UTC)


def beat_heartbeat_record(*, now: datetime | None = None) -> None:
    """Beat scheduled something now."""
    moment = now or datetime.now(UTC)
    cache.set(BEAT_CACHE_KEY, moment.timestamp(), timeout=HEARTBEAT_KEEP_SECONDS)


def beat_last_seen() -> datetime | None:
    """When the beat process last published a task, or None when never seen."""
    return _moment_of(cache.get(BEAT_CACHE_KEY))


def worker_heartbeat_record(*, queues: Iterable[str], now: datetime | None = None) -> None:
    """A worker consuming `queues` is alive now."""
    moment = (now or datetime.now(UTC)).timestamp()
    cache.set_many({WORKER_CACHE_KEY.format(queue=queue): moment for queue in queues}, timeout=HEARTBEAT_KEEP_SECONDS)


def worker_last_seen(queue: str | None = None) -> datetime | None:
    """When a worker consuming `queue` (the default queue: the poller's) was
    last alive, or None when never seen."""
    return _moment_of(cache.get(WORKER_CACHE_KEY.format(queue=queue or default_queue())))


def default_queue() -> str:
    """The queue the poller's tasks go to (Celery's default queue). The
    console's app by name: `celery.current_app` is per thread, and in a web
    server's other threads it is Celery's fallback app, not this one."""
    return str(app.conf.task_default_queue)


class _BeatProcess:
    """Whether this process is beat (`beat_init` said so), and when it last recorded."""

    active = False
    recorded_at = 0.0


def _on_beat_init(sender=None, **kwargs) -> None:
    _BeatProcess.active = True
    _BeatProcess.recorded_at = time.monotonic()
    beat_heartbeat_record()


def _on_before_task_publish(sender=None, **kwargs) -> None:
    # Web requests and workers publish too: only beat's own publishing counts.
    if not _BeatProcess.active or time.monotonic() - _BeatProcess.recorded_at < BEAT_RECORD_SECONDS:
        return
    _BeatProcess.recorded_at = time.monotonic()
    try:
        beat_heartbeat_record()
    except Exception:  # a cache outage must never stop beat from scheduling
        logger.warning("live: beat's heartbeat could not be recorded", exc_info=True)


class WorkerHeartbeat(bootsteps.StartStopStep):
    """A consumer bootstep: records the worker's heartbeat for each queue it
    consumes when it starts, then every WORKER_HEARTBEAT_SECONDS on the
    consumer's own timer (the main process: no task, no pool slot, no beat)."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        self.timer_entry: Any = None
        super().__init__(parent, **kwargs)

    def start(self, parent: Any) -> None:
        queues = sorted(parent.app.amqp.queues.consume_from or parent.app.amqp.queues)
        self.beat(queues)
        self.timer_entry = parent.timer.call_repeatedly(WORKER_HEARTBEAT_SECONDS, self.beat, (queues,))

    def stop(self, parent: Any) -> None:
        if self.timer_entry is not None:
            self.timer_entry.cancel()
            self.timer_entry = None

    shutdown = stop

    @staticmethod
    def beat(queues: list[str]) -> None:
        try:
            worker_heartbeat_record(queues=queues)
        except Exception:  # the cache down: readiness names the cache; the worker goes on
            logger.warning("live: the worker's heartbeat could not be recorded", exc_info=True)


def _on_task_prerun(sender=None, task=None, **kwargs) -> None:
    if getattr(task or sender, "name", None) == TICK_TASK_NAME:
        heartbeat_record()


def connect_heartbeat() -> None:
    """Record a heartbeat whenever a worker starts `live.tick`, whenever beat
    publishes, and on every worker's timer (LiveConfig.ready: before a worker
    builds its consumer, so the bootstep is part of it)."""
    from celery.signals import beat_init, before_task_publish, task_prerun

    task_prerun.connect(_on_task_prerun, weak=False, dispatch_uid="live-heartbeat")
    beat_init.connect(_on_beat_init, weak=False, dispatch_uid="live-heartbeat-beat-init")
    before_task_publish.connect(_on_before_task_publish, weak=False, dispatch_uid="live-heartbeat-beat")
    app.steps["consumer"].add(WorkerHeartbeat)
