"""The assistant requests in "Needs you": an Approver sees each waiting
request of the workspace (not their own), opened on the Assistant requests
page. The console's database only, one query.

Its stamp costs the header's poll no query: a mark in the shared cache that
every request made or decided in the workspace renews (the poll is the
console's hottest path, one statement for everything else). A lost mark
changes the version once, which only recounts."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable

from django.core.cache import cache
from django.urls import reverse

from dashboard.assistants.models import AssistantRequest
from dashboard.inbox.sources import KIND_APPROVAL, InboxItem, InboxSource, InboxViewer
from dashboard.people.roles import DECIDE_APPROVALS

# The inbox lists the oldest this many; the page says how many wait in all.
INBOX_MOST = 100


def _waiting(viewer: InboxViewer):
    return AssistantRequest.objects.filter(
        workspace_id=viewer.workspace_id, status=AssistantRequest.Status.WAITING
    ).exclude(user_id=viewer.user.pk)


def assistant_items(viewer: InboxViewer) -> Iterable[InboxItem]:
    if not viewer.workspace_id or not viewer.user.has_perm(DECIDE_APPROVALS, viewer.workspace_id):
        return []
    page = reverse("assistants:requests")
    return [
        InboxItem(
            key=f"assistant:{row.pk}",
            kind=KIND_APPROVAL,
            title=row.summary,
            started_by=f"{row.user.get_username()} via token “{row.token_name}”",
            since=row.created_at,
            url=f"{page}#assistant-request-{row.pk}",
            area="assistants",
            detail=row.reason,
        )
        for row in _waiting(viewer).select_related("user").order_by("created_at", "id")[:INBOX_MOST]
    ]


MARK_SECONDS = 7 * 24 * 3600


def _mark_key(workspace_id: str) -> str:
    # Workspace ids are the service's: hashed, so any id makes a key every cache accepts.
    return f"assistants:waiting:{hashlib.sha256(workspace_id.encode()).hexdigest()[:32]}"


def waiting_changed(*, workspace_id: str) -> None:
    """A request was made or decided in the workspace: the header's count is read again."""
    cache.set(_mark_key(workspace_id), uuid.uuid4().hex, MARK_SECONDS)


def assistant_stamp(viewer: InboxViewer) -> str:
    return str(cache.get(_mark_key(viewer.workspace_id)) or "")


ASSISTANTS_INBOX = InboxSource(name="assistants", items=assistant_items, stamp=assistant_stamp)
