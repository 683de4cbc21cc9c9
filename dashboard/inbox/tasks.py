"""Celery tasks of the inbox. They take ids only (a workspace id, never a key
or a secret), re-read what they need, never sleep, and are safe to run twice:
a refresh makes the stored items exactly what the service says now."""

from __future__ import annotations

from dashboard.celery import app
from dashboard.inbox import services


@app.task(name="inbox.refresh_all", acks_late=True, ignore_result=True)
def refresh_all() -> int:
    """On the interval (beat): one refresh task per workspace the console holds a key of."""
    services.dismissals_prune()
    workspaces = services.workspaces_to_refresh()
    for workspace_id in workspaces:
        # A refresh that waited longer than an interval is stale: the next one covers it.
        refresh_workspace.apply_async(args=[workspace_id], expires=services.refresh_seconds())
    return len(workspaces)


@app.task(name="inbox.refresh_workspace", acks_late=True, ignore_result=True)
def refresh_workspace(workspace_id: str) -> int:
    """Read the workspace's pending approvals and waiting or failed runs
    (each area's inbox source) with a stored key of that workspace, and keep them."""
    return services.workspace_refresh(workspace_id=str(workspace_id))
