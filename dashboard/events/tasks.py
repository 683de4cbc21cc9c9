"""Celery tasks of outbound events: ids only, the row re-read, never a sleep
(a retry is the row's `next_try_at`, found by the sweep), safe to run twice
(a lease: one worker calls; a delivered row is never called again)."""

from __future__ import annotations

from dashboard.celery import app
from dashboard.events import sending, services


@app.task(name="events.deliver")
def deliver(delivery_id: int) -> str:
    """Send one delivery if it is due and free."""
    return sending.delivery_send(delivery_id=int(delivery_id))


@app.task(name="events.deliver_due")
def deliver_due() -> int:
    """On the interval (beat): an `events.deliver` for each delivery whose next try came."""
    due = sending.deliveries_due()
    for delivery_id in due:
        deliver.apply_async(args=[delivery_id])
    return len(due)


@app.task(name="events.prune")
def prune() -> int:
    """Once a day (beat): events past EVENTS_RETENTION_DAYS, with their deliveries."""
    return services.events_prune()
