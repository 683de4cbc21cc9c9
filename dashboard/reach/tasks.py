"""Celery tasks of notifications. They take ids, re-read the rows, never
sleep (a retry is a later task with a countdown; the row's `due_at` is the
schedule) and are safe to run twice: a row is sent by the one worker that
leases it, and a sent row is never sent again."""

from __future__ import annotations

from dashboard.celery import app
from dashboard.reach import sending


@app.task(name="reach.deliver")
def deliver(delivery_id: int) -> str:
    """Send one delivery (and the rest of its digest) if it is due and free."""
    return sending.delivery_step(delivery_id=int(delivery_id))


@app.task(name="reach.deliver_due")
def deliver_due() -> int:
    """On the interval (beat), and after a refresh produced something due: a
    `reach.deliver` per recipient and channel with rows due now."""
    due = sending.deliveries_due()
    for delivery_id in due:
        deliver.apply_async(args=[delivery_id])
    return len(due)
