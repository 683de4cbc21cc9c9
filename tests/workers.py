"""Real Celery worker processes for tests: on Redis and the test's PostgreSQL
database (which the worker shares), started as `celery worker` subprocesses
so a test can kill one with SIGKILL. The pattern of
tests/agents/test_worker_killed.py, in one place for new tests."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connection

from tests.helpers import PROJECT_DIR, missing_service

TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def worker_env(*, service_url: str, **more: str) -> dict[str, str]:
    """The environment of a worker process sharing this test's database and
    Redis; skips (or fails, where services are required) without them."""
    import redis

    if connection.vendor != "postgresql":
        missing_service("needs PostgreSQL: the worker processes share the test database")
    try:
        redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        missing_service(f"no Redis at {TEST_REDIS_URL}: {exc}")
    db = connection.settings_dict
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}",
        "CELERY_BROKER_URL": TEST_REDIS_URL,
        "CACHE_URL": "locmem://",
        "SERVICE_BASE_URL": service_url,
        "KEY_ENCRYPTION_KEYS": ",".join(settings.KEY_ENCRYPTION_KEYS),
        "CELERY_TASK_ALWAYS_EAGER": "false",
        **more,
    }


@contextmanager
def celery_on_redis() -> Iterator[list[subprocess.Popen]]:
    """The console's Celery app sending to Redis for one test, its queue
    purged before and after; yields the list the test adds its worker
    processes to, each killed at the end if still running."""
    from dashboard.celery import app

    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager")}

    def forget_connections() -> None:
        # The app caches its pools by address (tests/live/test_worker_redis.py): built anew, never closed.
        app._pool = None
        app.amqp._producer_pool = None

    forget_connections()
    app.conf.update(broker_url=TEST_REDIS_URL, task_always_eager=False)
    workers: list[subprocess.Popen] = []
    try:
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(app.conf.task_default_queue)
        yield workers
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.terminate()
                try:
                    worker.wait(timeout=10)
                except subprocess.TimeoutExpired:  # stuck in a hung call: TERM waits for it
                    worker.kill()
                    worker.wait(timeout=10)
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(app.conf.task_default_queue)
        forget_connections()
        app.conf.update(saved)


def worker_process(env: dict[str, str], *, name: str = "", log: Path | None = None) -> subprocess.Popen:
    """`celery worker` (solo pool) in a subprocess; `name` sets its node name (`name@host`)."""
    command = [sys.executable, "-m", "celery", "-A", "dashboard", "worker", "--pool", "solo", "-l", "warning"]
    if name:
        command += ["-n", f"{name}@%h"]
    output = log.open("w") if log else subprocess.DEVNULL
    try:
        return subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=output, stderr=subprocess.STDOUT)
    finally:
        if log:
            output.close()  # type: ignore[union-attr]
