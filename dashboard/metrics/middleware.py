"""Request latency and status by view.

Installed (settings, just inside WhiteNoise, so static files are not
counted) only when METRICS_ENABLED: a console without metrics runs none of
it. Per request: two clock reads, one counter and one histogram write (an
mmap write each in multiprocess mode); no query, no lock held across the
view. The view label is the URL pattern's name as `reverse()` knows it
(`objects:records`), never the path: ids stay out of the labels, and a path
nothing matched is `unmatched`.

It also answers the scrapes themselves (`/metrics`, `/metrics/state`) when
the token is set, before Django checks the Host header: Prometheus scrapes
each replica by its address (`dns_sd_configs`, a pod's IP), which no
ALLOWED_HOSTS lists, and the answer names no host. Only with the token: what
ALLOWED_HOSTS guards against here is a page whose DNS points a browser
inside an allowed network at the console (an allow-list alone would let it
read), and such a page cannot know the token. Scrapes are not counted
(one every 15 s per scraper is not traffic).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from dashboard.metrics.registry import UNMATCHED_VIEW, request_observed


def view_label(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return UNMATCHED_VIEW
    # view_name is "namespace:name", or the view's dotted path for an unnamed pattern (also bounded).
    return match.view_name or UNMATCHED_VIEW


class MetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        scrape = _scrape_view(request.path_info)
        if scrape is not None and settings.METRICS_TOKEN:
            return scrape(request)
        started = time.perf_counter()
        response = self.get_response(request)
        # A streamed answer (CSV export) is measured to its first byte: the
        # middleware cannot see the body end without wrapping every stream.
        request_observed(
            view=view_label(request),
            method=request.method or "",
            status=response.status_code,
            seconds=time.perf_counter() - started,
        )
        return response


def _scrape_view(path: str) -> Callable[[HttpRequest], HttpResponseBase] | None:
    if path not in ("/metrics", "/metrics/state"):
        return None
    from dashboard.metrics import views

    return views.metrics if path == "/metrics" else views.metrics_state
