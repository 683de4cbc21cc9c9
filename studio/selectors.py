"""Reads of the Studio. Turn states come from the tracked rows only."""

from __future__ import annotations

from django.http import Http404

from dashboard.live.models import TrackedOperation
from dashboard.live.selectors import OperationView, operation_views_for_user
from studio.live import TURN_KIND


def turns_recent(*, user, workspace_id: str, limit: int = 20) -> list[OperationView]:
    """This user's latest turns in the workspace they are working in now, with
    their live state, newest first (all workspaces' work is on live:index)."""
    if not workspace_id:
        return []
    return operation_views_for_user(user=user, kind=TURN_KIND, workspace_id=workspace_id, limit=limit)


def turn_for_viewer(*, user, operation_id: int) -> TrackedOperation:
    """One of this user's turns; 404 for anyone else's or for another kind."""
    op = TrackedOperation.objects.filter(id=operation_id, started_by=user, kind=TURN_KIND).first()
    if op is None:
        raise Http404("No such turn.")
    return op
