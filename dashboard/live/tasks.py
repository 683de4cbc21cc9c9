"""Celery tasks of the live poller. They take ids only (never a key or a
secret), re-read the row, never sleep, and are safe to run twice."""

from __future__ import annotations

from celery import shared_task

from dashboard.live import services


@shared_task(name="live.tick", acks_late=True, ignore_result=True)
def tick() -> int:
    """Claim every due operation and enqueue one poll per claimed row."""
    claims = services.operations_claim_due()
    for claim in claims:
        poll_operation.delay(claim.operation_id, claim.lease_token)
    return len(claims)


@shared_task(name="live.poll_operation", acks_late=True, ignore_result=True)
def poll_operation(operation_id: int, lease_token: str | None = None) -> None:
    """Poll one operation once, if this task still holds its lease."""
    services.operation_poll(operation_id=operation_id, lease_token=lease_token)
