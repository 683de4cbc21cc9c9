"""A real Celery worker, for the tests that need one (fixtures registered in
tests/conftest.py `pytest_plugins`):

- `redis_celery`: the console's Celery app pointed at a real Redis for one
  test (its queue purged before and after);
- `solo_worker`: a worker in the test's own process on that Redis, every
  task registered, stopped after the test;
- `worker_processes`: start `celery -A dashboard worker ...` processes of
  their own on that Redis, sharing the test database (PostgreSQL), every one
  stopped after the test (a test may kill one itself).

`wait_for` waits for a worker (not an assertion on time: the checks follow).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection

from tests.helpers import PROJECT_DIR, missing_service

TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def wait_for(condition: Callable[[], Any], *, limit_seconds: float = 30.0, every: float = 0.05) -> bool:
    """Wait until `condition()` holds or `limit_seconds` passed; answers it."""
    deadline = time.monotonic() + limit_seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(every)
    return bool(condition())


def _purge(app) -> None:
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(app.conf.task_default_queue)


@pytest.fixture
def redis_celery():
    """The console's Celery app pointed at a real Redis for one test."""
    import redis

    try:
        redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        missing_service(f"no Redis at {TEST_REDIS_URL}: {exc}")

    from dashboard.celery import app

    saved = {key: app.conf[key] for key in ("broker_url", "broker_transport_options", "task_always_eager")}

    def forget_connections():
        # The app caches its pools; drop them so the next use builds them for the
        # new address. Never close them: kombu keeps pools in a process-wide
        # registry by address, and a closed one would be handed out again later.
        app._pool = None
        app.amqp._producer_pool = None

    forget_connections()
    app.conf.update(broker_url=TEST_REDIS_URL, broker_transport_options={}, task_always_eager=False)
    _purge(app)
    try:
        yield app
    finally:
        _purge(app)
        forget_connections()
        app.conf.update(saved)


@pytest.fixture
def solo_worker(redis_celery):
    """A worker thread of this process (solo pool) on `redis_celery`."""
    from celery.contrib.testing.worker import start_worker

    redis_celery.loader.import_default_modules()  # every tasks module, as a worker does
    with start_worker(redis_celery, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        yield redis_celery


def worker_database_url() -> str:
    """The test database, for a worker process of its own."""

    if connection.vendor != "postgresql":
        missing_service("a worker process needs the test database on PostgreSQL")
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def worker_processes(redis_celery) -> Iterator[Callable[..., subprocess.Popen]]:
    """`start(*worker_args, env={...}, stderr=...)`: a `celery -A dashboard
    worker` process on `redis_celery`'s Redis and the test database, with
    `env` on top of the test's environment."""
    started: list[subprocess.Popen] = []

    def start(*args: str, env: dict[str, str] | None = None, stderr: Any = subprocess.DEVNULL) -> subprocess.Popen:
        environment = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "dashboard.settings",
            "DATABASE_URL": worker_database_url(),
            "CELERY_BROKER_URL": TEST_REDIS_URL,
            "CELERY_TASK_ALWAYS_EAGER": "false",
            "CACHE_URL": "locmem://",
            **(env or {}),
        }
        command = [sys.executable, "-m", "celery", "-A", "dashboard", "worker", *args]
        worker = subprocess.Popen(command, cwd=PROJECT_DIR, env=environment, stdout=subprocess.DEVNULL, stderr=stderr)
        started.append(worker)
        return worker

    try:
        yield start
    finally:
        for worker in started:
            if worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=20)
