"""A real worker process killed (SIGKILL) while it streams a chat answer from
the sandbox, then a worker started again: the stream's short lease runs out
(nothing renews it once the process is gone), the poller takes the row and
follows the run to its answer within a minute, and the agent ran once."""

from __future__ import annotations

import os
import signal

import pytest
from django.conf import settings

from dashboard.api import ServiceClient
from dashboard.live.models import TrackedOperation
from tests.agents.support import store_demo_key
from tests.helpers import running_sandbox
from tests.workers import TEST_REDIS_URL, wait_for

LEASE_SECONDS = 3


@pytest.fixture(scope="module")
def slow_sandbox():
    """A sandbox whose agent runs take about 10 real seconds (20 simulated at 0.5)."""
    with running_sandbox(time_scale=0.5) as handle:
        yield handle


@pytest.mark.redis
@pytest.mark.postgres
def test_a_worker_killed_mid_stream_leaves_the_answer_to_the_poller_after_a_restart(
    transactional_db, slow_sandbox, user, monkeypatch, django_capture_on_commit_callbacks, worker_processes
):
    from agents.services import invocation_start
    from dashboard.live.tasks import tick

    env = {
        "SERVICE_BASE_URL": slow_sandbox.base_url,
        "KEY_ENCRYPTION_KEYS": ",".join(settings.KEY_ENCRYPTION_KEYS),
        "LIVE_STREAM_LEASE_SECONDS": str(LEASE_SECONDS),
    }
    monkeypatch.setattr(settings, "SERVICE_BASE_URL", slow_sandbox.base_url)
    monkeypatch.setattr(settings, "LIVE_STREAM_LEASE_SECONDS", LEASE_SECONDS)
    monkeypatch.setenv("CELERY_BROKER_URL", TEST_REDIS_URL)
    key = store_demo_key(user, slow_sandbox)
    agents = ServiceClient(api_key=slow_sandbox.demo_key).get("/v1/agents", params={"limit": 100})
    agent_id = next(a["id"] for a in agents["data"] if a["name"] == "Customer FAQ helper")
    with django_capture_on_commit_callbacks(execute=True):
        op = invocation_start(
            key=key,
            agent_id=agent_id,
            message="What does the Pro plan cost?",
            thread_id=None,
            idempotency_key="killed-worker-0000000000000001",
        )
    first = worker_processes("--pool", "solo", "-l", "warning", env=env)
    # The worker is streaming once `started` is on the row.
    assert wait_for(lambda: TrackedOperation.objects.get(pk=op.pk).context.get("run_id"), limit_seconds=60, every=0.1)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    op.refresh_from_db()
    assert not op.is_final and op.lease_token  # nobody gave it back

    worker_processes("--pool", "solo", "-l", "warning", env=env)  # the restart; ticks stand in for beat

    def final() -> bool:
        tick.apply_async()
        return TrackedOperation.objects.get(pk=op.pk).is_final

    assert wait_for(final, limit_seconds=60, every=0.1)
    op.refresh_from_db()
    assert op.status == "completed" and op.snapshot.get("answer") and op.poll_count >= 1  # by the poller
    runs = [run for run in slow_sandbox.store.list("run") if run.get("thread_id") == op.context["thread_id"]]
    assert len(runs) == 1  # the poller read the run; the agent never ran twice
