"""Whether the background side of live updates runs: when `live.tick` last
ran, and whether the broker answers. Read by the live status region to say
why updates are paused (dashboard/live/selectors.py `pause_reason`).

A tick is sent by Celery beat through the broker and run by a worker, so a
recent tick means all three work. The tick's time is kept in the cache,
which every process shares (CACHE_URL). It is recorded by a `task_prerun`
signal handler connected in LiveConfig.ready(), so the tasks themselves
need no change; `heartbeat_record()` may equally be called from the tick.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.core.cache import cache

from dashboard.health import OK, health_broker_check

HEARTBEAT_CACHE_KEY = "live:heartbeat:tick"
BROKER_CACHE_KEY = "live:heartbeat:broker"
# Beat ticks every CELERY_BEAT_TICK_SECONDS (0.5 s by default): a minute without one means nothing is ticking.
HEARTBEAT_STALE_AFTER = timedelta(seconds=60)
# A status poll every 2 s per viewer must not open a broker connection each time.
BROKER_CHECK_SECONDS = 15
BROKER_CHECK_TIMEOUT = 1.0
TICK_TASK_NAME = "live.tick"


def heartbeat_record(*, now: datetime | None = None) -> None:
    """The tick ran now."""
    moment = now or datetime.now(UTC)
    cache.set(HEARTBEAT_CACHE_KEY, moment.timestamp(), timeout=None)


def heartbeat_last_seen() -> datetime | None:
    """When the tick last ran, or None when no tick was ever seen (or the cache forgot)."""
    value = cache.get(HEARTBEAT_CACHE_KEY)
    if not isinstance(value, (int, float)):
        return None
    return datetime.fromtimestamp(value, UTC)


def broker_status() -> str:
    """ "ok" or the broker check's error (dashboard/health.py), remembered for a few seconds."""
    status = cache.get(BROKER_CACHE_KEY)
    if not isinstance(status, str):
        status = health_broker_check(timeout=BROKER_CHECK_TIMEOUT)
        cache.set(BROKER_CACHE_KEY, status, BROKER_CHECK_SECONDS)
    return status


def broker_is_up() -> bool:
    return broker_status() == OK


def _on_task_prerun(sender=None, task=None, **kwargs) -> None:
    if getattr(task or sender, "name", None) == TICK_TASK_NAME:
        heartbeat_record()


def connect_heartbeat() -> None:
    """Record a heartbeat whenever a worker starts `live.tick` (LiveConfig.ready)."""
    from celery.signals import task_prerun

    task_prerun.connect(_on_task_prerun, weak=False, dispatch_uid="live-heartbeat")
