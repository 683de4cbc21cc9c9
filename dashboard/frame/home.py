"""The home page's seam: what an area adds to a person's overview.

An area lists callables in the `Area` it registers (`home_sections`,
dashboard/frame/areas.py)::

    def recent_conversations(viewer: HomeViewer) -> HomeSection | None:
        ...
        return HomeSection(
            title="Your recent conversations",
            template="studio/home_section.html",   # included with `section`, `data` (its context), `zone`
            context={"conversations": rows},
            has_items=bool(rows),
            empty="Conversations you have with a studio director appear here.",
            actions=(HomeAction("New turn", reverse("studio:index") + "#start-turn-heading"),),
        )

A section is read on every visit of the home page, so it reads the
console's database (tracked rows, stored inbox items, the area's own rows).
Remote reads are for what only the service knows and the page cannot do
without; they go through `viewer.remembered(...)`, kept a minute per person
and workspace: the whole page makes one remote read at most, none on a repeat
visit within that minute (tests/home counts them). Answer None when the
section has nothing to say to this person at all (no workspace); an empty
section still answers, with `empty` saying what will appear.

Actions (quick actions: start something) are offered only to a person who
may write: the core drops them for everyone else whatever a section answers,
so a Viewer never sees one even if an area forgets to ask.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from django.core.cache import cache
from django.utils.text import slugify
from django.utils.translation import gettext

from dashboard.inbox.sources import InboxViewer

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest

T = TypeVar("T")

# How long a remote read made for the home page is kept per person and
# workspace: a repeat visit within it makes none.
HOME_REMOTE_SECONDS = 60


@dataclass(frozen=True)
class HomeChoice:
    label: str
    url: str


@dataclass(frozen=True)
class HomeAction:
    """A quick action: a link that starts something (`url`), or a picker of
    where to start it (`choices`, links; `url` then lists everything)."""

    label: str
    url: str
    choices: tuple[HomeChoice, ...] = ()
    # The picker's "everything" link, in the person's words ("All agents").
    more_label: str = ""
    # Where the picker's choices come from when the page does not have them
    # yet (a remote read): asked for when the person opens it, so the home
    # page never waits on the service for a menu nobody opened.
    choices_url: str = ""


@dataclass(frozen=True)
class HomeSection:
    title: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    # Whether the section has anything to show; else `empty` is shown in its place.
    has_items: bool = False
    empty: str = ""
    # Where the whole list lives ("All conversations", url).
    more: tuple[str, str] | None = None
    actions: tuple[HomeAction, ...] = ()

    @property
    def slug(self) -> str:
        """An id for the section's heading, from its title (unique on the page)."""
        return "home-" + slugify(self.title)[:40]


@dataclass(frozen=True)
class HomeViewer:
    """Who looks at the home page: the console user in the workspace of their
    active key, as much of `request.workspace` as a section needs."""

    user: Any
    workspace_id: str
    zone: tzinfo
    can_write: bool
    now: datetime
    # The workspace's client, made only when a section asks (no key read before).
    client_of: Callable[[], Any]

    @property
    def client(self) -> Any:
        return self.client_of()

    @cached_property
    def inbox_viewer(self) -> InboxViewer:
        return InboxViewer(user=self.user, workspace_id=self.workspace_id)

    @property
    def operations(self) -> list[Any]:
        """The person's latest tracked operations in this workspace, newest
        first (`TrackedOperation` rows): one query that the inbox's items and
        every section share (Studio turns, agent runs)."""
        return self.inbox_viewer.operations

    def _remembered_key(self, name: str) -> str:
        digest = hashlib.blake2s(f"{self.user.pk}\n{self.workspace_id}\n{name}".encode(), digest_size=12).hexdigest()
        return f"home:remote:{digest}"

    def remembered_only(self, name: str) -> Any:
        """What `remembered(name, ...)` kept, if it still does; never a remote read."""
        return cache.get(self._remembered_key(name))

    def remembered(self, name: str, read: Callable[[], T]) -> T:
        """`read()` (a remote read), kept HOME_REMOTE_SECONDS for this person
        and workspace. Per person, not per workspace: what a key may see is
        the key's (its role), and the home page is one person's. Remote errors
        propagate (nothing kept): the section decides what to show instead."""
        key = self._remembered_key(name)
        kept = cache.get(key)
        if kept is not None:
            return kept
        value = read()
        cache.set(key, value, HOME_REMOTE_SECONDS)
        return value


def waited_words(since: datetime | None, now: datetime) -> str:
    """An age in a few characters, for lists that show many ("2 h", "5 min",
    "3 days"): the exact time is in the `<time>` element's title beside it."""
    if since is None:
        return ""
    seconds = max((now - since).total_seconds(), 0)
    if seconds < 60:
        return gettext("under a minute")
    if seconds < 3600:
        return gettext("%(minutes)d min") % {"minutes": seconds // 60}
    if seconds < 2 * 86400:
        return gettext("%(hours)d h") % {"hours": seconds // 3600}
    return gettext("%(days)d days") % {"days": seconds // 86400}


def home_viewer(request: ConsoleRequest, *, now: datetime | None = None) -> HomeViewer | None:
    """The viewer of `request` (None without a working key): for the home
    page and for the requests its sections make later (a picker's choices)."""
    from django.utils import timezone

    workspace = request.workspace
    workspace_id = workspace.working_id
    if not workspace_id:
        return None
    return HomeViewer(
        user=request.user,
        workspace_id=workspace_id,
        zone=workspace.zone,
        can_write=workspace.can_write,
        now=now or timezone.now(),
        client_of=lambda: workspace.client,
    )
