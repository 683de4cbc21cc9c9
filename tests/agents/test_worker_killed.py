"""A real worker process killed (SIGKILL) while it streams a chat answer from
the sandbox, then a worker started again: the stream's short lease runs out
(nothing renews it once the process is gone), the poller takes the row and
follows the run to its answer within a minute, and the agent ran once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from dashboard.api import ServiceClient
from dashboard.celery import app
from dashboard.live.models import TrackedOperation
from tests.agents.support import store_demo_key
from tests.helpers import missing_service, running_sandbox

TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
PROJECT = Path(__file__).resolve().parents[2]
LEASE_SECONDS = 3


@pytest.fixture(scope="module")
def slow_sandbox():
    """A sandbox whose agent runs take about 10 real seconds (20 simulated at 0.5)."""
    with running_sandbox(time_scale=0.5) as handle:
        yield handle


def wait_for(condition, limit_seconds: float) -> bool:
    """Wait for the worker processes (not an assertion on time: the checks follow)."""
    deadline = time.monotonic() + limit_seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    return bool(condition())


def start_worker(env: dict[str, str]) -> subprocess.Popen:
    command = [sys.executable, "-m", "celery", "-A", "dashboard", "worker", "--pool", "solo", "-l", "warning"]
    return subprocess.Popen(command, cwd=PROJECT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.mark.redis
@pytest.mark.postgres
def test_a_worker_killed_mid_stream_leaves_the_answer_to_the_poller_after_a_restart(
    transactional_db, slow_sandbox, user, monkeypatch, django_capture_on_commit_callbacks
):
    import redis

    from agents.services import invocation_start
    from dashboard.live.tasks import tick

    if connection.vendor != "postgresql":
        missing_service("needs PostgreSQL: the worker processes share the test database")
    try:
        redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        missing_service(f"no Redis at {TEST_REDIS_URL}: {exc}")
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}",
        "CELERY_BROKER_URL": TEST_REDIS_URL,
        "CACHE_URL": "locmem://",
        "SERVICE_BASE_URL": slow_sandbox.base_url,
        "KEY_ENCRYPTION_KEYS": ",".join(settings.KEY_ENCRYPTION_KEYS),
        "LIVE_STREAM_LEASE_SECONDS": str(LEASE_SECONDS),
        "CELERY_TASK_ALWAYS_EAGER": "false",
    }
    monkeypatch.setattr(settings, "SERVICE_BASE_URL", slow_sandbox.base_url)
    monkeypatch.setattr(settings, "LIVE_STREAM_LEASE_SECONDS", LEASE_SECONDS)
    monkeypatch.setenv("CELERY_BROKER_URL", TEST_REDIS_URL)
    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager")}

    def forget_connections():
        # The app caches its pools by address (tests/live/test_worker_redis.py): built anew, never closed.
        app._pool = None
        app.amqp._producer_pool = None

    forget_connections()
    app.conf.update(broker_url=TEST_REDIS_URL, task_always_eager=False)
    workers: list[subprocess.Popen] = []
    try:
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(app.conf.task_default_queue)
        key = store_demo_key(user, slow_sandbox)
        agents = ServiceClient(api_key=slow_sandbox.demo_key).get("/v1/agents", params={"limit": 100})
        agent_id = next(a["id"] for a in agents["data"] if a["name"] == "Customer FAQ helper")
        with django_capture_on_commit_callbacks(execute=True):
            op = invocation_start(
                key=key,
                agent_id=agent_id,
                message="What does the Pro plan cost?",
                thread_id=None,
                idempotency_key="killed-worker-0000000000000001",
            )
        workers.append(start_worker(env))
        # The worker is streaming once `started` is on the row.
        assert wait_for(lambda: TrackedOperation.objects.get(pk=op.pk).context.get("run_id"), 60)
        os.kill(workers[0].pid, signal.SIGKILL)
        workers[0].wait(timeout=10)
        op.refresh_from_db()
        assert not op.is_final and op.lease_token  # nobody gave it back

        workers.append(start_worker(env))  # the restart; ticks stand in for beat

        def final() -> bool:
            tick.apply_async()
            return TrackedOperation.objects.get(pk=op.pk).is_final

        assert wait_for(final, 60)
        op.refresh_from_db()
        assert op.status == "completed" and op.snapshot.get("answer") and op.poll_count >= 1  # by the poller
        runs = [run for run in slow_sandbox.store.list("run") if run.get("thread_id") == op.context["thread_id"]]
        assert len(runs) == 1  # the poller read the run; the agent never ran twice
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=20)
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(app.conf.task_default_queue)
        forget_connections()
        app.conf.update(saved)
