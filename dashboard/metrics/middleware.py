"""Request latency and status by view.

Installed (settings, just inside WhiteNoise, so static files are not
counted) only when METRICS_ENABLED: a console without metrics runs none of
it. Per request: two clock reads, one counter and one histogram write (an
mmap write each in multiprocess mode); no query, no lock held across the
view. The view label is the URL pattern's name as `reverse()` knows it
(`objects:records`), never the path: ids stay out of the labels, and a path
nothing matched is `unmatched`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

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
