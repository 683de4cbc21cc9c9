from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from dashboard.live import selectors
from dashboard.web.htmx import poll_unchanged, stop_polling


@never_cache
@require_GET
def status(request: HttpRequest, pk: int) -> HttpResponse:
    """The live status region, polled by the browser every 2 s. Renders from the
    database row alone: zero remote calls however many people watch.

    The poll URL carries the version the page shows (`v`): while it is current
    the answer is 204 from one query on the row's primary key, nothing
    rendered. A final row is never answered 204: its last render comes with
    286, which stops the polling."""
    unchanged = poll_unchanged(request, lambda: selectors.operation_status_version(user=request.user, operation_id=pk))
    if unchanged is not None:
        return unchanged
    op = selectors.operation_for_viewer(user=request.user, operation_id=pk)
    live = selectors.operation_view(op=op, request=request)
    region = "status_row" if request.GET.get("view") == "row" else "status"
    response = render(request, f"live/operation.html#{region}", {"op": op, "live": live})
    return stop_polling(response, final=op.is_final)


@require_GET
def detail(request: HttpRequest, pk: int) -> HttpResponse:
    op = selectors.operation_for_viewer(user=request.user, operation_id=pk)
    live = selectors.operation_view(op=op, request=request)
    return render(request, "live/operation.html", {"op": op, "live": live})


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    """Everything this user started that the console follows, newest first."""
    operations = selectors.operation_views_for_user(user=request.user)
    return render(request, "live/index.html", {"operations": operations})
