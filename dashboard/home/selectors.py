"""Reads of the home page. The core's own sections read the console's
database only: what needs the person (the inbox's items, as the inbox page
shows them, or "reading the workspace" until its first refresh) and what runs now (their tracked operations not final). The
areas' sections come through the registry (`Area.home_sections`); a remote
read they need is kept a minute per person and workspace (`HomeViewer.remembered`).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from dashboard.frame.areas import home_sections
from dashboard.frame.home import HomeSection, HomeViewer, waited_words
from dashboard.inbox.models import WorkspaceRefresh
from dashboard.inbox.selectors import header_version, inbox_items
from dashboard.inbox.sources import InboxItem, InboxViewer
from dashboard.keys.models import ApiKey
from dashboard.live import registry
from dashboard.live.models import TrackedOperation
from dashboard.live.selectors import EPOCH, PAUSED_AFTER
from dashboard.web.reading import when

logger = logging.getLogger("dashboard.home")

# The inbox's first items shown on the home page (the longest waiting): the rest is one link away.
INBOX_SHOWN = 5
# Operations shown as running now; a person rarely has more going at once.
RUNNING_SHOWN = 8
# How often the running region asks the console (the console's database only).
RUNNING_POLL_SECONDS = 3
MICROSECOND = timedelta(microseconds=1)


@dataclass(frozen=True)
class WaitingRow:
    item: InboxItem
    waited: str  # "2 h"


@dataclass(frozen=True)
class NeedsYou:
    rows: list[WaitingRow]
    total: int
    # Whether the inbox's refresh has read the workspace once: before it,
    # "nothing waits" would be a guess, so the card says it is reading.
    read: bool
    version: str  # what the card shows, for its poll (204 while unchanged)

    @property
    def poll_seconds(self) -> int:
        return home_poll_seconds()


def home_poll_seconds() -> int:
    """How often the cards read from the inbox ask the console: the header count's pace."""
    return max(1, int(settings.INBOX_POLL_SECONDS))


def _workspace_read(workspace_id: str) -> bool:
    return WorkspaceRefresh.objects.filter(workspace_id=workspace_id, refreshed_at__isnull=False).exists()


def _needs_you_version(user, read: bool) -> str:
    return hashlib.blake2s(f"{header_version(user=user)}|{int(read)}".encode(), digest_size=8).hexdigest()


def needs_you_version(*, user, workspace_id: str) -> str:
    """The card's version: the header count's (the inbox's stored items, the
    person's own work and dismissals, the hour) and whether the workspace
    was read once. Small queries of fixed number, nothing built or rendered."""
    return _needs_you_version(user, bool(workspace_id) and _workspace_read(workspace_id))


def needs_you(*, viewer: InboxViewer, now: datetime) -> NeedsYou:
    """The inbox's first items, exactly those the inbox page lists first,
    and whether the inbox's refresh read the workspace yet."""
    read = _workspace_read(viewer.workspace_id)
    version = _needs_you_version(viewer.user, read)
    items = inbox_items(viewer=viewer)
    return NeedsYou(
        rows=[WaitingRow(item=item, waited=waited_words(item.since, now)) for item in items[:INBOX_SHOWN]],
        total=len(items),
        read=read,
        version=version,
    )


@dataclass(frozen=True)
class RunningRow:
    op: TrackedOperation
    kind_title: str
    page_url: str
    paused: bool
    started: datetime  # the service's time where it gives one (`started_at`)
    running_for: str  # "5 min"


@dataclass(frozen=True)
class RunningNow:
    rows: list[RunningRow]
    more: bool  # more are running than shown
    version: str  # "" when nothing runs: no poll matches it, and that render stops the polling

    @property
    def poll_seconds(self) -> int:
        return RUNNING_POLL_SECONDS


