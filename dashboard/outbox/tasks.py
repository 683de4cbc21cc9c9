"""The outbox's Celery task: send what the broker could not take when it was written."""

from __future__ import annotations

from dashboard.celery import app
from dashboard.outbox import services


@app.task(name="outbox.sweep")
def sweep() -> int:
    """On beat (OUTBOX_SWEEP_SECONDS): publish every due message; returns how many."""
    return services.outbox_sweep()
