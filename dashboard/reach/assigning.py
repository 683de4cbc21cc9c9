"""The assignee is told: assigning an item to someone (`reach:claim`)
notifies them on their channels, at once (quiet hours respected): "Dana
assigned you: <the approval>", linking to exactly it. Re-checked before
sending like every approval's news (dashboard/reach/rechecking.py)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from dashboard.inbox.selectors import inbox_items
from dashboard.inbox.sources import KIND_APPROVAL, InboxViewer
from dashboard.outbox.services import outbox_send
from dashboard.reach.producing import approval_title, input_summary, notify
from dashboard.reach.selectors import preferences_of

KIND_ASSIGNMENT = "assignment"


def _name(person) -> str:
    return (person.get_full_name() or "").strip() or person.get_username()


def assignment_notify(*, workspace_id: str, item_key: str, assignee, assigned_by, now: datetime | None = None) -> int:
    """Deliveries telling `assignee` of the assignment (none to oneself).
    Returns how many rows were asked for."""
    if assigned_by is not None and assignee.pk == assigned_by.pk:
        return 0
    now = now or timezone.now()
    item = next(
        (
            found
            for found in inbox_items(viewer=InboxViewer(user=assignee, workspace_id=workspace_id))
            if found.key == item_key
        ),
        None,
    )
    if item is None:
        return 0  # decided or gone meanwhile: nothing to tell
    what = approval_title(item) if item.kind == KIND_APPROVAL else item.title
    by = _name(assigned_by) if assigned_by is not None else "Someone"
    with transaction.atomic():
        made = notify(
            user=assignee,
            preference=preferences_of(assignee),
            workspace_id=workspace_id,
            # One per assignment (assigned again later: told again); `rechecking` reads the item key back.
            item_key=f"assigned:{int(now.timestamp())}:{item_key}",
            kind=KIND_ASSIGNMENT,
            title=f"{by} assigned you: {what}",
            path=item.url,
            now=now,
            digest=False,
            detail=input_summary(item),
            follow_away=False,
        )
        if made:
            outbox_send(task="reach.deliver_due", args=[])
    return made
