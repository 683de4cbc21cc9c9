"""The poller: tick, leases, backoff, and how remote errors end or delay polling."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.utils import timezone

from dashboard.live import claims, services, tasks
from dashboard.live.models import TrackedOperation
from tests.live.support import SECRET, TURN_ID, turn_body

TURN_PATH = f"/v1/turns/{TURN_ID}"


def make_due(op: TrackedOperation) -> None:
    TrackedOperation.objects.filter(pk=op.pk).update(next_poll_at=timezone.now() - timedelta(seconds=1))


def test_a_turn_moves_from_building_to_completed_through_the_poll_task(db, remote, make_turn, eager_celery, caplog):
    route = remote.get(TURN_PATH).mock(
        side_effect=[
            httpx.Response(200, json=turn_body("building", job={"status": "queued", "stage": "generate"})),
            httpx.Response(
                200,
                json=turn_body(
                    "completed",
                    job={"status": "succeeded", "stage": "complete", "error": None},
                    artifact={
                        "id": "a1",
                        "type": "website",
                        "name": "Spring sale",
                        "url": "https://app/x",
                        "public_url": None,
                    },
                ),
            ),
        ]
    )
    op = make_turn()

    assert tasks.tick() == 1
    op.refresh_from_db()
    assert (op.status, op.is_final, op.poll_count) == ("building", False, 1)
    assert op.snapshot["job"]["stage"] == "generate"
    assert op.next_poll_at == op.last_polled_at + timedelta(seconds=5)
    assert op.lease_token == "" and op.lease_until is None

    # Not due yet: the tick leaves it alone.
    assert tasks.tick() == 0
    assert route.call_count == 1

    make_due(op)
    assert tasks.tick() == 1
    op.refresh_from_db()
    assert (op.status, op.is_final, op.poll_count, op.next_poll_at) == ("completed", True, 2, None)
    assert op.snapshot["artifact"]["name"] == "Spring sale"

    # Final: no further polls, however often the tick runs.
    make_due(op)
    assert tasks.tick() == 0
    tasks.poll_operation(op.pk)
    assert route.call_count == 2
    # The key went out in the Authorization header only, never into a log line.
    assert route.calls.last.request.headers["Authorization"] == f"Bearer {SECRET}"
    assert SECRET not in caplog.text and "svc_sk_" not in caplog.text


def test_polls_every_5_seconds_at_first_then_every_10(db, remote, make_turn):
    remote.get(TURN_PATH).mock(return_value=httpx.Response(200, json=turn_body("building")))
    op = make_turn()
    now = timezone.now()
    intervals = []
    for _ in range(9):
        op = services.operation_poll(operation_id=op.pk, now=now)
        intervals.append((op.next_poll_at - now).total_seconds())
        now = op.next_poll_at
    assert intervals == [5, 5, 5, 5, 5, 10, 10, 10, 10]
    assert op.poll_count == 9


def test_a_row_whose_lease_expired_is_claimed_again_and_a_live_lease_is_not(db, remote, make_turn, eager_celery):
    route = remote.get(url__regex=r"/v1/turns/.+").mock(return_value=httpx.Response(200, json=turn_body("building")))
    now = timezone.now()
    # A worker took this row and was killed mid-poll: its lease ran out a second ago.
    abandoned = make_turn(remote_id="turn-abandoned", lease_until=now - timedelta(seconds=1), lease_token="dead-worker")
    # Another worker is polling this one right now.
    busy = make_turn(remote_id="turn-busy", lease_until=now + timedelta(seconds=60), lease_token="live-worker")

    claimed = claims.operations_claim_due()
    assert [c.operation_id for c in claimed] == [abandoned.pk]
    # Claimed once: a second tick meanwhile finds nothing to take.
    assert claims.operations_claim_due() == []

    # The killed worker's late poll (its old token) does nothing.
    services.operation_poll(operation_id=abandoned.pk, lease_token="dead-worker")
    assert route.call_count == 0

    services.operation_poll(operation_id=abandoned.pk, lease_token=claimed[0].lease_token)
    abandoned.refresh_from_db()
    busy.refresh_from_db()
    assert route.call_count == 1
    assert abandoned.poll_count == 1 and abandoned.lease_token == ""
    assert busy.poll_count == 0 and busy.lease_token == "live-worker"


def test_the_next_tick_polls_a_row_left_by_a_killed_worker(db, remote, make_turn, eager_celery):
    route = remote.get(TURN_PATH).mock(return_value=httpx.Response(200, json=turn_body("completed", message="Done")))
    op = make_turn(lease_until=timezone.now() - timedelta(seconds=1), lease_token="dead-worker")
    assert tasks.tick() == 1
    op.refresh_from_db()
    assert route.call_count == 1
    assert (op.status, op.is_final) == ("completed", True)


def test_a_poll_of_a_row_leased_to_someone_else_does_nothing(db, remote, make_turn):
    route = remote.get(TURN_PATH).mock(return_value=httpx.Response(200, json=turn_body("completed")))
    op = make_turn(lease_until=timezone.now() + timedelta(seconds=60), lease_token="someone-else")
    services.operation_poll(operation_id=op.pk)  # no token: tries to take the lease, can't
    services.operation_poll(operation_id=op.pk, lease_token="not-mine")
    op.refresh_from_db()
    assert route.call_count == 0
    assert (op.status, op.poll_count, op.lease_token) == ("building", 0, "someone-else")


def test_a_429_pushes_the_next_poll_past_retry_after(db, remote, make_turn):
    remote.get(TURN_PATH).mock(
        return_value=httpx.Response(
            429,
            headers={"Retry-After": "30", "X-Request-Id": "req_slow_down"},
            json={"error": {"type": "rate_limited", "message": "Too many requests"}, "request_id": "req_slow_down"},
        )
    )
    op = make_turn()
    now = timezone.now()
    op = services.operation_poll(operation_id=op.pk, now=now)
    assert op.next_poll_at > now + timedelta(seconds=30)
    assert not op.is_final and op.status == "building"
    assert op.error_count == 1 and op.poll_count == 0
    assert "slow down" in op.last_error and op.last_error_request_id == "req_slow_down"
    assert op.lease_token == ""
    # Not due before Retry-After has passed.
    assert claims.operations_claim_due(now=now + timedelta(seconds=30)) == []
    assert len(claims.operations_claim_due(now=now + timedelta(seconds=32))) == 1


@pytest.mark.parametrize(
    ("status", "error_type", "words"),
    [
        (401, "authentication", "refused the API key"),
        (403, "permission", "may not read"),
        (404, "not_found", "no longer knows"),
    ],
)
def test_401_403_404_end_polling_with_a_clear_final_error(
    db, remote, make_turn, eager_celery, status, error_type, words
):
    route = remote.get(TURN_PATH).mock(
        return_value=httpx.Response(
            status, json={"error": {"type": error_type, "message": "No."}, "request_id": "req_final"}
        )
    )
    op = make_turn()
    assert tasks.tick() == 1
    op.refresh_from_db()
    assert op.is_final and op.status == TrackedOperation.STATUS_STOPPED
    assert op.next_poll_at is None
    assert words in op.last_error and op.last_error_request_id == "req_final"
    make_due(op)
    assert tasks.tick() == 0
    assert route.call_count == 1


def test_server_errors_and_lost_connections_back_off_and_recover(db, remote, make_turn):
    route = remote.get(TURN_PATH).mock(
        side_effect=[
            httpx.Response(503, json={"error": {"type": "server_error", "message": "down"}, "request_id": "req_503"}),
            httpx.ConnectError("refused"),
            httpx.Response(200, json=turn_body("completed")),
        ]
    )
    op = make_turn()
    now = timezone.now()
    op = services.operation_poll(operation_id=op.pk, now=now)
    assert (op.is_final, op.error_count, op.last_error_request_id) == (False, 1, "req_503")
    assert op.next_poll_at == now + timedelta(seconds=10)
    assert "problem answering" in op.last_error

    now = op.next_poll_at
    op = services.operation_poll(operation_id=op.pk, now=now)
    assert (op.is_final, op.error_count) == (False, 2)
    assert op.next_poll_at == now + timedelta(seconds=20)
    assert "unreachable" in op.last_error

    op = services.operation_poll(operation_id=op.pk, now=op.next_poll_at)
    assert (op.status, op.is_final, op.error_count, op.last_error) == ("completed", True, 0, "")
    assert route.call_count == 3


def test_recording_the_same_remote_operation_twice_keeps_one_row(db, make_turn):
    first = make_turn()
    second = make_turn()
    assert first.pk == second.pk
    assert TrackedOperation.objects.count() == 1


def test_a_kind_nobody_registered_stops_with_a_message_and_no_remote_call(db, remote, api_key, user):
    op = services.operation_track(owner_key=api_key, kind="nobody.knows", remote_id="x1")
    TrackedOperation.objects.filter(pk=op.pk).update(next_poll_at=timezone.now())
    op = services.operation_poll(operation_id=op.pk)
    assert op.is_final and "doesn't know how to follow" in op.last_error
    assert remote.calls.call_count == 0


def test_the_tick_sends_poll_tasks_with_no_arguments_and_no_key_reaches_the_broker(db, remote, make_turn, monkeypatch):
    sent = []
    monkeypatch.setattr(tasks.poll_due, "apply_async", lambda *args, **kwargs: sent.append((args, kwargs)))
    make_turn()
    assert tasks.tick() == 1
    # One task for the one due row, naming only its poller slot; it claims its rows itself when it runs.
    ((args, kwargs),) = sent
    (slot, token) = kwargs["args"]
    assert args == () and set(kwargs) == {"args"} and isinstance(slot, int) and len(token) == 32
    assert "svc_sk_" not in repr(sent)
    assert remote.calls.call_count == 0  # the tick itself never calls the service
    # Nothing was leased by the tick: a message lost in the broker holds no row.
    assert TrackedOperation.objects.filter(lease_token="").count() == 1
