"""Celery tasks of the live poller. They take ids only (never a key or a
secret), re-read the rows, never sleep, and are safe to run twice."""

from __future__ import annotations

import time

from django.conf import settings

from dashboard.celery import app
from dashboard.live import services

# Bound to the project's app, not `shared_task`: a shared task resolves the
# "current" app per thread, which in a thread of its own (a test poller, an
# embedded runner) can be a default app that isn't configured.


def _tick_seconds() -> float:
    return float(getattr(settings, "CELERY_BEAT_TICK_SECONDS", 0.5))


@app.task(name="live.tick", acks_late=True, ignore_result=True)
def tick() -> int:
    """Count the due rows and send enough `live.poll_due` tasks to cover them.

    The tick claims nothing: each poll task claims its rows when it starts, so
    no lease runs out while a message waits in the broker. A message that
    waited longer than a few ticks expires unread (the next tick sends what is
    needed then), so a busy worker's queue never grows without end.
    """
    max_tasks = max(1, int(getattr(settings, "LIVE_TICK_MAX_TASKS", 64)))
    due = services.operations_due_count(limit=max_tasks * services.poll_batch_size())
    expires = max(_tick_seconds() * 3, 5.0)
    for _ in range(min(max_tasks, services.batches_for(due))):
        poll_due.apply_async(expires=expires)
    return due


@app.task(name="live.poll_due", acks_late=True, ignore_result=True)
def poll_due() -> int:
    """Claim a batch of due rows and poll them all; again while rows are due,
    for `LIVE_POLL_TASK_SECONDS` at most. Returns the rows polled.

    It stops early as soon as a batch finds nothing due or polls nothing (every
    row put off by a 429 or a short lease): it never spins on the same rows.
    """
    budget = float(getattr(settings, "LIVE_POLL_TASK_SECONDS", 10.0))
    started = time.monotonic()
    polled = 0
    while True:
        report = services.operations_poll_due()
        polled += report.polled
        if report.polled == 0 or time.monotonic() - started >= budget:
            return polled


@app.task(name="live.poll_operation", acks_late=True, ignore_result=True)
def poll_operation(operation_id: int, lease_token: str | None = None) -> None:
    """Poll one operation now, if its lease is free (or this task holds it)."""
    services.operation_poll(operation_id=operation_id, lease_token=lease_token)
