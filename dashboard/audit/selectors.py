"""Reads of the audit trail (the console's own database only)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time

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


def always_allow_grants(*, workspace_id: str, limit: int = 50) -> list[AuditEntry]:
    """Decisions made through the console that let an agent act without asking."""
    return list(
        AuditEntry.objects.filter(
            workspace_id=workspace_id, kind=AuditEntry.KIND_DECISION, details__always=True, status__lt=300
        ).order_by("-id")[:limit]
    )
