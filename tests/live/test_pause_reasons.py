"""Why live updates are paused, named from what the console can know: the
row's last poll (the service rate-limiting or failing), a poll still waiting
for the service, the broker, the worker's heartbeat (the time of the last
`live.tick`, in the cache)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from dashboard.live import heartbeat
from dashboard.live.models import TrackedOperation
from tests.html import one

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def fresh_heartbeat_cache():
    cache.delete_many([heartbeat.HEARTBEAT_CACHE_KEY, heartbeat.BROKER_CACHE_KEY])
    yield
    cache.delete_many([heartbeat.HEARTBEAT_CACHE_KEY, heartbeat.BROKER_CACHE_KEY])


@pytest.fixture
def broker(monkeypatch):
    """The broker check's answer, settable per test (the real check is in tests/ops/test_healthz.py)."""
    state = {"status": "ok", "checks": 0}

    def check(*, timeout):
        state["checks"] += 1
        return state["status"]

    monkeypatch.setattr("dashboard.live.heartbeat.health_broker_check", check)
    return state


def paused_cause(client, op) -> tuple[str, str]:
    body = client.get(reverse("live:status", args=[op.pk]), **HTMX).content
    paused = one(body, ".live-paused")
    return paused["data-pause-cause"], paused.get_text(" ")


def stale(op, **fields):
    fields.setdefault("last_polled_at", timezone.now() - timedelta(seconds=45))
    TrackedOperation.objects.filter(pk=op.pk).update(**fields)


def test_a_rate_limited_row_says_the_service_set_the_wait_not_the_worker(db, make_turn, logged_in_client, broker):
    op = make_turn(due=False)
    stale(
        op,
        last_error="The service asked us to slow down; the next check waits as long as it asked.",
        next_poll_at=timezone.now() + timedelta(seconds=50),
    )

    cause, words = paused_cause(logged_in_client, op)

    assert cause == "rate_limit"
    assert "rate-limiting" in words and "as it allows" in words and "worker" not in words
    assert broker["checks"] == 0  # the row alone said why


def test_a_failing_service_sets_the_wait_too(db, make_turn, logged_in_client, broker):
    op = make_turn(due=False)
    stale(op, last_error="The service had a problem answering.", next_poll_at=timezone.now() + timedelta(seconds=50))

    cause, words = paused_cause(logged_in_client, op)

    assert cause == "service" and "as the service allows" in words


def test_a_follower_whose_lease_ran_out_unreturned_says_its_worker_stopped(db, make_turn, logged_in_client, broker):
    heartbeat.heartbeat_record()  # the worker process runs (restarted), but the follower died
    op = make_turn(due=False)
    stale(op, lease_until=timezone.now() - timedelta(seconds=5), lease_token="dead-follower")

    cause, words = paused_cause(logged_in_client, op)

    assert cause == "worker" and "following this stopped" in words


def test_a_poll_still_waiting_for_the_service_says_it_is_slow(db, make_turn, logged_in_client, broker):
    op = make_turn(due=False)
    stale(op, lease_until=timezone.now() + timedelta(seconds=60), lease_token="t")

    cause, words = paused_cause(logged_in_client, op)

    assert cause == "slow" and "slow to answer" in words


def test_a_broker_that_does_not_answer_is_named(db, make_turn, logged_in_client, broker):
    broker["status"] = "error: OperationalError"
    heartbeat.heartbeat_record()  # even with a recent tick, the broker is the news
    op = make_turn(due=False)
    stale(op)

    cause, words = paused_cause(logged_in_client, op)
    paused_cause(logged_in_client, op)

    assert cause == "broker" and "broker" in words
    assert broker["checks"] == 1  # remembered between status polls


def test_no_tick_for_a_minute_says_the_worker_is_not_running(db, make_turn, logged_in_client, broker):
    op = make_turn(due=False)
    stale(op)

    cause, words = paused_cause(logged_in_client, op)
    assert cause == "worker" and "worker is not running" in words

    heartbeat.heartbeat_record(now=timezone.now() - timedelta(minutes=5))
    cause, words = paused_cause(logged_in_client, op)
    assert cause == "worker" and "last seen at" in words


def test_a_recent_tick_with_an_overdue_row_says_the_worker_is_behind(db, make_turn, logged_in_client, broker):
    heartbeat.heartbeat_record()
    op = make_turn(due=False)
    stale(op)

    cause, _words = paused_cause(logged_in_client, op)

    assert cause == "behind"


def test_a_tick_run_by_a_worker_records_the_heartbeat(db, eager_celery):
    from dashboard.live.tasks import tick

    assert heartbeat.heartbeat_last_seen() is None
    tick.delay()  # through Celery (eager here), as beat sends it

    seen = heartbeat.heartbeat_last_seen()
    assert seen is not None and timezone.now() - seen < timedelta(minutes=1)
