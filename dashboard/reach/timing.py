"""When a notification goes out: the person's time zone, quiet hours and
digest cadence (pure rules over a preference and a clock; no query)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings

from dashboard.reach.models import Cadence, NotificationPreference


def zone_of(preference: NotificationPreference) -> ZoneInfo:
    try:
        return ZoneInfo(preference.time_zone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _in_quiet_hours(local: time, start: time, end: time) -> bool:
    if start == end:
        return False
    if start < end:
        return start <= local < end
    return local >= start or local < end  # over midnight (22:00 to 07:00)


def _next_local(after: datetime, at: time, zone: ZoneInfo) -> datetime:
    """The next moment (after `after`) the person's clock shows `at`."""
    local = after.astimezone(zone)
    candidate = datetime.combine(local.date(), at, tzinfo=zone)
    if candidate <= local:
        candidate = datetime.combine(local.date() + timedelta(days=1), at, tzinfo=zone)
    return candidate.astimezone(ZoneInfo("UTC"))


def when_to_send(preference: NotificationPreference, *, now: datetime, digest: bool) -> tuple[datetime, str]:
    """When a new notification goes out, and what deferred it ("" at once):
    a digest waits for the next hour (or the day's digest hour), then quiet
    hours in the person's time zone push it to their end."""
    zone = zone_of(preference)
    due, deferred_by = now, ""
    if digest and preference.cadence == Cadence.HOURLY:
        due, deferred_by = (now + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0), "digest"
    elif digest and preference.cadence == Cadence.DAILY:
        due, deferred_by = _next_local(now, time(int(settings.REACH_DAILY_DIGEST_HOUR)), zone), "digest"
    start, end = preference.quiet_from, preference.quiet_until
    if start is not None and end is not None and _in_quiet_hours(due.astimezone(zone).time(), start, end):
        due, deferred_by = _next_local(due, end, zone), "quiet hours"
    return due, deferred_by
