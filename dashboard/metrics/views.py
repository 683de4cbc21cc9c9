"""GET /metrics and GET /metrics/state: Prometheus' text format, for a scraper
holding the token or calling from an allowed address (dashboard/metrics/access.py).

/metrics is this web's processes (scrape every web); /metrics/state is the
console's state read from the database (scrape it once, through one target:
scrape.py says why).

It takes a plain HttpRequest: the metrics sit below the frame (they import
nothing of it) and read neither the workspace nor the session.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from dashboard.accounts.lockout import client_address
from dashboard.metrics.access import decide
from dashboard.metrics.scrape import CONTENT_TYPE, scrape_processes, scrape_state

REFUSALS = {401: "A bearer token is needed to read the metrics.", 403: "Not allowed to read the metrics."}


@login_not_required
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    return _answer(request, scrape_processes)


@login_not_required
@require_GET
def metrics_state(request: HttpRequest) -> HttpResponse:
    return _answer(request, scrape_state)


def _answer(request: HttpRequest, read: Callable[[], bytes]) -> HttpResponse:
    decision = decide(authorization=request.headers.get("Authorization", ""), address=client_address(request))
    if decision.status == 404:
        # Off: as if there were no such address (the console's own 404 page).
        raise Http404("metrics are off")
    if not decision.allowed:
        # Plain words, never a page: a browser that wanders here learns nothing more.
        response = HttpResponse(REFUSALS[decision.status], status=decision.status, content_type="text/plain")
        if decision.status == 401:
            response["WWW-Authenticate"] = 'Bearer realm="metrics"'
    else:
        response = HttpResponse(read(), content_type=CONTENT_TYPE)
    response["Cache-Control"] = "no-store"
    return response
