"""Studio turns against the real sandbox over HTTP: started in background mode,
then polled to their final status by the poll service itself, once the
sandbox's clock has been moved past the work (nothing waits for it)."""

from __future__ import annotations

import pytest

from dashboard.idempotency import new_idempotency_key
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_poll
from sandbox.studio import DIRECTOR_SECONDS, WEBSITE_BUILD_SECONDS
from studio.services import turn_continue, turn_start
from tests.live.support import store_key

# Simulated seconds until a new website is built: the director answers, then the build runs.
WEBSITE_DONE = DIRECTOR_SECONDS["website"] + WEBSITE_BUILD_SECONDS


@pytest.fixture
def sandbox_key(sandbox, settings, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    return store_key(user, sandbox.demo_key)


def poll_after(sandbox, op: TrackedOperation, *, service_seconds: float) -> TrackedOperation:
    """One poll through the service (no worker), after moving the sandbox's
    clock on by `service_seconds` of simulated time: a 3-minute build is
    skipped, not waited for."""
    sandbox.advance(service_seconds=service_seconds)
    return operation_poll(operation_id=op.pk)


def test_a_website_turn_is_polled_to_completion(db, sandbox, sandbox_key, user):
    op = turn_start(
        key=sandbox_key,
        studio="website",
        message="A landing page for our spring bicycle sale, bright and friendly",
        auto=True,
        idempotency_key=new_idempotency_key(),
    )
    assert op.status == "building" and not op.is_final

    op = poll_after(sandbox, op, service_seconds=WEBSITE_DONE)

    assert (op.status, op.is_final, op.last_error) == ("completed", True, "")
    assert op.snapshot["job"]["status"] == "succeeded" and op.snapshot["job"]["stage"] == "complete"
    assert op.snapshot["artifact"]["type"] == "website" and op.snapshot["artifact"]["url"]
    assert op.poll_count >= 1


def test_a_turn_that_needs_input_is_answered_in_the_same_conversation(db, sandbox, sandbox_key, user):
    # The director asks its questions as soon as it has answered.
    asked = poll_after(
        sandbox,
        turn_start(key=sandbox_key, studio="website", message="A website", idempotency_key=new_idempotency_key()),
        service_seconds=DIRECTOR_SECONDS["website"],
    )
    assert asked.is_final and asked.status == "needs_input" and asked.snapshot["questions"]

    answered = poll_after(
        sandbox,
        turn_continue(
            key=sandbox_key,
            turns=[asked],
            message="Bright colours, for a bicycle shop.",
            idempotency_key=new_idempotency_key(),
        ),
        service_seconds=WEBSITE_DONE,
    )
    assert answered.pk != asked.pk
    assert answered.snapshot["conversation_id"] == asked.snapshot["conversation_id"]
    assert answered.is_final and answered.status == "completed"


def test_the_turns_progress_events_are_stored_on_its_row_by_the_follower(
    db, sandbox, sandbox_key, user, eager_celery, django_capture_on_commit_callbacks
):
    """The turn opens as a stream read up to its id; the follower (run inline
    here) reads the rest of the same stream, replayed with the same key, and
    stores the director's plan and status events on the row."""
    from studio.live import read_turn
    from studio.services import turn_follow

    message = f"Write a report on our Q3 newsletter results ({new_idempotency_key()})"
    with django_capture_on_commit_callbacks(execute=True):
        op = turn_start(key=sandbox_key, studio="document", message=message, idempotency_key=new_idempotency_key())
    op.refresh_from_db()
    names = [event["event"] for event in op.context["events"]]
    assert names[:2] == ["turn", "plan"] and names.count("status") >= 2
    assert op.context["following"] == "done"
    # The stream's result is stored at once (the live seam for pushed states), no poll needed.
    assert (op.status, op.is_final, op.poll_count) == ("completed", True, 0)
    assert turn_follow(operation_id=op.pk) == 0  # followed once only
    turns = [turn for turn in sandbox.store.list("turn") if turn.get("message") == message]
    assert len(turns) == 1  # the follower's stream is a replay, not a second turn
    page_events = read_turn(op, op.snapshot)["events"]
    assert page_events[1]["text"].startswith("Plan: ")
