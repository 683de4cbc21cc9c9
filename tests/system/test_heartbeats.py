"""Beat and a worker leave heartbeats of their own, so /readyz tells which one
stopped: a real worker records its own (a consumer bootstep, no task, no
beat), beat records when it publishes and nothing else does; the poller counts
its lag (due -> polled) for the status page's p95."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from celery.signals import beat_init, before_task_publish
from django.utils import timezone

from dashboard.live import heartbeat, services
from dashboard.live.lag import poll_lag_recent, poll_lag_record
from tests.helpers import missing_service
from tests.live.support import TURN_ID, turn_body

TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def not_beat():
    """This test process plays beat for a while; it stops being beat after."""
    yield
    heartbeat._BeatProcess.active = False
    heartbeat._BeatProcess.recorded_at = 0.0


def test_beat_records_its_heartbeat_when_it_publishes_and_no_other_process_does(not_beat, monkeypatch):
    before_task_publish.send(sender="live.tick", body=(), headers={})
    assert heartbeat.beat_last_seen() is None  # a web process or a worker publishing: not beat

    beat_init.send(sender=None)
    started = heartbeat.beat_last_seen()
    assert started is not None

    # Beat publishes every 0.5 s; the cache is written at most every BEAT_RECORD_SECONDS.
    heartbeat.beat_heartbeat_record(now=datetime.now(UTC) - timedelta(minutes=5))
    before_task_publish.send(sender="live.tick", body=(), headers={})
    assert heartbeat.beat_last_seen() < started  # too soon after the last record: not written

    monkeypatch.setattr(heartbeat._BeatProcess, "recorded_at", time.monotonic() - heartbeat.BEAT_RECORD_SECONDS)
    before_task_publish.send(sender="live.tick", body=(), headers={})
    assert heartbeat.beat_last_seen() >= started


def test_beat_goes_on_when_the_cache_cannot_keep_its_heartbeat(not_beat, monkeypatch):
    beat_init.send(sender=None)
    monkeypatch.setattr(heartbeat._BeatProcess, "recorded_at", 0.0)

    def refuse(*args, **kwargs):
        raise ConnectionError("cache down")

    monkeypatch.setattr("dashboard.live.heartbeat.cache.set", refuse)

    before_task_publish.send(sender="live.tick", body=(), headers={})  # no exception reaches beat


@pytest.fixture
def redis_worker_app():
    """The console's Celery app on a real Redis for one test (a real worker)."""
    import redis

    try:
        redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        missing_service(f"no Redis at {TEST_REDIS_URL}: {exc}")
    from dashboard.celery import app

    saved = {key: app.conf[key] for key in ("broker_url", "broker_transport_options", "task_always_eager")}
    app._pool = None
    app.amqp._producer_pool = None
    app.conf.update(broker_url=TEST_REDIS_URL, broker_transport_options={}, task_always_eager=False)
    try:
        yield app
    finally:
        app._pool = None
        app.amqp._producer_pool = None
        app.conf.update(saved)


@pytest.mark.redis
def test_a_real_worker_records_its_heartbeat_with_no_task_and_no_beat(transactional_db, redis_worker_app):
    from celery.contrib.testing.worker import start_worker

    queue = heartbeat.default_queue()
    assert heartbeat.worker_last_seen(queue) is None

    with start_worker(redis_worker_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        deadline = time.monotonic() + 30  # waiting for the worker to start, not timing it
        while heartbeat.worker_last_seen(queue) is None and time.monotonic() < deadline:
            time.sleep(0.05)

    seen = heartbeat.worker_last_seen(queue)
    assert seen is not None and timezone.now() - seen < timedelta(minutes=1)
    # Nothing was published by beat: the two heartbeats are told apart.
    assert heartbeat.beat_last_seen() is None


def test_the_worker_step_records_on_its_timer_and_stops_with_it():
    class Timer:
        def __init__(self):
            self.calls = []

        def call_repeatedly(self, seconds, function, args):
            self.calls.append((seconds, function, args))
            return self

        def cancel(self):
            self.cancelled = True

    from dashboard.celery import app

    class Consumer:
        timer = Timer()

    Consumer.app = app
    step = heartbeat.WorkerHeartbeat(Consumer)
    step.start(Consumer)

    queue = heartbeat.default_queue()
    first = heartbeat.worker_last_seen(queue)
    assert first is not None
    [(seconds, function, args)] = Consumer.timer.calls
    assert seconds == heartbeat.WORKER_HEARTBEAT_SECONDS

    heartbeat.worker_heartbeat_record(queues=[queue], now=datetime.now(UTC) - timedelta(minutes=5))
    function(*args)  # the timer fires
    assert heartbeat.worker_last_seen(queue) >= first

    step.stop(Consumer)
    assert Consumer.timer.cancelled and step.timer_entry is None


def test_the_poll_lag_p95_is_the_bound_of_the_bucket_that_holds_it():
    now = datetime.now(UTC)
    assert poll_lag_recent(now=now).p95_at_most is None

    poll_lag_record([0.2] * 90 + [1.5] * 6 + [45.0] * 4, now=now)
    lag = poll_lag_recent(now=now)
    assert (lag.polls, lag.p95_at_most) == (100, 2.0)

    # Polls older than the window no longer count.
    assert poll_lag_recent(now=now + timedelta(minutes=6)).polls == 0


@pytest.mark.django_db
def test_a_poll_batch_counts_how_long_each_row_waited(remote, make_turn):
    remote.get(f"/v1/turns/{TURN_ID}").mock(return_value=httpx.Response(200, json=turn_body("building")))
    make_turn(next_poll_at=timezone.now() - timedelta(seconds=20))

    assert services.operations_poll_due().polled == 1

    lag = poll_lag_recent()
    assert lag.polls == 1
    assert lag.p95_at_most == 30.0  # waited 20 s: within the 30 s bucket
