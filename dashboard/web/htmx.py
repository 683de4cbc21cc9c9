"""How the console answers htmx: partial detection, regions, client
redirects, stop polling. Thin over django-htmx's own helpers.

Every HX-* header an answer carries is set here (tests/layout/test_one_home.py):
an event for the page is `trigger_client_event`, which adds to the events
already on the answer instead of overwriting them.

One rule for "is this a partial request?": an htmx request that swaps a
region. Boosted navigations and history restores swap the whole body, so
they get the whole page, like a request without JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import HTMX_STOP_POLLING, HttpResponseClientRedirect, retarget, trigger_client_event

__all__ = [
    "HTMX_STOP_POLLING",
    "client_redirect",
    "is_htmx",
    "is_partial",
    "next_url",
    "poll_unchanged",
    "render_region",
    "send_to",
    "stop_polling",
    "trigger_client_event",
]


def is_htmx(request: HttpRequest) -> bool:
    """Any request made by htmx (a region swap, a boosted link, a history restore)."""
    htmx = getattr(request, "htmx", None)
    if htmx is not None:
        return bool(htmx)
    # Before HtmxMiddleware ran (an error raised in an earlier middleware).
    return request.headers.get("HX-Request") == "true"


def is_partial(request: HttpRequest) -> bool:
    """An htmx request that swaps one region: it gets that region only."""
    if not is_htmx(request):
        return False
    return not (
        request.headers.get("HX-Boosted") == "true" or request.headers.get("HX-History-Restore-Request") == "true"
    )


def render_region(
    request: HttpRequest, template: str, region: str, context: dict[str, Any] | None = None, *, status: int = 200
) -> HttpResponse:
    """The page, or only its inline partial `region` for a partial request
    (one template per page; regions are `page.html#region`)."""
    name = f"{template}#{region}" if is_partial(request) else template
    return render(request, name, context, status=status)


def client_redirect(request: HttpRequest, url: str) -> HttpResponseBase:
    """Go to `url` after a write: `HX-Redirect` (status 200, so htmx 2 acts
    on it) for htmx, a plain 302 otherwise."""
    if is_htmx(request):
        return HttpResponseClientRedirect(url)
    return HttpResponseRedirect(url)


def send_to(response: HttpResponse, target: str, swap: str = "innerHTML") -> HttpResponse:
    """Swap this answer into `target` (a CSS selector) instead of the
    request's own target: a message box beside a form keeps what was typed.
    `swap` may carry modifiers ("innerHTML show:top"), which django-htmx's
    `reswap` does not type, so the header is set here."""
    retarget(response, target)
    response["HX-Reswap"] = swap
    return response


def stop_polling(response: HttpResponse, *, final: bool) -> HttpResponse:
    """A polled region in its final state answers 286: htmx swaps it and
    stops polling."""
    if final:
        response.status_code = HTMX_STOP_POLLING
    return response


def poll_unchanged(request: HttpRequest, current_version: Callable[[], str]) -> HttpResponse | None:
    """A polled region carries, in its poll URL (`v`), the version it shows.
    When that is still `current_version()` (asked only when a version was
    shown), the answer is 204 with no body: htmx swaps nothing and keeps
    polling, and nothing was rendered. None means "changed, or no version
    shown: render the region"."""
    shown = request.GET.get("v")
    if shown and shown == current_version():
        return HttpResponse(status=204)
    return None


Row = TypeVar("Row", bound=Model)


def poll_row(
    request: HttpRequest, rows: QuerySet[Row], version: Callable[[Row | None], str], *, missing: str
) -> HttpResponse | Row:
    """What a poll of one row finds: 204 while the version its region shows
    is still the row's (one query), else the row (none of `rows`: 404, saying
    `missing`)."""
    unchanged = poll_unchanged(request, lambda: version(rows.first()))
    if unchanged is not None:
        return unchanged
    row = rows.first()
    if row is None:
        raise Http404(missing)
    return row


def next_url(request: HttpRequest, fallback: str) -> str:
    """Where a form asked to go back to (`next`), if it is a path on this
    site. Only a path: `redirect()` would take a bare word for a view name,
    and a control character cannot go into a Location header."""
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if (
        candidate.startswith("/")
        and not any(ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in candidate)
        and url_has_allowed_host_and_scheme(
            candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
    ):
        return candidate
    return fallback
