"""Cost before the click: what Content App runs cost, from what the console
recorded of them (the `credits_charged` their answers carried).

The contract gives no price of any operation ("The price in credits of each
operation: not shown"), so nothing here is a price: it is what the last runs
of the same app were charged, said as "about", and what the console's own
runs used this month. Runs sent past the console (another tool, the raw key)
are not counted, and the page says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, tzinfo
from statistics import median
from typing import Any

from django.db.models import Q, Sum
from django.utils import timezone

from studio.models import AppRun

LAST_RUNS = 5


@dataclass(frozen=True)
class AppCosts:
    """The cost line of one app's form."""

    last: list[int]  # the charges of this app's last runs that said one, newest first
    month_mine: int
    month_workspace: int
    month_start: datetime  # the first moment of this month in the workspace's time zone

    @property
    def since(self) -> date:
        """The month's first day as the workspace counts it (a date: no zone to shift it)."""
        return self.month_start.date()

    @property
    def about(self) -> int | None:
        """What a run of this app cost lately (the median of the last charges)."""
        return round(median(self.last)) if self.last else None

    @property
    def varies(self) -> bool:
        return len(set(self.last)) > 1


def charged_of(answer: Any) -> int | None:
    """The credits an answer says were charged, read tolerantly: a
    non-negative whole number, or nothing (absent, a string, a bool)."""
    value = answer.get("credits_charged") if isinstance(answer, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or value < 0 or value > 10**9:  # NaN, negative or absurd: not a charge
        return None
    return round(value)


def month_start(*, now: datetime, zone: tzinfo) -> datetime:
    local = timezone.localtime(now, zone)
    return local.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def app_costs(*, workspace_id: str, user_id: int, studio: str, app: str, zone: tzinfo) -> AppCosts:
    """Two queries whatever the number of runs: the last charges of this app
    in the workspace, and this month's totals (the person's and everyone's)."""
    runs = AppRun.objects.filter(owner_key__workspace_id=workspace_id, credits_charged__isnull=False)
    last = list(
        runs.filter(studio=studio, app=app)
        .order_by("-created_at", "-id")
        .values_list("credits_charged", flat=True)[:LAST_RUNS]
    )
    start = month_start(now=timezone.now(), zone=zone)
    totals = runs.filter(created_at__gte=start).aggregate(
        workspace=Sum("credits_charged"), mine=Sum("credits_charged", filter=Q(started_by_id=user_id))
    )
    return AppCosts(
        last=[int(value) for value in last if value is not None],
        month_mine=int(totals["mine"] or 0),
        month_workspace=int(totals["workspace"] or 0),
        month_start=start,
    )
