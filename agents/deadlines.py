"""Deadlines of approvals: how long a person has to decide one, by its risk
(settings.APPROVAL_DEADLINE_MINUTES), overridden per agent and risk by an
Administrator (`ApprovalDeadline`). An approval's deadline is its request
time plus that; past it, it is overdue: the inbox item carries `due_at`, and
the core escalates it once (dashboard/reach)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from agents.models import ApprovalDeadline

RISKS = ("write", "send", "spend", "destructive")
# The overrides are dropped from the cache when changed; this bounds a missed drop.
OVERRIDES_KEPT_SECONDS = 600


def default_minutes(risk: str) -> int | None:
    value = dict(settings.APPROVAL_DEADLINE_MINUTES).get(risk)
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _cache_key(workspace_id: str) -> str:
    # Workspace ids are the service's: hashed, so any id makes a valid cache key.
    return "agents:deadlines:" + hashlib.blake2s(workspace_id.encode(), digest_size=12).hexdigest()


def deadline_overrides(*, workspace_id: str) -> dict[tuple[str, str], int]:
    """(agent id, risk) -> minutes, the workspace's overrides: one query, then
    kept in the shared cache until an Administrator changes one (every page
    and inbox item with an approval reads them)."""
    cached = cache.get(_cache_key(workspace_id))
    if cached is None:
        cached = [
            [agent_id, risk, minutes]
            for agent_id, risk, minutes in ApprovalDeadline.objects.filter(workspace_id=workspace_id).values_list(
                "agent_id", "risk", "minutes"
            )
        ]
        cache.set(_cache_key(workspace_id), cached, timeout=OVERRIDES_KEPT_SECONDS)
    return {(agent_id, risk): minutes for agent_id, risk, minutes in cached}


def approval_due_at(
    *, requested_at: datetime | None, agent_id: str, risk: str, overrides: dict[tuple[str, str], int]
) -> datetime | None:
    """When the approval should be decided by, or None (no time, no deadline)."""
    if requested_at is None:
        return None
    minutes = overrides.get((agent_id, risk), default_minutes(risk))
    return requested_at + timedelta(minutes=minutes) if minutes else None


@dataclass(frozen=True)
class TimeLeft:
    """What the "time left / overdue" badge says."""

    overdue: bool
    words: str
    due_at: datetime


def _span(seconds: float) -> str:
    minutes = max(1, int(seconds // 60))
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{hours // 24} days"


def time_left(due_at: datetime | None, *, now: datetime | None = None) -> TimeLeft | None:
    if due_at is None:
        return None
    seconds = (due_at - (now or timezone.now())).total_seconds()
    if seconds < 0:
        return TimeLeft(True, f"Overdue by {_span(-seconds)}", due_at)
    return TimeLeft(False, f"{_span(seconds)} left", due_at)


def deadline_set(*, workspace_id: str, agent_id: str, agent_name: str, risk: str, minutes: int | None, user) -> None:
    """An override set (minutes) or removed (None: back to the default)."""
    if minutes is None:
        ApprovalDeadline.objects.filter(workspace_id=workspace_id, agent_id=agent_id, risk=risk).delete()
    else:
        ApprovalDeadline.objects.update_or_create(
            workspace_id=workspace_id,
            agent_id=agent_id,
            risk=risk,
            defaults={"minutes": minutes, "agent_name": agent_name[:200], "set_by": user},
        )
    cache.delete(_cache_key(workspace_id))
