"""Reads of assistant requests (the console's database only)."""

from __future__ import annotations

from django.db.models import QuerySet

from dashboard.assistants.models import AssistantRequest

DECIDED_SHOWN = 50
# The oldest waiting ones first; past this many the page says how many more wait (it stays one page).
WAITING_SHOWN = 100


def requests_waiting(*, workspace_id: str) -> QuerySet[AssistantRequest]:
    return (
        AssistantRequest.objects.filter(workspace_id=workspace_id, status=AssistantRequest.Status.WAITING)
        .select_related("user")
        .order_by("created_at", "id")
    )


def requests_waiting_shown(*, workspace_id: str) -> tuple[list[AssistantRequest], int]:
    """The oldest waiting requests the page shows, and how many wait in all (two queries)."""
    waiting = requests_waiting(workspace_id=workspace_id)
    return list(waiting[:WAITING_SHOWN]), waiting.count()


def requests_decided(*, workspace_id: str, limit: int = DECIDED_SHOWN) -> QuerySet[AssistantRequest]:
    return (
        AssistantRequest.objects.filter(workspace_id=workspace_id)
        .exclude(status=AssistantRequest.Status.WAITING)
        .select_related("user", "decided_by")
        .order_by("-decided_at", "-id")[:limit]
    )


def request_in_workspace(*, workspace_id: str, pk: int) -> AssistantRequest | None:
    return AssistantRequest.objects.select_related("user").filter(workspace_id=workspace_id, pk=pk).first()
