"""Studio turns against the real sandbox over HTTP: started in background mode,
then polled to their final status by the poll service itself."""

from __future__ import annotations

import time

import pytest

from dashboard.idempotency import new_idempotency_key
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_poll
from studio.services import turn_reply, turn_start
from tests.live.fixtures import store_key


@pytest.fixture
def sandbox_key(sandbox, settings, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    return store_key(user, sandbox.demo_key)


def poll_until_final(op: TrackedOperation, *, max_polls: int = 200) -> TrackedOperation:
    """Poll through the service (no worker), as often as the sandbox needs;
    the sandbox's scaled clock makes a 3-minute build a fraction of a second."""
    for _ in range(max_polls):
        op = operation_poll(operation_id=op.pk)
        if op.is_final:
            break
        time.sleep(0.05)
    return op


def test_a_website_turn_is_polled_to_completion(db, sandbox_key, user):
    op = turn_start(
        user=user,
        studio="website",
        message="A landing page for our spring bicycle sale, bright and friendly",
        auto=True,
        idempotency_key=new_idempotency_key(),
    )
    assert op.status == "building" and not op.is_final

    op = poll_until_final(op)

    assert (op.status, op.is_final, op.last_error) == ("completed", True, "")
    assert op.snapshot["job"]["status"] == "succeeded" and op.snapshot["job"]["stage"] == "complete"
    assert op.snapshot["artifact"]["type"] == "website" and op.snapshot["artifact"]["url"]
    assert op.poll_count >= 1


def test_a_turn_that_needs_input_is_answered_in_the_same_conversation(db, sandbox_key, user):
    asked = poll_until_final(
        turn_start(user=user, studio="website", message="A website", idempotency_key=new_idempotency_key())
    )
    assert asked.status == "needs_input" and asked.snapshot["questions"]

    answered = poll_until_final(
        turn_reply(
            user=user, turn=asked, message="Bright colours, for a bicycle shop.", idempotency_key=new_idempotency_key()
        )
    )
    assert answered.pk != asked.pk
    assert answered.snapshot["conversation_id"] == asked.snapshot["conversation_id"]
    assert answered.status == "completed"
