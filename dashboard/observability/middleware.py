"""The request id at the web edge, and one log line per request.

`RequestIdMiddleware` sits first in MIDDLEWARE, so that everything after it
(the SSL redirect, WhiteNoise, sessions, the views, the tasks a view sends,
the service calls) runs with the id already current, and every response,
an error page or a static file included, carries it back as `X-Request-Id`.
The id is ours unless a proxy we trust sent one (`REQUEST_ID_HEADER`,
trusted when `TRUST_REQUEST_ID_HEADER`, by default when TRUSTED_PROXY_COUNT >
0): then the proxy's access log, ours and the service's share it. A browser
talking to the console directly could put anything there (or the same id on
every request), so without a proxy in front the header is ignored; an id of
a shape we do not accept (`context.REQUEST_ID_PATTERN`) is replaced too.

The request's log line (logger `dashboard.request`) is written here as well,
once the response is back: view, method, path (never the query: it may carry
search text), status, duration, client address and user. Static files are
left out: WhiteNoise serves them without any view, and a page's dozen
assets would bury the line that matters. It replaces gunicorn's access log
(off in gunicorn.conf.py), which could not say the view, the user or the id.
For a streamed response (a CSV export, events), the duration is the time to
the first byte.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from dashboard.accounts.lockout import client_address
from dashboard.observability.context import bind, new_request_id, set_user_id, valid_request_id

request_logger = logging.getLogger("dashboard.request")

RESPONSE_HEADER = "X-Request-Id"


def _header_meta_key(header: str) -> str:
    return "HTTP_" + header.upper().replace("-", "_")


class RequestIdMiddleware:
    """First in MIDDLEWARE: the request id current for the whole request, on
    the response, and the request's one log line."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        # Read once: settings do not change while a process serves.
        self.trusted_header = (
            _header_meta_key(settings.REQUEST_ID_HEADER)
            if settings.TRUST_REQUEST_ID_HEADER and settings.REQUEST_ID_HEADER
            else None
        )
        self.static_prefix = settings.STATIC_URL or "/static/"

    def request_id_of(self, request: HttpRequest) -> str:
        if self.trusted_header is not None:
            taken = valid_request_id(request.META.get(self.trusted_header))
            if taken is not None:
                return taken
        return new_request_id()

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        request_id = self.request_id_of(request)
        # Views and templates may read it (the 500 page, a support hint).
        request.request_id = request_id  # type: ignore[attr-defined]
        bound = bind(request_id)
        try:
            response = self.get_response(request)
            response[RESPONSE_HEADER] = request_id
            if not request.path.startswith(self.static_prefix):
                self.log(request, response, duration_ms=(time.perf_counter() - started) * 1000)
            return response
        finally:
            bound.reset()

    def log(self, request: HttpRequest, response: HttpResponseBase, *, duration_ms: float) -> None:
        match = getattr(request, "resolver_match", None)
        view = match.view_name if match is not None else ""
        status = response.status_code
        path = request.path
        request_logger.log(
            logging.WARNING if status >= 500 else logging.INFO,
            "%s %s %s %s %.1fms",
            request.method,
            path,
            status,
            view or "-",
            duration_ms,
            extra={
                "view": view,
                "method": request.method,
                "path": path,
                "status": status,
                "duration_ms": round(duration_ms, 1),
                "client": client_address(request),
            },
        )


class RequestUserMiddleware:
    """Just after AuthenticationMiddleware: the person's id on every log line
    of the request (and on its request line). The session and user it reads
    are the ones the session limits and the login check read next anyway."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            set_user_id(user.pk)
        return self.get_response(request)
