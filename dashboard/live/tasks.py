"""Celery tasks of the live poller. They take ids only (never a key or a
secret), re-read the row, never sleep, and are safe to run twice."""

from __future__ import annotations

from dashboard.celery import app
from dashboard.live import services

# Bound to the project's app, not `shared_task`: a shared task resolves the
# "current" app per thread, which in a thread of its own (a test poller, an
# embedded runner) can be a default app that isn't configured.


@app.task(name="live.tick", acks_late=True, ignore_result=True)
def tick() -> int:
    """Claim every due operation and enqueue one poll per claimed row."""
    claims = services.operations_claim_due()
    for claim in claims:
        poll_operation.delay(claim.operation_id, claim.lease_token)
    return len(claims)


@app.task(name="live.poll_operation", acks_late=True, ignore_result=True)
def poll_operation(operation_id: int, lease_token: str | None = None) -> None:
    """Poll one operation once, if this task still holds its lease."""
    services.operation_poll(operation_id=operation_id, lease_token=lease_token)
