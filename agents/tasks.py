"""Celery tasks of the Agents area. They take ids (and a lease token, not a
secret), re-read the row, never sleep, and are safe to run twice."""

from __future__ import annotations

from agents import alerts, bulk_decisions, deadline_outcomes, services
from dashboard.celery import app
from dashboard.jobs import engine


@app.task(name="agents.stream_invocation")
def stream_invocation(operation_id: int, lease_token: str) -> None:
    """Read a chat message's streamed call into its tracked row. Run twice
    (a redelivery), the second finds the row moved on or repeats the call
    with the same Idempotency-Key, which the service answers from the first run."""
    services.invocation_stream(operation_id=operation_id, lease_token=lease_token)


@app.task(name="agents.insights_refresh")
def insights_refresh(workspace_id: str) -> int:
    """Read a workspace's new runs into the insights' facts (a workspace id,
    never a key). Run twice or at once, the same facts are written again."""
    return services.insights_refresh(workspace_id=str(workspace_id))


@app.task(name="agents.insights_refresh_due")
def insights_refresh_due() -> int:
    """On the interval (beat): a refresh per workspace whose insights someone
    looked at lately; one that waited longer than an interval is stale."""
    workspaces = services.insights_workspaces_due()
    for workspace_id in workspaces:
        insights_refresh.apply_async(args=[workspace_id], expires=services.insights_refresh_seconds())
    return len(workspaces)


@app.task(name="agents.deadline_outcomes_due")
def deadline_outcomes_due() -> int:
    """On the interval (beat): pending approvals past their deadline whose
    rule decides then (reject, or approve for write and send), decided once
    (a conditional claim per approval: two workers at once send one decision)."""
    return deadline_outcomes.deadline_outcomes_due()


# Bulk decisions are stepped by the engine's `jobs.step` (dashboard/jobs/tasks.py).
# This old name hands a message sent before an upgrade over to it; it goes in a later release.
@app.task(name="agents.approval_batch_step")
def approval_batch_step(batch_id: int) -> None:
    """Before the engine: one chunk of a bulk decision (now `jobs.step`)."""
    engine.job_step(bulk_decisions.KIND, int(batch_id))


@app.task(name="agents.alerts_evaluate")
def alerts_evaluate() -> dict[str, int]:
    """On the interval (beat): every alert rule measured on what the console
    stores (no key, no service call); a breach and a recovery told once each
    (a conditional UPDATE of the rule's state: two workers at once tell one)."""
    return alerts.alerts_evaluate()
