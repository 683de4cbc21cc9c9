"""Celery tasks of the stored keys. They carry no key and no secret (the rows
are read again), never sleep, and are safe to run twice: a check is claimed
by its row (`checked_at`) before the call."""

from __future__ import annotations

from django.conf import settings

from dashboard.celery import app
from dashboard.keys.recheck import api_keys_recheck_due


@app.task(name="keys.recheck_due")
def recheck_due() -> int:
    """On the interval (beat): ask the service again about the stored keys
    whose last check is KEY_SWEEP_SECONDS old, a slice a run, one at a time.
    Returns how many were asked."""
    sweep = api_keys_recheck_due(
        window_seconds=float(settings.KEY_SWEEP_SECONDS), run_seconds=float(settings.KEY_SWEEP_RUN_SECONDS)
    )
    return sweep.asked
