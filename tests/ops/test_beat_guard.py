"""One beat at a time (dashboard/beat_guard.py): two real beat processes on
one Redis, only the lock holder sends tasks, and the other takes over when
the first is killed; the lock itself on two real connections."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dashboard.beat_guard import LOCK_KEY, BeatLock
from tests.helpers import PROJECT_DIR, missing_service
from tests.workers import TEST_REDIS_URL, wait_for

SENT = "Sending due task"
# Short, so the takeover after a kill is seen within seconds (production: 15 s).
LOCK_SECONDS = 2.0


@pytest.fixture
def lock_redis():
    import redis

    client = redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        missing_service(f"no Redis at {TEST_REDIS_URL}: {exc}")
    client.delete(LOCK_KEY)
    yield client
    client.delete(LOCK_KEY)


@pytest.fixture
def beat(tmp_path, lock_redis):
    started: list[subprocess.Popen] = []

    def start(name: str) -> tuple[subprocess.Popen, Path]:
        log = tmp_path / f"{name}.log"
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "dashboard.settings",
            # Tasks are published in the process itself: only the lock is shared.
            "CELERY_BROKER_URL": "memory://",
            "BEAT_LOCK_URL": TEST_REDIS_URL,
            "BEAT_LOCK_SECONDS": str(LOCK_SECONDS),
            "BEAT_ALIVE_FILE": str(tmp_path / f"{name}.alive"),
            "CELERY_BEAT_LOG_LEVEL": "INFO",
            "LOG_FORMAT": "text",
            "CACHE_URL": "locmem://",
        }
        command = [sys.executable, "-m", "celery", "-A", "dashboard", "beat", "--loglevel", "INFO"]
        command += ["--schedule", str(tmp_path / f"{name}-schedule"), "--pidfile="]
        with log.open("w") as out:
            process = subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=out, stderr=subprocess.STDOUT)
        started.append(process)
        return process, log

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=20)


def sent(log: Path) -> int:
    return log.read_text().count(SENT)


def test_two_beats_never_both_tick_and_the_second_takes_over_when_the_first_is_killed(beat, lock_redis, tmp_path):
    first, first_log = beat("first")
    assert wait_for(lambda: sent(first_log) > 0, limit_seconds=60), first_log.read_text()[-3000:]
    holder = lock_redis.get(LOCK_KEY).decode()
    assert holder.split(":")[1] == str(first.pid)
    assert (tmp_path / "first.alive").exists()

    second, second_log = beat("second")
    assert wait_for(lambda: "another beat holds the lock" in second_log.read_text(), limit_seconds=60), (
        second_log.read_text()[-3000:]
    )
    # While the first keeps sending (the live tick, every 0.5 s), the second sends nothing.
    sent_before = sent(first_log)
    assert wait_for(lambda: sent(first_log) >= sent_before + 4, limit_seconds=30)
    assert sent(second_log) == 0
    assert (tmp_path / "second.alive").exists()  # standing by is healthy too

    first.kill()  # kill -9: no clean hand-over, the lock has to run out
    first.wait(timeout=10)
    killed_at = time.monotonic()
    assert wait_for(lambda: sent(second_log) > 0, limit_seconds=30), second_log.read_text()[-3000:]
    takeover = time.monotonic() - killed_at
    assert lock_redis.get(LOCK_KEY).decode().split(":")[1] == str(second.pid)
    # Within the lock's lifetime plus one standby ask (and a process's scheduling slack).
    assert takeover < LOCK_SECONDS + 1.0 + 3.0, takeover

    # A clean stop (SIGTERM, a rolling restart) hands the lock over at once.
    second.terminate()
    second.wait(timeout=20)
    assert lock_redis.get(LOCK_KEY) is None


def test_a_beat_that_lost_its_lock_stops_and_never_extends_the_new_holders(lock_redis):
    import redis

    first = BeatLock(redis.Redis.from_url(TEST_REDIS_URL), seconds=1.0, name="first")
    second = BeatLock(redis.Redis.from_url(TEST_REDIS_URL), seconds=1.0, name="second")

    assert first.hold() is True
    assert second.hold() is False
    assert lock_redis.get(LOCK_KEY) == b"first"

    # The first's lifetime passed while it was paused, and the second took the lock.
    lock_redis.delete(LOCK_KEY)
    assert second.hold() is True

    assert wait_for(lambda: not first.hold(), limit_seconds=5)
    assert lock_redis.get(LOCK_KEY) == b"second"
    assert 0 < lock_redis.pttl(LOCK_KEY) <= 1000
    first.release()  # not its key any more: nothing deleted
    assert lock_redis.get(LOCK_KEY) == b"second"
