"""A refusal answered before sessions and the page frame (fair use, maintenance):
the console API's JSON body for /api/, the message box in #messages for an
htmx region (200: htmx swaps no 4xx or 5xx), else a page of its own in words
(200 to a boosted htmx navigation, which would not swap it), with the frame's
rules set by hand since the middleware that sets them has not run."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.template.loader import render_to_string

from dashboard.web.api_answers import api_error
from dashboard.web.htmx import is_htmx, is_partial, send_to

BOX = "errors/remote_error.html#remote_error"
MESSAGES_REGION = "#messages"


def early_refusal(
    request: HttpRequest,
    *,
    status: int,
    code: str,
    kind: str,
    title: str,
    message: str,
    page_template: str,
    page_context: dict[str, Any],
    retry_after: int | None = None,
) -> HttpResponseBase:
    response: HttpResponseBase
    if request.path.startswith("/api/"):
        response = api_error(status, code, message)
    elif is_partial(request):
        box = {"kind": kind, "title": title, "message": message, "retry": "request", "retry_helps": True}
        if retry_after is not None:
            box["retry_after"] = retry_after
        response = HttpResponse(render_to_string(BOX, {"remote_error": box}))
        send_to(response, MESSAGES_REGION, "innerHTML show:top")
    else:
        context = {"title": title, "message": message, **page_context}
        response = HttpResponse(render_to_string(page_template, context), status=200 if is_htmx(request) else status)
        response["X-Frame-Options"] = "DENY"
        response["Content-Security-Policy"] = "default-src 'none'; style-src 'self'; img-src 'self' data:"
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    response["Cache-Control"] = "no-store"
    return response
