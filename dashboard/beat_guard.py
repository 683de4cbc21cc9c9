"""One beat at a time: two beats would send every periodic task twice (the
live tick, sweeps, digests), so `--scale beat=2`, a rolling update or a
forgotten second pod must never mean two schedules.

Beat's scheduler (CELERY_BEAT_SCHEDULER) ticks only while this process holds
a lock in Redis (BEAT_LOCK_URL): a key set only if absent, with a lifetime of
BEAT_LOCK_SECONDS, renewed by the holder's ticks every third of that (beat
ticks every 0.5 s, so renewals are never late). A second beat finds the key
taken, sends nothing and asks again every second; when the holder dies its
key runs out and the second takes over within BEAT_LOCK_SECONDS; when it stops
cleanly (SIGTERM: a rolling restart) it deletes its key and the other takes
over at its next ask. A holder that cannot renew (Redis unreachable, or it
was paused past the lifetime and another took over) stops ticking at once.
The value is this process's name (host:pid), so an operator can see who holds it.

Without Redis (the SQLite broker of a developer machine, one beat by
construction) there is no guard.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import time
import uuid
from pathlib import Path
from typing import Any

import redis
from celery.beat import PersistentScheduler
from django.conf import settings

logger = logging.getLogger("dashboard.beat")

LOCK_KEY = "console:beat:lock"
# How often a standing-by beat asks for the lock.
STANDBY_SECONDS = 1.0
# The alive file is touched at most this often (a healthcheck allows 60 s).
ALIVE_TOUCH_SECONDS = 5.0

# Renew only our own key: compare and extend in one step, so a beat that lost
# the key never extends another's.
_RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0"
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


def redis_url(url: str) -> str:
    """kombu's `redis+socket:///path` (the embedded broker) as redis-py spells it."""
    if url.startswith("redis+socket://"):
        return "unix://" + url.removeprefix("redis+socket://")
    return url


class BeatLock:
    """The lock itself, on one Redis connection: `hold()` before each tick."""

    def __init__(self, client: redis.Redis, *, seconds: float, name: str | None = None) -> None:
        self.client = client
        self.ttl_ms = max(int(seconds * 1000), 1000)
        self.renew_every = seconds / 3
        self.token = name or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.held = False
        self._renewed_at = 0.0
        self._standby_logged = False
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

    @classmethod
    def from_settings(cls) -> BeatLock | None:
        url = settings.BEAT_LOCK_URL
        if not url:
            return None
        client = redis.Redis.from_url(redis_url(url), socket_timeout=2.0, socket_connect_timeout=2.0)
        return cls(client, seconds=settings.BEAT_LOCK_SECONDS)

    def hold(self) -> bool:
        """Whether this beat may tick now: it holds the lock (taken or renewed)."""
        now = time.monotonic()
        if self.held and now - self._renewed_at < self.renew_every:
            return True
        try:
            if self.held:
                ok = bool(self._renew(keys=[LOCK_KEY], args=[self.token, self.ttl_ms]))
            else:
                ok = bool(self.client.set(LOCK_KEY, self.token, nx=True, px=self.ttl_ms))
        except redis.RedisError as exc:
            if self.held:
                logger.warning("beat: the lock could not be renewed (%s); not ticking", type(exc).__name__)
            ok = False
        if ok:
            self._renewed_at = now
            if not self.held:
                logger.info("beat: holding the beat lock (%s); ticking", self.token)
                self._standby_logged = False
        elif self.held:
            logger.warning("beat: lost the beat lock; standing by")
        elif not self._standby_logged:
            logger.info("beat: another beat holds the lock (%s); standing by", self.holder() or "unknown")
            self._standby_logged = True
        self.held = ok
        return ok

    def holder(self) -> str | None:
        try:
            value = self.client.get(LOCK_KEY)
        except redis.RedisError:
            return None
        return value.decode() if isinstance(value, bytes) else value

    def release(self) -> None:
        """Hand the lock over at once (a clean stop), only if it is still ours."""
        if not self.held:
            return
        self.held = False
        # Unreachable: it runs out by itself within BEAT_LOCK_SECONDS.
        with contextlib.suppress(redis.RedisError):
            self._release(keys=[LOCK_KEY], args=[self.token])


class SingleBeatScheduler(PersistentScheduler):
    """Celery's file-backed scheduler, ticking only while it holds the beat lock."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.guard = BeatLock.from_settings()
        self.alive_file = Path(settings.BEAT_ALIVE_FILE) if settings.BEAT_ALIVE_FILE else None
        self._alive_at = 0.0
        super().__init__(*args, **kwargs)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        self._touch_alive()
        if self.guard is None:
            return super().tick(*args, **kwargs)
        if not self.guard.hold():
            return STANDBY_SECONDS
        return min(super().tick(*args, **kwargs), self.guard.renew_every)

    def close(self) -> None:
        super().close()
        if self.guard is not None:
            self.guard.release()

    def _touch_alive(self) -> None:
        now = time.monotonic()
        if self.alive_file is None or now - self._alive_at < ALIVE_TOUCH_SECONDS:
            return
        self._alive_at = now
        try:
            self.alive_file.touch()
        except OSError:
            logger.warning("beat: %s could not be touched", self.alive_file)
