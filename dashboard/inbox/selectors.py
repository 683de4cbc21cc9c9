"""Reads of the inbox. Nothing here calls the remote service: the header
count, its poll and the inbox page read only the console's database (what
the sources keep locally and what `inbox.refresh_workspace` stored)."""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from dashboard.frame.areas import inbox_sources
from dashboard.inbox.models import Dismissal, WaitingItem, WorkspaceRefresh
from dashboard.inbox.sources import KINDS, InboxItem, InboxViewer
from dashboard.keys.models import ApiKey
from dashboard.live.models import TrackedOperation
from dashboard.people.models import Person, WorkspaceRole

logger = logging.getLogger("dashboard.inbox")

# Statuses after which the person's own work may be news (the toasts): a
# final row, or one that waits (for them, perhaps).
WAITING_STATUSES = ("waiting", "needs_input")


def stored_items(*, workspace_id: str, source: str) -> list[WaitingItem]:
    """What the last refresh of `source` read for the workspace (oldest first)."""
    return list(WaitingItem.objects.filter(workspace_id=workspace_id, source=source).order_by("since", "id"))


def _oldest_first(item: InboxItem) -> tuple:
    return (item.since is None, item.since or datetime.max, item.key)


def inbox_item_record(item: InboxItem) -> dict:
    """One item as the console's API and its MCP server give it (JSON; `url` a path of this console)."""
    return {
        "key": item.key,
        "kind": item.kind,
        "title": item.title,
        "detail": item.detail,
        "started_by": item.started_by,
        "since": item.since.isoformat() if item.since else None,
        "due_at": item.due_at.isoformat() if item.due_at else None,
        "risk": item.risk or None,
        "agent_id": item.agent_id or None,
        "url": item.url,
    }


def inbox_items(*, viewer: InboxViewer) -> list[InboxItem]:
    """Everything waiting for a person in the viewer's workspace, the longest
    waiting first. An item another one covers (a run waiting for an approval
    that is itself in the inbox) is left out; the same key twice is one item."""
    if not viewer.workspace_id:
        return []
    gathered: dict[str, InboxItem] = {}
    for source in inbox_sources():
        try:
            items: Iterable[InboxItem] = source.items(viewer)
            for item in items:
                gathered.setdefault(item.key, item)
        except Exception:
            # One area's bad row never empties the whole inbox (or breaks every page's header).
            logger.exception("inbox source %s failed", source.name)
    covered = {key for item in gathered.values() for key in item.covers}
    covered |= set(
        Dismissal.objects.filter(user=viewer.user, workspace_id=viewer.workspace_id).values_list("key", flat=True)
    )
    return sorted((item for key, item in gathered.items() if key not in covered), key=_oldest_first)


def filtered(items: list[InboxItem], *, kind: str = "", agent_id: str = "") -> list[InboxItem]:
    return [item for item in items if (not kind or item.kind == kind) and (not agent_id or item.agent_id == agent_id)]


def kind_counts(items: list[InboxItem]) -> list[tuple[str, str, int]]:
    """(kind, label, count) of every kind, in the inbox's order."""
    return [(kind, str(label), sum(1 for item in items if item.kind == kind)) for kind, label in KINDS]


def agent_choices(items: list[InboxItem]) -> list[tuple[str, str]]:
    """(agent id, name) of the agents the items name, by name."""
    names: dict[str, str] = {}
    for item in items:
        if item.agent_id:
            names[item.agent_id] = names.get(item.agent_id) or item.agent_name or "(unnamed agent)"
    return sorted(names.items(), key=lambda pair: pair[1].lower())


def last_refresh(*, workspace_id: str) -> WorkspaceRefresh | None:
    return WorkspaceRefresh.objects.filter(workspace_id=workspace_id).first()


@dataclass(frozen=True)
class HeaderState:
    count: int
    version: str

    @property
    def poll_seconds(self) -> int:
        from django.conf import settings

        return max(1, int(settings.INBOX_POLL_SECONDS))


