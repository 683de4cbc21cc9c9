"""Pushed states: a consumer other than the poller (a worker reading a
streamed call) holds a row with a lease, writes what it receives at once,
and gives the row back; the batch poller leaves a held row alone and takes
it back once the lease runs out."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import httpx
import pytest
from django.utils import timezone

from dashboard.live.claims import operations_claim_due
from dashboard.live.models import TrackedOperation
from dashboard.live.pushed import LeaseKeeper, operation_lease, operation_lease_renew, operation_push, operation_release
from dashboard.live.selectors import operation_view
from dashboard.live.services import operations_poll_due
from tests.live.support import TURN_ID, turn_body


def test_a_held_row_is_left_alone_by_the_poller_until_its_lease_runs_out(make_turn):
    op = make_turn()
    token = operation_lease(operation_id=op.pk, seconds=60)
    assert token and operation_lease(operation_id=op.pk, seconds=60) is None  # held once
    assert operations_claim_due() == []
    later = timezone.now() + timedelta(seconds=61)
    assert [claim.operation_id for claim in operations_claim_due(now=later)] == [op.pk]


def test_a_pushed_state_is_stored_like_a_polls_and_a_final_one_frees_the_row(make_turn):
    op = make_turn()
    token = operation_lease(operation_id=op.pk, seconds=60)
    assert operation_push(operation_id=op.pk, lease_token=token, snapshot={"status": "building"}, context={"x": "1"})
    op.refresh_from_db()
    assert op.lease_token == token and op.context == {"studio": "website", "x": "1"} and op.last_polled_at

    # Stored clean: a NUL the database could not hold is gone.
    assert operation_push(
        operation_id=op.pk, lease_token=token, snapshot={"status": "completed", "note": "a\x00b"}, release=True
    )
    op.refresh_from_db()
    assert op.is_final and op.status == "completed" and op.lease_token == "" and op.next_poll_at is None
    assert "\x00" not in op.snapshot["note"]
    assert operation_view(op=op).version  # renders as any row does


def test_a_push_without_the_lease_writes_nothing(make_turn):
    op = make_turn()
    operation_lease(operation_id=op.pk, seconds=60)
    assert not operation_push(operation_id=op.pk, lease_token="not-ours", snapshot={"status": "completed"})
    op.refresh_from_db()
    assert op.status == "building" and not op.is_final


def test_released_rows_are_due_at_once_or_stopped_with_the_message(make_turn):
    op = make_turn(remote_id="t1", due=False)
    token = operation_lease(operation_id=op.pk, seconds=60)
    assert operation_release(operation_id=op.pk, lease_token=token, message="The stream broke; asking again.")
    op.refresh_from_db()
    assert op.lease_token == "" and op.next_poll_at <= timezone.now() and op.last_error.startswith("The stream broke")

    other = make_turn(remote_id="t2", due=False)
    token = operation_lease(operation_id=other.pk, seconds=60)
    operation_release(
        operation_id=other.pk, lease_token=token, message="Out of credits.", request_id="req_1", stop=True
    )
    other.refresh_from_db()
    assert other.is_final and other.status == TrackedOperation.STATUS_STOPPED
    assert other.last_error == "Out of credits." and other.last_error_request_id == "req_1"


# --- short, renewed leases: a follower that dies lets its row go within the lease ------------


class WorkerKilled(BaseException):
    """The follower's process dies mid-stream: nothing of it runs any more (no
    except clause, no release; its renewal thread dies with it)."""


def killed_after(*events: tuple[str, dict]) -> httpx.Response:
    def body():
        for name, data in events:
            yield f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
        raise WorkerKilled()

    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())


def sse(*events: tuple[str, dict]) -> httpx.Response:
    body = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


def test_a_renewal_extends_only_the_holders_lease(make_turn, settings):
    settings.LIVE_STREAM_LEASE_SECONDS = 30
    op = make_turn()
    now = timezone.now()
    token = operation_lease(operation_id=op.pk, seconds=30, now=now)
    assert operation_lease_renew(operation_id=op.pk, lease_token=token, now=now + timedelta(seconds=20))
    op.refresh_from_db()
    assert op.lease_until == now + timedelta(seconds=50)
    assert not operation_lease_renew(operation_id=op.pk, lease_token="someone-else")

    # Ran out and nobody took it: renewed (nobody else read the row meanwhile).
    assert operation_lease_renew(operation_id=op.pk, lease_token=token, now=now + timedelta(seconds=60))
    # Taken by the poller once it ran out: the follower's renewal fails, and it stops.
    later = now + timedelta(seconds=200)
    assert [claim.operation_id for claim in operations_claim_due(now=later)] == [op.pk]
    assert not operation_lease_renew(operation_id=op.pk, lease_token=token, now=later)


def test_the_keepers_thread_renews_a_silent_streams_lease_and_sees_it_lost(transactional_db, make_turn):
    op = make_turn()
    token = operation_lease(operation_id=op.pk, seconds=0.3)
    first = TrackedOperation.objects.get(pk=op.pk).lease_until
    with LeaseKeeper(operation_id=op.pk, lease_token=token, seconds=0.3) as lease:
        renewed = wait_for(lambda: TrackedOperation.objects.get(pk=op.pk).lease_until > first)
        TrackedOperation.objects.filter(pk=op.pk).update(lease_token="the-poller")
        assert wait_for(lambda: lease.lost)
    assert renewed and not lease.renew()


def wait_for(condition, limit_seconds: float = 10.0) -> bool:
    """Wait for the renewal thread (not an assertion on time: the checks follow)."""
    deadline = time.monotonic() + limit_seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return bool(condition())


def test_a_chat_answers_follower_killed_mid_stream_lets_the_poller_end_it_after_the_short_lease(
    remote, api_key, settings
):
    from agents.services import invocation_start, invocation_stream

    settings.LIVE_STREAM_LEASE_SECONDS = 30
    key = "k" * 32
    agent = "22222222-2222-4222-8222-222222222222"
    thread = "dddddddd-0000-4000-8000-000000000001"
    runs = remote.post(f"/v1/agents/{agent}/runs").mock(
        side_effect=[
            killed_after(("started", {"thread_id": thread})),
            sse(("started", {"thread_id": thread}), ("result", {"status": "completed", "answer": "Forty euros."})),
        ]
    )
    op = invocation_start(key=api_key, agent_id=agent, message="Price?", thread_id=None, idempotency_key=key)
    op.refresh_from_db()
    with pytest.raises(WorkerKilled):
        invocation_stream(operation_id=op.pk, lease_token=op.lease_token)
    op.refresh_from_db()
    assert op.snapshot["thread_id"] == thread and not op.is_final
    assert op.lease_until <= timezone.now() + timedelta(seconds=30)  # the short lease, not 860 s

    assert operations_poll_due(now=op.lease_until - timedelta(seconds=1)).claimed == 0  # still held
    report = operations_poll_due(now=op.lease_until + timedelta(seconds=1))
    op.refresh_from_db()
    assert report.polled == 1 and (op.status, op.is_final) == ("completed", True)
    assert op.snapshot["answer"] == "Forty euros."
    # The poll repeated the same call with the same key: the service answers from the first run.
    assert [call.request.headers["Idempotency-Key"] for call in runs.calls] == [key, key]


def test_a_turns_follower_killed_mid_stream_lets_the_poller_end_it_after_the_short_lease(remote, make_turn, settings):
    from studio.services import turn_follow

    settings.LIVE_STREAM_LEASE_SECONDS = 30
    op = make_turn(due=False)
    context = {"studio": "website", "body": {"message": "A site"}, "idempotency_key": "t" * 32, "events": []}
    TrackedOperation.objects.filter(pk=op.pk).update(context=context)
    remote.post("/v1/studio/website/turns").mock(
        return_value=killed_after(("turn", {"id": TURN_ID}), ("plan", {"steps": ["Outline", "Build"]}))
    )
    remote.get(f"/v1/turns/{TURN_ID}").mock(return_value=httpx.Response(200, json=turn_body(status="completed")))
    with pytest.raises(WorkerKilled):
        turn_follow(operation_id=op.pk)
    op.refresh_from_db()
    assert [event["event"] for event in op.context["events"]] == ["plan"] and op.context["following"] == "reading"
    assert op.lease_until <= timezone.now() + timedelta(seconds=30)

    assert operations_poll_due(now=op.lease_until - timedelta(seconds=1)).claimed == 0
    report = operations_poll_due(now=op.lease_until + timedelta(seconds=1))
    op.refresh_from_db()
    assert report.polled == 1 and (op.status, op.is_final) == ("completed", True)
    assert turn_follow(operation_id=op.pk) == 0  # a redelivered follower finds it done
