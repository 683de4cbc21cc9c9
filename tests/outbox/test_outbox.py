"""The outbox (dashboard/outbox): a task stored with the write that sends it,
published after the commit, kept while the broker is down (a closed port),
swept to the broker once it answers. Counted, never timed."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from kombu import Connection

from dashboard.celery import app
from dashboard.outbox import services
from dashboard.outbox.models import OutboxMessage
from dashboard.outbox.selectors import outbox_holds, outbox_waiting_count
from dashboard.outbox.services import outbox_send, outbox_sweep
from tests.helpers import missing_service

RAN: list[list] = []
TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@app.task(name="tests.outbox.record")
def record(*args) -> None:
    RAN.append(list(args))


@pytest.fixture(autouse=True)
def ran():
    RAN.clear()
    yield RAN
    RAN.clear()


def test_a_task_the_broker_cannot_take_waits_and_is_sent_once_it_is_back(
    db, broker_down, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        message = outbox_send(task="tests.outbox.record", args=[7, "token"])
    held = OutboxMessage.objects.get()
    assert held.pk == message.pk and held.attempts == 1 and held.last_error  # the class name of what the broker raised
    assert RAN == [] and outbox_waiting_count() == 1 and cache.get(services.HELD_CACHE_KEY)

    assert outbox_sweep() == 0  # not due yet (its backoff), and still nothing lost
    assert OutboxMessage.objects.count() == 1

    assert broker_down.back() == 1
    assert RAN == [[7, "token"]]
    assert not OutboxMessage.objects.exists() and not cache.get(services.HELD_CACHE_KEY)
    assert broker_down.back() == 0 and RAN == [[7, "token"]]  # sent once


def test_a_start_that_rolls_back_sends_nothing(db, broker_down, django_capture_on_commit_callbacks):
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        outbox_send(task="tests.outbox.record", args=[1])
        raise RuntimeError("the write failed")
    assert callbacks == [] and not OutboxMessage.objects.exists()


def test_a_message_past_its_expiry_is_dropped_not_sent(db, broker_down, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        outbox_send(task="tests.outbox.record", args=[1], expires=60)
        outbox_send(task="tests.outbox.record", args=[2])
    broker_down.app.conf.task_always_eager = True
    assert outbox_sweep(now=timezone.now() + timedelta(minutes=5)) == 1
    assert RAN == [[2]] and not OutboxMessage.objects.exists()


def test_a_page_asks_the_outbox_only_while_something_waits(db, user, broker_down, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert not outbox_holds(user)  # nothing held: one cache read, no query
    with transaction.atomic():
        outbox_send(task="tests.outbox.record", args=[1], about=user)
    assert OutboxMessage.objects.get().about == f"auth.user:{user.pk}"
    services.outbox_publish()  # not due yet: nothing claimed
    services.outbox_publish(message_ids=[OutboxMessage.objects.get().pk])
    assert outbox_holds(user)


def test_two_sweepers_never_send_the_same_message_at_once(db, broker_down):
    with transaction.atomic():
        outbox_send(task="tests.outbox.record", args=[1])
    now = timezone.now() + timedelta(minutes=1)
    token, first = services._claim(message_ids=None, now=now)
    _token, second = services._claim(message_ids=None, now=now)
    assert len(first) == 1 and second == []


@pytest.mark.redis
def test_with_the_broker_up_the_message_is_published_at_once_and_nothing_is_kept(
    db, django_capture_on_commit_callbacks, monkeypatch
):
    import redis

    try:
        redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        missing_service(f"no Redis at {TEST_REDIS_URL}: {exc}")
    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager")}
    monkeypatch.setenv("CELERY_BROKER_URL", TEST_REDIS_URL)
    app.conf.update(broker_url=TEST_REDIS_URL, task_always_eager=False)
    queue = "tests.outbox"
    try:
        with Connection(TEST_REDIS_URL) as conn:
            conn.default_channel.queue_declare(queue)
            conn.default_channel.queue_purge(queue)
        with django_capture_on_commit_callbacks(execute=True):
            outbox_send(task="tests.outbox.record", args=[3], queue=queue)
        assert not OutboxMessage.objects.exists() and RAN == []
        with Connection(TEST_REDIS_URL) as conn:
            assert conn.default_channel.queue_declare(queue).message_count == 1
            conn.default_channel.queue_purge(queue)
    finally:
        app.conf.update(saved)
