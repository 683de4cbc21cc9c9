"""The Studio's Celery task: follow a turn's streamed progress.

It takes an id, re-reads the row, never sleeps (it reads a stream the
service sends as the work advances), and is safe to run twice (a second
run finds the row already followed and does nothing)."""

from __future__ import annotations

from dashboard.celery import app
from studio import services


@app.task(name="studio.follow_turn", acks_late=True, ignore_result=True)
def follow_turn(operation_id: int) -> int:
    """Read the rest of a turn's stream into its tracked row; returns the events stored."""
    return services.turn_follow(operation_id=operation_id)
