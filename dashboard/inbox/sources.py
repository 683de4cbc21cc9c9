"""The inbox's seam: what an area contributes to "Needs you".

An area lists its sources in the `Area` it registers (`inbox_sources`,
dashboard/frame/areas.py)::

    InboxSource(
        name="agents",
        items=agent_items,          # (viewer) -> InboxItems, from the console's database only
        refresh=agent_refresh,      # (client, workspace_id) -> StoredItems, remote reads (the task only)
        refresh_after=("/v1/approvals/",),  # writes after which the workspace is refreshed at once
        watched_refresh=agent_approvals,  # (client, workspace_id) -> StoredItems of watched_kinds, while watched
        watched_kinds=("approval",),
        context=agent_item_context, # (item, request) -> extra context of the item's template
        stamp=agent_stamp,          # (viewer) -> what changes its items, in one cheap query
    )

`items` is what the header count and the inbox page read: it never calls the
service, whatever the number of viewers. What only the service knows (the
workspace's pending approvals, runs woken by a webhook or a schedule) comes
in through `refresh`, which only the Celery task `inbox.refresh_workspace`
calls, with a stored key of that workspace; the core keeps what it answers
(`WaitingItem` rows) and gives it back to `items` through
`dashboard.inbox.selectors.stored_items`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from dashboard.api import ServiceClient
    from dashboard.frame.workspace import ConsoleRequest

# What waits for a person, in the person's words (the inbox's tabs, in order).
KIND_APPROVAL = "approval"
KIND_QUESTION = "question"
KIND_VIDEO = "video"
KIND_WAITING = "waiting"
KIND_FAILED = "failed"
# Mentions in comments, and comments and changes on records a person watches (objects/comments.py).
KIND_RECORD = "record"
KINDS = (
    (KIND_APPROVAL, _("Approvals")),
    (KIND_QUESTION, _("Questions")),
    (KIND_VIDEO, _("Video requests")),
    (KIND_WAITING, _("Waiting runs")),
    (KIND_FAILED, _("Failed")),
    (KIND_RECORD, _("Mentions and watched records")),
)
KIND_LABELS = dict(KINDS)
# A failure seen, a video request the person will not make, news of a record read elsewhere:
# nothing else settles them (opening the record settles its news too).
DISMISSABLE_KINDS = frozenset({KIND_FAILED, KIND_VIDEO, KIND_RECORD})

# The one-click action an item offers.
ACTION_APPROVE = "approve"  # approve or reject in place (the area's template)
ACTION_ANSWER = "answer"
ACTION_OPEN = "open"
ACTION_LABELS = {ACTION_APPROVE: _("Decide"), ACTION_ANSWER: _("Answer"), ACTION_OPEN: _("Open")}


# The person's own tracked work the inbox looks at, newest first, at most.
OWN_WORK_LIMIT = 300


@dataclass(frozen=True)
class InboxViewer:
    """Who looks at the inbox: the console user in the workspace of their active key."""

    user: Any
    workspace_id: str

    @cached_property
    def operations(self) -> list[Any]:
        """The person's latest tracked operations in this workspace, newest
        first: one query every source shares (Studio turns, agent runs)."""
        from dashboard.live.models import TrackedOperation

        return list(
            TrackedOperation.objects.filter(started_by=self.user, owner_key__workspace_id=self.workspace_id)
            .select_related("started_by")
            .order_by("-created_at", "-id")[:OWN_WORK_LIMIT]
        )


@dataclass(frozen=True)
class InboxItem:
    key: str  # unique in the inbox, e.g. "approval:<id>", "run:<id>"
    kind: str  # one of KINDS
    title: str  # what it is, in a sentence
    started_by: str  # who or what started it ("Dana", "a webhook", "the agent Lead qualifier")
    since: datetime | None  # waiting since
    url: str  # where to open it
    action: str = ACTION_OPEN
    agent_id: str = ""
    agent_name: str = ""
    area: str = ""
    # The area's template for the item's action (an approval's decision form),
    # rendered with `item` and what the source's `context` returns.
    template: str = ""
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    # Keys of items this one stands for (an approval covers the run waiting for it).
    covers: tuple[str, ...] = ()
    # An approval's risk in the service's word ("send", "destructive"...): what
    # a person's notification preferences choose by.
    risk: str = ""
    # When a person should have acted by (an area's deadline): past it, the
    # item is overdue and escalated once (dashboard/reach).
    due_at: datetime | None = None
    # What tells it from a similar item on the same list ("to: bob@example.com"
    # for one of six "Send the email" approvals), shown under its title.
    detail: str = ""

    @property
    def kind_label(self) -> str:
        return str(KIND_LABELS.get(self.kind, self.kind))

    @property
    def action_label(self) -> str:
        return str(ACTION_LABELS.get(self.action, _("Open")))

    @property
    def dismissable(self) -> bool:
        """What nothing else settles can be put out of the inbox by hand."""
        return self.kind in DISMISSABLE_KINDS


@dataclass(frozen=True)
class StoredItem:
    """One thing the service says waits for a person, as a source's `refresh`
    answers it; kept as a `WaitingItem` row until the next refresh."""

    remote_id: str
    kind: str
    data: dict[str, Any]  # what the source's `items` needs to show it again (storable JSON)
    since: datetime | None = None
    # The remote write that settles it (`/v1/approvals/{id}`): when it succeeds
    # (or is refused as already done, 409) the row goes at once, before the refresh.
    settle_path: str = ""


@dataclass(frozen=True)
class InboxSource:
    name: str
    items: Callable[[InboxViewer], Iterable[InboxItem]]
    refresh: Callable[[ServiceClient, str], list[StoredItem]] | None = None
    refresh_after: tuple[str, ...] = ()
    # The quick read of a workspace someone is looking at (every
    # INBOX_WATCHED_REFRESH_SECONDS): cheap, within the service's rate limits
    # (pending approvals only), answering the kinds `watched_kinds` names;
    # the source's other stored rows stay as the full refresh left them.
    watched_refresh: Callable[[ServiceClient, str], list[StoredItem]] | None = None
    watched_kinds: tuple[str, ...] = ()
    context: Callable[[InboxItem, ConsoleRequest], dict[str, Any]] | None = None
    # (viewer) -> a short text that changes whenever `items` would answer
    # differently, from rows the core does not already watch (its stored
    # items and the person's tracked operations): one cheap query at most.
    # The header poll's version is made of these, never of the items.
    stamp: Callable[[InboxViewer], str] | None = None
