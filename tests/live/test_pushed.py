"""Pushed states: a consumer other than the poller (a worker reading a
streamed call) holds a row with a lease, writes what it receives at once,
and gives the row back; the batch poller leaves a held row alone and takes
it back once the lease runs out."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from dashboard.live.models import TrackedOperation
from dashboard.live.selectors import operation_view
from dashboard.live.services import (
    operation_lease,
    operation_push,
    operation_release,
    operations_claim_due,
)


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
