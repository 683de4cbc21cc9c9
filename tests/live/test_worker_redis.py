"""The poller through a real broker: a `live.tick` sent to Redis is picked up
by a real Celery worker, which claims the due row and polls it."""

from __future__ import annotations

import httpx
import pytest

from dashboard.live.models import TrackedOperation
from tests.live.support import TURN_ID, turn_body
from tests.workers import wait_for


@pytest.mark.redis
def test_a_tick_sent_through_redis_polls_a_due_row(transactional_db, remote, make_turn, solo_worker):
    route = remote.get(f"/v1/turns/{TURN_ID}").mock(
        return_value=httpx.Response(200, json=turn_body("completed", message="All done."))
    )
    op = make_turn()

    solo_worker.send_task("live.tick")
    wait_for(lambda: TrackedOperation.objects.filter(pk=op.pk, is_final=True).exists())

    op.refresh_from_db()
    assert (op.status, op.is_final, op.poll_count) == ("completed", True, 1)
    assert op.snapshot["message"] == "All done."
    assert route.call_count == 1
