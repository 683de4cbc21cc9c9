"""Reads of the audit trail (the console's own database only)."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from dashboard.audit.models import AuditEntry


@dataclass(frozen=True)
class AuditFilter:
    username: str = ""
    area: str = ""
    kind: str = ""
    since: date | None = None
    until: date | None = None


def audit_entry_list(*, workspace_id: str, filters: AuditFilter) -> QuerySet[AuditEntry]:
    """The workspace's entries, newest first, filtered. Account events (people,
    roles, invitations, sign-in) belong to the console, not to one workspace:
    every workspace's trail shows them."""
    entries = AuditEntry.objects.filter(_in_trail(workspace_id))
    if filters.username:
        entries = entries.filter(username=filters.username)
    if filters.area:
        entries = entries.filter(area=filters.area)
    if filters.kind:
        entries = entries.filter(kind=filters.kind)
    zone = timezone.get_current_timezone()
    if filters.since:
        entries = entries.filter(created_at__gte=datetime.combine(filters.since, time.min, tzinfo=zone))
    if filters.until:
        entries = entries.filter(created_at__lte=datetime.combine(filters.until, time.max, tzinfo=zone))
    return entries.order_by("-id")


def _in_trail(workspace_id: str) -> Q:
    return Q(workspace_id=workspace_id) | Q(kind=AuditEntry.KIND_ACCOUNT)


def audit_entry_page(
    *, workspace_id: str, filters: AuditFilter, before_id: int | None, limit: int
) -> tuple[list[AuditEntry], int | None]:
    """One page (keyset on id: stable while new entries arrive) and the id
    the next page starts before, or None at the end."""
    entries = audit_entry_list(workspace_id=workspace_id, filters=filters)
    if before_id is not None:
        entries = entries.filter(id__lt=before_id)
    rows = list(entries.select_related(None)[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (rows[-1].id if more and rows else None)


def audit_choices(*, workspace_id: str) -> tuple[list[str], list[str]]:
    """The people and areas that appear in the workspace's trail, for the filters."""
    entries = AuditEntry.objects.filter(_in_trail(workspace_id))
    people = sorted(set(entries.exclude(username="").values_list("username", flat=True)))
    areas = sorted(set(entries.exclude(area="").values_list("area", flat=True)))
    return people, areas


def account_events_about(*, subject_id: int, limit: int = 20) -> list[AuditEntry]:
    """The latest account events about one person (their page on People)."""
    return list(AuditEntry.objects.filter(kind=AuditEntry.KIND_ACCOUNT, subject_id=subject_id).order_by("-id")[:limit])


def sign_ins_of(*, user_id: int, limit: int = 10) -> list[AuditEntry]:
    """A person's latest sign-ins, newest first (their own sessions page): one query."""
    entries = AuditEntry.objects.filter(kind=AuditEntry.KIND_ACCOUNT, subject_id=user_id, action="signed_in")
    return list(entries.order_by("-id")[:limit])


def always_allow_grants(*, workspace_id: str, limit: int = 50) -> list[AuditEntry]:
    """Decisions made through the console that let an agent act without asking."""
    return list(
        AuditEntry.objects.filter(
            workspace_id=workspace_id, kind=AuditEntry.KIND_DECISION, details__always=True, status__lt=300
        ).order_by("-id")[:limit]
    )


# A feed page's size: asked with `limit`, at most FEED_LIMIT_MOST (the page and the console's API).
FEED_LIMIT_DEFAULT = 500
FEED_LIMIT_MOST = 1000


class BadFeedCursor(ValueError):
    """A cursor this console did not hand out (or one cut short)."""


def feed_cursor(entry: AuditEntry) -> str:
    """Opaque to the reader: the (created, id) of the last entry it was given."""
    raw = f"{entry.created_at.isoformat()}|{entry.pk}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _feed_position(cursor: str) -> tuple[datetime, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        when, _, pk = raw.partition("|")
        at = datetime.fromisoformat(when)
        if at.tzinfo is None or not (pk.isascii() and pk.isdigit() and len(pk) <= 18):
            raise ValueError(raw)
        return at, int(pk)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadFeedCursor(cursor) from exc


def audit_entries_after(*, workspace_id: str, cursor: str, limit: int) -> tuple[list[AuditEntry], str]:
    """The workspace's trail oldest first, after `cursor` ("" from the start),
    at most `limit` entries, and the cursor to ask with next (the same one
    when nothing new was there: ask again later).

    Ordered by (created, id), one index range per page whatever its depth.
    Entries younger than AUDIT_FEED_SETTLE_SECONDS wait: a write's entry is
    stamped before its transaction commits, so one committing late could
    otherwise land behind a cursor already handed out and be lost.
    Raises BadFeedCursor for a cursor this console did not make."""
    entries = AuditEntry.objects.filter(_in_trail(workspace_id))
    settled = timezone.now() - timedelta(seconds=settings.AUDIT_FEED_SETTLE_SECONDS)
    entries = entries.filter(created_at__lte=settled)
    if cursor:
        at, pk = _feed_position(cursor)
        entries = entries.filter(Q(created_at__gt=at) | Q(created_at=at, id__gt=pk))
    rows = list(entries.order_by("created_at", "id")[:limit])
    return rows, (feed_cursor(rows[-1]) if rows else cursor)
