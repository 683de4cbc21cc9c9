"""The calendar of an object's records by a date or datetime field: a
month at a time, previous and next month as links (htmx swaps the month in
place, keeping the address), the records of each day as links."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import render_region
from dashboard.web.params import bounded_int
from objects import looks
from objects.calendar import MAX_PAGE_BUDGET, PAGE_BUDGET, month_of, month_records, shift_month
from objects.records import look_context


@require_GET
def calendar(request: ConsoleRequest, object_key: str) -> HttpResponse:
    workspace = request.workspace
    context = look_context(
        workspace=workspace, user=request.user, object_key=object_key, query=request.GET, kind=looks.CALENDAR
    )
    by, base = context["by"], context["base_pairs"]
    today = timezone.now().astimezone(workspace.zone).date()
    first = month_of(request.GET.get("month"), today=today)

    def month_url(month) -> str:
        return f"{request.path}?{urlencode([*base, ('month', f'{month:%Y-%m}')])}"

    month = None
    if by is not None:
        month = month_records(
            client=workspace.client,
            object_key=object_key,
            definition=context["definition"],
            by=by,
            first=first,
            today=today,
            zone=workspace.zone,
            filters=context["service_filter"],
            search=context["record_filter"].search,
            budget=bounded_int(request.GET.get("budget"), default=PAGE_BUDGET, lowest=1, highest=MAX_PAGE_BUDGET),
        )
    context.update(
        month=month,
        first=first,
        previous_url=month_url(shift_month(first, -1)),
        next_url=month_url(shift_month(first, 1)),
        today_url=month_url(today),
        further_url=(month_url(first) + f"&budget={month.further_budget}") if month and month.further_budget else "",
        save_query=urlencode(base),
    )
    return render_region(request, "objects/calendar.html", "calendar-month", context)