def _running(*, user, workspace_id: str | None = None) -> QuerySet[TrackedOperation]:
    """The person's own work not final in a workspace (never a row tracked
    only to show others' work live: a run a list showed): the one
    given, else that of their active key while the service has not refused
    it (a subquery: the poll's unchanged answer reads no key first)."""
    rows = TrackedOperation.objects.filter(started_by=user, is_final=False).exclude(
        kind__in=registry.watched_kind_names()
    )
    if workspace_id is None:
        active = ApiKey.objects.filter(user=user, is_active=True, refused_at__isnull=True).values("workspace_id")[:1]
        rows = rows.filter(owner_key__workspace_id__in=active)
    else:
        rows = rows.filter(owner_key__workspace_id=workspace_id)
    return rows.order_by("-created_at", "-id")


def started_at(op: TrackedOperation) -> datetime:
    """When the work started, as the service tells it (the snapshot's
    `started_at` or `created_at`), else when the console recorded it: never
    later than the row (a clock that is off must not make it younger)."""
    snapshot = op.snapshot if isinstance(op.snapshot, dict) else {}
    told = when(snapshot.get("started_at")) or when(snapshot.get("created_at"))
    if told is not None and timezone.is_naive(told):
        told = timezone.make_aware(told, UTC)
    return min(told, op.created_at) if told is not None else op.created_at


def _paused(refreshed_at: datetime, now: datetime) -> bool:
    return now - refreshed_at > PAUSED_AFTER


def _version(rows: list[tuple[int, datetime, datetime | None, datetime]], now: datetime) -> str:
    """What the region shows, in a few characters: each row's id, last change
    and refresh, and whether it is paused (the one part the clock changes).
    A row that ends leaves the list, so the version changes with it."""
    if not rows:
        return ""
    parts = []
    for op_id, updated_at, polled_at, created_at in rows:
        refreshed = polled_at or created_at
        stamps = ":".join(str((moment - EPOCH) // MICROSECOND) for moment in (updated_at, refreshed))
        parts.append(f"{op_id}:{stamps}:{int(_paused(refreshed, now))}")
    return hashlib.blake2s("|".join(parts).encode(), digest_size=8).hexdigest()


def running_version(*, user, now: datetime) -> str:
    """The running region's version, in one query of four columns (the poll's
    whole work while nothing changed)."""
    rows = list(
        _running(user=user).values_list("id", "updated_at", "last_polled_at", "created_at")[: RUNNING_SHOWN + 1]
    )
    return _version(rows, now)


def _page_url(op: TrackedOperation, kind: registry.OperationKind | None) -> str:
    """Where the work is followed: its kind's page, else the console's own
    page of the row (also when the row lacks what its kind's address needs:
    a chat message without its agent's id must not break the home page)."""
    if kind is not None and kind.page_url is not None:
        try:
            return kind.page_url(op) or reverse("live:detail", args=[op.pk])
        except NoReverseMatch:
            pass
    return reverse("live:detail", args=[op.pk])


def running_now(*, user, workspace_id: str, now: datetime) -> RunningNow:
    ops = list(_running(user=user, workspace_id=workspace_id)[: RUNNING_SHOWN + 1])
    version = _version([(op.pk, op.updated_at, op.last_polled_at, op.created_at) for op in ops], now)
    rows = []
    for op in ops[:RUNNING_SHOWN]:
        kind = registry.get_kind(op.kind)
        rows.append(
            RunningRow(
                op=op,
                kind_title=kind.title if kind is not None else op.kind,
                page_url=_page_url(op, kind),
                paused=_paused(op.last_polled_at or op.created_at, now),
                started=started_at(op),
                running_for=waited_words(started_at(op), now),
            )
        )
    return RunningNow(rows=rows, more=len(ops) > RUNNING_SHOWN, version=version)


def area_sections(viewer: HomeViewer) -> list[HomeSection]:
    """Every area's section for this person, in the areas' order. One area's
    failure (a bug, a row of an unexpected shape) leaves its section out and
    is logged; the home page stands. Actions are offered only to a person who
    may write, whatever a section answers."""
    sections = []
    for read in home_sections():
        try:
            section = read(viewer)
        except Exception:
            logger.exception("home section %s failed", getattr(read, "__qualname__", read))
            continue
        if section is None:
            continue
        if not viewer.can_write and section.actions:
            section = replace(section, actions=())
        sections.append(section)
    return sections
