"""Remote data PostgreSQL cannot store never traps a row in a loop.

A NUL character in a chat event ({"x": "\\u0000"}) used to make every save of
the row fail on PostgreSQL: the lease ran out, the row was claimed again and
the remote request repeated every 90 s for ever. Now the snapshot is cleaned
before it is stored; and a save that fails anyway releases the row at once,
counts as a failed check, and enough of them stop the row."""

from __future__ import annotations

import httpx
import pytest
from django.db import connection
from django.utils import timezone

from dashboard.live import outcomes, services, tasks
from dashboard.live.models import TrackedOperation
from tests.helpers import missing_service
from tests.live.support import TURN_ID, turn_body

TURN_PATH = f"/v1/turns/{TURN_ID}"
# What the service may send: NUL in values and keys, a lone surrogate, NaN.
UNSTORABLE = (
    '{"id": "TURN", "status": "completed", "message": "Done\\u0000.", "events": [{"x": "\\u0000"},'
    ' {"text": "a\\u0000b", "k\\u0000ey": "\\ud800"}], "score": NaN}'
).replace("TURN", TURN_ID)


@pytest.fixture
def on_postgres(db):
    if connection.vendor != "postgresql":
        missing_service("needs PostgreSQL (DATABASE_URL=postgres://...)")


@pytest.mark.postgres
def test_a_nul_in_remote_data_is_stored_cleaned_and_the_turn_reaches_its_final_state(
    on_postgres, remote, make_turn, eager_celery
):
    route = remote.get(TURN_PATH).mock(
        return_value=httpx.Response(200, content=UNSTORABLE, headers={"Content-Type": "application/json"})
    )
    op = make_turn()

    assert tasks.tick() == 1
    op.refresh_from_db()
    assert (op.status, op.is_final, op.error_count, op.lease_token) == ("completed", True, 0, "")
    assert op.snapshot["message"] == "Done."
    assert op.snapshot["events"] == [{"x": ""}, {"text": "ab", "key": "\ufffd"}]
    assert op.snapshot["score"] is None
    # Final: never asked again.
    TrackedOperation.objects.filter(pk=op.pk).update(next_poll_at=timezone.now())
    assert tasks.tick() == 0
    assert route.call_count == 1


@pytest.mark.postgres
def test_a_start_answer_with_a_nul_is_recorded_cleaned(on_postgres, api_key):
    op = services.operation_track(
        owner_key=api_key,
        kind="studio.turn",
        remote_id=TURN_ID,
        title="Spring\x00 sale",
        snapshot={"id": TURN_ID, "status": "build\x00ing", "events": [{"x": "\x00"}]},
        context={"studio": "web\x00site"},
    )
    op.refresh_from_db()
    assert (op.title, op.status, op.snapshot["events"], op.context) == (
        "Spring sale",
        "building",
        [{"x": ""}],
        {"studio": "website"},
    )


@pytest.mark.postgres
def test_saves_the_database_refuses_release_the_row_and_stop_it_after_the_limit(
    on_postgres, remote, make_turn, settings, monkeypatch
):
    # As before the cleaning existed: the snapshot goes to the database as sent.
    monkeypatch.setattr(outcomes, "storable", lambda value: value)
    settings.LIVE_MAX_FAILURES = 2
    route = remote.get(TURN_PATH).mock(
        return_value=httpx.Response(200, json=turn_body("building", events=[{"x": "\x00"}]))
    )
    op = make_turn()
    now = timezone.now()

    op = services.operation_poll(operation_id=op.pk, now=now)
    # Released at once (no 90 s lease to wait out), a failed check, polled again after the backoff.
    assert (op.lease_token, op.lease_until, op.is_final, op.error_count) == ("", None, False, 1)
    assert op.last_error == outcomes.SAVE_FAILED
    assert op.next_poll_at == now + outcomes.error_backoff(error_count=1)
    assert op.snapshot == {"id": TURN_ID, "status": "building"}  # the last state it could store

    op = services.operation_poll(operation_id=op.pk, now=op.next_poll_at)
    assert (op.status, op.is_final, op.next_poll_at, op.error_count) == (TrackedOperation.STATUS_STOPPED, True, None, 2)
    assert op.last_error == "The last 2 checks all failed (the console could not store what the service sent)."
    assert route.call_count == 2
