"""Celery tasks of the Agents area. They take ids (and a lease token, not a
secret), re-read the row, never sleep, and are safe to run twice."""

from __future__ import annotations

from agents import services
from dashboard.celery import app


@app.task(name="agents.stream_invocation", acks_late=True, ignore_result=True)
def stream_invocation(operation_id: int, lease_token: str) -> None:
    """Read a chat message's streamed call into its tracked row. Run twice
    (a redelivery), the second finds the row moved on or repeats the call
    with the same Idempotency-Key, which the service answers from the first run."""
    services.invocation_stream(operation_id=operation_id, lease_token=lease_token)
