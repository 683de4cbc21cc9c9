"""The server error page with the request id, so a person can quote it and
whoever runs the console finds the error's log lines (and Sentry event) by it."""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse, HttpResponseServerError
from django.template import loader

from dashboard.observability.context import current_request_id

logger = logging.getLogger("dashboard.errors")


def server_error(request: HttpRequest) -> HttpResponse:
    """`handler500`: Django's own, plus the request id. Like Django's, it
    renders 500.html with no request and no context processors (the page must
    not fail itself), and falls back to plain text if even that fails."""
    try:
        body = loader.get_template("500.html").render({"request_id": current_request_id()})
    except Exception:
        logger.exception("the server error page could not be rendered")
        return HttpResponseServerError("<h1>Server Error (500)</h1>", content_type="text/html")
    return HttpResponseServerError(body)