def _column(model, name: str) -> str:
    field = model._meta.get_field(name)
    return connection.ops.quote_name(field.column)


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@functools.cache
def _core_stamp_sql(vendor: str) -> str:
    """The person's active workspace (while their key is not refused), its stored items (how many, the newest),
    the person's own tracked work there (how many, the latest change of
    those final or waiting), what they dismissed, and their role there (the
    default, and the workspace's own: a source may list items by role, so a
    role's change recounts), in one statement on the person's active key.
    Written out (names from the models) rather than built by the ORM on every
    poll: compiling the querysets cost more than running them
    (bench/inbox_poll.py)."""
    items, ops, keys, dismissed = _table(WaitingItem), _table(TrackedOperation), _table(ApiKey), _table(Dismissal)
    workspace = f"a.{_column(ApiKey, 'workspace_id')}"
    item_workspace = _column(WaitingItem, "workspace_id")
    own = (
        f"FROM {ops} o INNER JOIN {keys} k ON o.{_column(TrackedOperation, 'owner_key')} = k.{_column(ApiKey, 'id')} "
        f"WHERE o.{_column(TrackedOperation, 'started_by')} = %s AND k.{_column(ApiKey, 'workspace_id')} = {workspace}"
    )
    people, roles = _table(Person), _table(WorkspaceRole)
    person_id, person_user = _column(Person, "id"), _column(Person, "user")
    final, status = _column(TrackedOperation, "is_final"), _column(TrackedOperation, "status")
    waiting = ", ".join(["%s"] * len(WAITING_STATUSES))
    return (
        f"SELECT {workspace}, "
        f"(SELECT COUNT(*) FROM {items} WHERE {item_workspace} = {workspace}), "
        f"(SELECT MAX({_column(WaitingItem, 'id')}) FROM {items} WHERE {item_workspace} = {workspace}), "
        f"(SELECT COUNT(*) {own}), "
        f"(SELECT MAX(o.{_column(TrackedOperation, 'updated_at')}) {own} AND (o.{final} = %s OR o.{status} IN ({waiting}))), "
        f"(SELECT COUNT(*) FROM {dismissed} WHERE {_column(Dismissal, 'user')} = %s "
        f"AND {_column(Dismissal, 'workspace_id')} = {workspace}), "
        f"(SELECT p.{_column(Person, 'role')} FROM {people} p WHERE p.{person_user} = %s), "
        f"(SELECT r.{_column(WorkspaceRole, 'role')} FROM {roles} r INNER JOIN {people} p "
        f"ON r.{_column(WorkspaceRole, 'person')} = p.{person_id} WHERE p.{person_user} = %s "
        f"AND r.{_column(WorkspaceRole, 'workspace_id')} = {workspace}) "
        f"FROM {keys} a WHERE a.{_column(ApiKey, 'user')} = %s AND a.{_column(ApiKey, 'is_active')} = %s "
        # A refused key reads as no workspace: the version changes at once and
        # the changed poll meets the refusal (dashboard/frame/workspace.py).
        f"AND a.{_column(ApiKey, 'refused_at')} IS NULL"
    )


def header_version(*, user, now: datetime | None = None) -> str:
    """The version of the header's count (see `header_stamp`)."""
    return header_stamp(user=user, now=now)[1]


def header_stamp(*, user, now: datetime | None = None) -> tuple[str, str]:
    """The workspace of `user`'s active key, and the version of the header's
    count for `user` there, from one statement of the core's and each source's `stamp`,
    nothing built or rendered (the unchanged poll's whole work): the stored
    items of the workspace, the person's own tracked work (every new row,
    and the latest change of those final or waiting: their news), and the
    hour (failed work ages out of the inbox)."""
    from django.utils import timezone

    with connection.cursor() as cursor:
        cursor.execute(
            _core_stamp_sql(connection.vendor),
            [user.pk, user.pk, True, *WAITING_STATUSES, user.pk, user.pk, user.pk, user.pk, True],
        )
        row = cursor.fetchone() or ("",)
    viewer = InboxViewer(user=user, workspace_id=row[0] or "")
    parts = [
        viewer.workspace_id,
        (now or timezone.now()).strftime("%Y-%m-%d %H"),
        "/".join(str(value) for value in row[1:]),
        *(source.stamp(viewer) for source in inbox_sources() if source.stamp is not None and viewer.workspace_id),
    ]
    return viewer.workspace_id, hashlib.blake2s("|".join(parts).encode(), digest_size=8).hexdigest()


# How long a counted header stays in the cache. Its key holds the version,
# so a change makes a new key at once: this only bounds what is kept.
HEADER_COUNT_SECONDS = 3600


def _count_key(viewer: InboxViewer, version: str) -> str:
    # Workspace ids are the service's: hashed, so any id makes a valid cache key.
    workspace = hashlib.blake2s(viewer.workspace_id.encode(), digest_size=8).hexdigest()
    return f"inbox:count:{viewer.user.pk}:{workspace}:{version}"


def header_state(*, viewer: InboxViewer, version: str | None = None) -> HeaderState:
    """The header's count and the version it shows. The count is kept under
    its version: every full page shows the header, and while nothing its
    version covers has changed, the count is the same (the poll's 204 rests
    on the same promise), so a page reads one statement instead of every
    source's items."""
    from django.core.cache import cache

    version = version or header_version(user=viewer.user)
    key = _count_key(viewer, version)
    count = cache.get(key)
    if not isinstance(count, int):
        count = len(inbox_items(viewer=viewer))
        cache.set(key, count, timeout=HEADER_COUNT_SECONDS)
    return HeaderState(count=count, version=version)


def failures_since(now: datetime | None = None) -> datetime:
    """Failed work older than this has left the inbox (INBOX_FAILED_DAYS)."""
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    days = float(settings.INBOX_FAILED_DAYS)
    return (now or timezone.now()) - timedelta(days=days)
