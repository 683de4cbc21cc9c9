"""Plain probes of what every console process shares: the database, the
Celery broker and the cache. Each answers "ok" or "error: <ExceptionClass>":
never a URL, host or message, which could carry a password from
DATABASE_URL, CELERY_BROKER_URL or CACHE_URL.

They import nothing of the console, so both the live heartbeat
(dashboard/live/heartbeat.py, which remembers the broker's answer for the
status region) and readiness (dashboard/health.py, which also reads that
heartbeat) stand on them without an import loop. `dashboard.health`
re-exports them: `/healthz`, `/readyz`, the System status page, the metrics
and `manage.py preflight` all ask the same questions.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from kombu import Connection

OK = "ok"
CACHE_PROBE_KEY = "health:cache-probe"


def error_word(exc: BaseException) -> str:
    """What a failed probe says: the exception's class name only."""
    return f"error: {type(exc).__name__}"


def health_database_check() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means "down"; the class name says which kind
        return error_word(exc)
    return OK


def _broker_connection(url: str, timeout: float) -> Connection:
    if url.startswith("sqlite://"):
        # The embedded broker of `make run`: a file, no socket to time out.
        return Connection(url)
    return Connection(url, connect_timeout=timeout, transport_options={"socket_timeout": timeout})


def health_broker_check(*, timeout: float) -> str:
    url = settings.CELERY_BROKER_URL
    try:
        if url.startswith("sqlite://"):
            # The embedded broker "connects" without touching its file: open and read it.
            with _broker_connection(url, timeout) as conn:
                channel = conn.channel()
                try:
                    channel.check()
                finally:
                    channel.close()
            return OK
        with _broker_connection(url, timeout) as conn:
            # One attempt, no back-off sleeps: a health probe must answer fast.
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
    except Exception as exc:
        return error_word(exc)
    return OK


def health_cache_check() -> str:
    """Write a fresh value and read it back: a cache that answers but keeps
    nothing (full, read-only, a dummy backend) breaks heartbeats, throttles and
    the outbox's flag as surely as one that is down."""
    value = uuid.uuid4().hex
    try:
        cache.set(CACHE_PROBE_KEY, value, timeout=30)
        if cache.get(CACHE_PROBE_KEY) != value:
            return "error: CacheDidNotKeepValue"
    except Exception as exc:
        return error_word(exc)
    return OK


def broker_queue_depths(queues: list[str], *, timeout: float) -> dict[str, int | None]:
    """Messages waiting in each named queue (None where the broker could not
    say), through kombu's own count of its virtual transports (Redis: the
    list's length over its priority lists; the SQLite broker: its rows). One
    connection for all the queues; a broker that is down answers None for each."""
    depths: dict[str, int | None] = dict.fromkeys(queues)
    try:
        url = settings.CELERY_BROKER_URL
        with _broker_connection(url, timeout) as conn:
            if not url.startswith("sqlite://"):
                conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
            channel = conn.channel()
            try:
                for queue in queues:
                    try:
                        depths[queue] = int(channel._size(queue))
                    except Exception:  # a transport without a count, or this queue unknown to it
                        depths[queue] = None
            finally:
                channel.close()
    except Exception:
        return dict.fromkeys(queues)
    return depths
