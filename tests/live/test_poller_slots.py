"""The poller cannot wedge: at most LIVE_POLL_MAX_QUEUED poll messages are
queued or running at once, whatever the worker's speed; they carry no expiry;
a lost or stale one is replaced once, and a backlog drains.

The broker is a list here (what `apply_async` would have queued), the worker
a loop that takes its oldest message: every check counts messages and polls."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.live import claims, selectors, slots, tasks
from dashboard.live.models import PollerSlot, TrackedOperation
from tests.live.support import turn_body

TURNS = r"/v1/turns/.+"


def answer_building(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json=turn_body("building", turn_id=request.url.path.rsplit("/", 1)[-1]))


@pytest.fixture
def broker(monkeypatch):
    """The poll messages sent, oldest first, as the broker would hold them."""
    queued: list[dict] = []
    monkeypatch.setattr(tasks.poll_due, "apply_async", lambda *args, **kwargs: queued.append(kwargs))
    return queued


def run_oldest(broker: list[dict]) -> int:
    """The worker takes the oldest message and runs it."""
    message = broker.pop(0)
    return tasks.poll_due(*message["args"])


def test_a_worker_that_takes_nothing_never_has_more_than_the_bound_queued(db, remote, make_turn, settings, broker):
    """The wedge of issue #24: beat ticks on while no poll message is taken.
    The queue stops growing at the bound, and the messages waiting are the
    ones that poll every due row once the worker takes them."""
    settings.LIVE_POLL_BATCH = 10
    settings.LIVE_POLL_MAX_QUEUED = 3
    route = remote.get(url__regex=TURNS).mock(side_effect=answer_building)
    for number in range(60):
        make_turn(remote_id=f"turn-{number}")

    for _ in range(40):  # 20 s of ticks at 0.5 s
        tasks.tick()
    assert len(broker) == 3
    assert all("expires" not in message for message in broker)  # the work never waits on an expiry

    polled = 0
    while broker:
        polled += run_oldest(broker)
        tasks.tick()  # beat goes on between messages
    assert polled == 60 and route.call_count == 60
    assert set(TrackedOperation.objects.values_list("poll_count", flat=True)) == {1}
    assert set(PollerSlot.objects.values_list("token", flat=True)) == {""}  # every slot idle again


def test_a_tick_with_every_slot_busy_reads_one_table_and_sends_nothing(db, make_turn, settings, broker):
    settings.LIVE_POLL_MAX_QUEUED = 2
    settings.LIVE_POLL_BATCH = 1
    for number in range(5):
        make_turn(remote_id=f"turn-{number}")
    tasks.tick()
    assert len(broker) == 2
    with CaptureQueriesContext(connection) as queries:
        assert tasks.tick() == 0
    assert len(queries) == 1 and len(broker) == 2


def test_a_message_lost_in_the_broker_is_sent_again_once_and_the_late_one_is_dropped(
    db, remote, make_turn, settings, broker
):
    settings.LIVE_POLL_MAX_QUEUED = 1
    route = remote.get(url__regex=TURNS).mock(side_effect=answer_building)
    make_turn()
    tasks.tick()
    lost = broker.pop()
    tasks.tick()
    assert broker == []  # still presumed queued: nothing new

    # Sent longer ago than a poll task's longest run, never started: presumed lost, sent again.
    PollerSlot.objects.update(sent_at=timezone.now() - slots.poll_task_longest() + timedelta(seconds=5))
    tasks.tick()
    assert broker == []  # a message may wait behind busy workers longer than the rows' short lease
    PollerSlot.objects.update(sent_at=timezone.now() - slots.poll_task_longest() - timedelta(seconds=1))
    tasks.tick()
    assert len(broker) == 1 and broker[0]["args"] != lost["args"]

    # The lost message turns up after all: it polls nothing; the new one polls.
    assert tasks.poll_due(*lost["args"]) == 0
    assert route.call_count == 0
    assert run_oldest(broker) == 1 and route.call_count == 1


def test_a_message_whose_worker_died_mid_run_is_replaced_after_its_budget_and_lease(db, make_turn, settings, broker):
    settings.LIVE_POLL_MAX_QUEUED = 1
    make_turn()
    tasks.tick()
    (slot, token) = broker.pop()["args"]
    assert slots.poller_slot_start(slot=slot, token=token)  # ... and the worker is killed here
    tasks.tick()
    assert broker == []
    # Its budget, then a last batch's longest hold (window, the call's timeouts, a lease).
    run_limit = timedelta(seconds=settings.LIVE_POLL_TASK_SECONDS) + claims.batch_longest()
    assert slots.poll_task_longest() == run_limit
    PollerSlot.objects.update(started_at=timezone.now() - run_limit - timedelta(seconds=1))
    tasks.tick()
    assert len(broker) == 1


def test_a_poll_task_out_of_budget_with_rows_due_sends_its_successor_itself(db, remote, make_turn, settings, broker):
    settings.LIVE_POLL_MAX_QUEUED = 1
    settings.LIVE_POLL_BATCH = 2
    settings.LIVE_POLL_TASK_SECONDS = 0  # one batch per message
    remote.get(url__regex=TURNS).mock(side_effect=answer_building)
    for number in range(5):
        make_turn(remote_id=f"turn-{number}")
    tasks.tick()
    polls = []
    while broker:  # no tick needed: each message sends the next
        polls.append(run_oldest(broker))
        assert len(broker) <= 1
    assert polls == [2, 2, 1, 0]
    assert PollerSlot.objects.get().token == ""


def test_a_poll_task_that_cannot_be_sent_frees_its_slot(db, make_turn, settings, monkeypatch):
    settings.LIVE_POLL_MAX_QUEUED = 1

    def broker_down(*args, **kwargs):
        raise ConnectionError("broker unreachable")

    monkeypatch.setattr(tasks.poll_due, "apply_async", broker_down)
    make_turn()
    assert tasks.tick() == 1
    assert PollerSlot.objects.get().token == ""  # the next tick tries again at once


def test_poll_messages_stuck_in_the_queue_are_the_pause_reason(db, make_turn, settings, broker, monkeypatch):
    """The page names a queue that holds the poll messages without a worker
    taking them, not "behind" for ever."""
    monkeypatch.setattr("dashboard.live.heartbeat.broker_is_up", lambda: True)
    monkeypatch.setattr("dashboard.live.heartbeat.heartbeat_last_seen", lambda: timezone.now())
    now = timezone.now()
    op = make_turn(last_polled_at=now - timedelta(minutes=2))
    tasks.tick()
    PollerSlot.objects.update(sent_at=now - timedelta(minutes=1))
    reason = selectors.pause_reason(op, now=now)
    assert reason is not None and reason.cause == "queue"
    assert "waiting in the task queue" in reason.message
