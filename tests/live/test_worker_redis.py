"""The poller through a real broker: a `live.tick` sent to Redis is picked up
by a real Celery worker, which claims the due row and polls it."""

from __future__ import annotations

import os
import time

import httpx
import pytest

from dashboard.live.models import TrackedOperation
from tests.helpers import missing_service
from tests.live.support import TURN_ID, turn_body

TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


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
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(app.conf.task_default_queue)
    try:
        yield app
    finally:
        forget_connections()
        app.conf.update(saved)


def wait_for(condition, *, limit_seconds: float = 30.0) -> None:
    """Wait for the worker (not an assertion on time: the checks follow)."""
    deadline = time.monotonic() + limit_seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.mark.redis
def test_a_tick_sent_through_redis_polls_a_due_row(transactional_db, remote, make_turn, redis_celery):
    from celery.contrib.testing.worker import start_worker

    import dashboard.live.tasks  # noqa: F401 - the worker needs the tasks registered

    route = remote.get(f"/v1/turns/{TURN_ID}").mock(
        return_value=httpx.Response(200, json=turn_body("completed", message="All done."))
    )
    op = make_turn()

    with start_worker(redis_celery, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        redis_celery.send_task("live.tick")
        wait_for(lambda: TrackedOperation.objects.filter(pk=op.pk, is_final=True).exists())

    op.refresh_from_db()
    assert (op.status, op.is_final, op.poll_count) == ("completed", True, 1)
    assert op.snapshot["message"] == "All done."
    assert route.call_count == 1
