"""`{% inbox_header %}`: the header's inbox link with its live count, and the
person's news as toasts, on every page (templates/base.html)."""

from __future__ import annotations

from typing import Any

from django import template

from dashboard.inbox import selectors, services
from dashboard.inbox.sources import InboxViewer

register = template.Library()


@register.inclusion_tag("inbox/header.html", takes_context=True)
def inbox_header(context: Any) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    if request is None or user is None or not user.is_authenticated:
        return {"inbox": None}
    workspace = getattr(request, "workspace", None)
    if workspace is not None and workspace.refused:
        # Neither the workspace's count nor the person's news while the service refuses their key.
        return {"inbox": None}
    viewer = InboxViewer(user=user, workspace_id=workspace.working_id if workspace is not None else "")
    return {
        "inbox": selectors.header_state(viewer=viewer),
        # News since the last page (work that ended while the person moved between pages),
        # but none about what this very page shows: a page names it in its context as
        # `on_screen_operations` (ids), as its polls do in a header (views.on_screen_operations).
        "notices": services.notices_claim(user=user, on_screen=_ids(context.get("on_screen_operations"))),
        "request": request,
    }


def _ids(value: Any) -> frozenset[int]:
    if not isinstance(value, (list, tuple, set, frozenset)):
        return frozenset()
    return frozenset(item for item in value if isinstance(item, int) and not isinstance(item, bool))


@register.filter
def waited(since) -> str:
    """How long an item has waited, in words ("less than a minute", "3 hours, 5 minutes")."""
    from django.utils import timezone
    from django.utils.timesince import timesince

    if since is None:
        return ""
    if (timezone.now() - since).total_seconds() < 60:
        return "less than a minute"
    return timesince(since)
