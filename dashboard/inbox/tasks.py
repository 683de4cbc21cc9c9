"""Celery tasks of the inbox. They take ids only (a workspace id, never a key
or a secret), re-read what they need, never sleep, and are safe to run twice:
a refresh makes the stored items exactly what the service says now."""

from __future__ import annotations

from dashboard.celery import app
from dashboard.inbox import services


@app.task(name="inbox.refresh_all")
def refresh_all() -> int:
    """On the interval (beat): one refresh task per workspace the console holds a key of."""
    services.dismissals_prune()
    workspaces = services.workspaces_to_refresh()
    for workspace_id in workspaces:
        # A refresh that waited longer than an interval is stale: the next one covers it.
        refresh_workspace.apply_async(args=[workspace_id], expires=services.refresh_seconds())
    return len(workspaces)


@app.task(name="inbox.refresh_watched")
def refresh_watched() -> int:
    """On the short interval (beat): one quick read of pending approvals per
    workspace someone is looking at. One task per workspace; the refresh's
    lease keeps two from reading one workspace at once."""
    workspaces = services.workspaces_watched()
    for workspace_id in workspaces:
        refresh_watched_workspace.apply_async(args=[workspace_id], expires=services.watched_refresh_seconds())
    return len(workspaces)


@app.task(name="inbox.refresh_watched_workspace")
def refresh_watched_workspace(workspace_id: str) -> int:
    """The quick read of a watched workspace (its pending approvals), kept like the full one's."""
    return services.workspace_refresh(workspace_id=str(workspace_id), watched=True)


@app.task(name="inbox.refresh_workspace")
def refresh_workspace(workspace_id: str) -> int:
    """Read the workspace's pending approvals and waiting or failed runs
    (each area's inbox source) with a stored key of that workspace, and keep them."""
    return services.workspace_refresh(workspace_id=str(workspace_id))
