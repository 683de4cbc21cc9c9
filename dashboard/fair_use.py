"""Fair use: no one session or address takes the console's pages from everyone else.

`FairUseMiddleware` counts every request (static files never get here) in
the shared cache, per session and per address, in fixed windows of
FAIR_USE_WINDOW_SECONDS (dashboard/accounts/throttle.py's `throttle_hit`),
in one of three buckets by the view the address resolves to:

- a **poll** (a view marked `@background_request`: status regions, the
  header's count) counts leniently, in its own bucket; past its allowance it
  answers 204 with Retry-After: htmx swaps nothing and keeps polling, so a
  poll slows down and never shows a page of error;
- a **costly** request (a view marked `@costly_request`: the palette, a
  records or library search, a records picker, exports, a Studio ZIP, a
  password posted at login) counts in a tighter bucket;
- every other request is a **page view** (404s included: a scanner's
  guesses count).

Past an allowance the answer says so in words, with when to retry: a page
(status 429, Retry-After, a Retry link), or for an htmx region request the
console's message box in `#messages` (status 200, as every htmx error box:
htmx 2 swaps no 4xx, and a silent non-swap looks like nothing happened),
which counts Retry-After down and retries once by itself
(static/js/retry.js); the region the person was looking at stays as it was.

A session also has at most PAGES_AT_ONCE_PER_SESSION requests in flight
(polls aside): a person's page is one document and the swaps they ask for
come one at a time, so a person never meets it, and a scanner's 32 parallel
requests hold at most that many of the server's threads; the rest are
refused at once (Retry-After: 1).

It sits just inside GZipMiddleware, before sessions and authentication, and
resolves the address itself: a refused request costs two cache increments
and a small template, no database query. The session is the session
cookie's value (hashed: cache keys never hold it), so a request that sends
none, or a new one each time, is counted by its address only, where the
allowance covers a team of 50 behind one address.

The defaults (settings.py) are far above what a person does: a page view
a second for ten seconds on end, several tabs polling, a palette typed into
at speed. They bound a scanner or a runaway script to a few pages a second.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, overload

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.urls import Resolver404, resolve

from dashboard.accounts.lockout import client_address
from dashboard.accounts.throttle import count_one, throttle_hit
from dashboard.web.early_refusals import early_refusal

View = TypeVar("View", bound=Callable)

PAGE = "page"
COSTLY = "costly"
POLL = "poll"

# What the words call each bucket's requests.
_NOUNS = {PAGE: "pages", COSTLY: "searches and exports", POLL: "updates"}

# Answered whatever the traffic: probes and the metrics scrape come from
# inside (a load balancer, Prometheus) and must never be refused for load.
EXEMPT_VIEWS = frozenset({"healthz", "livez", "readyz", "metrics", "metrics_state"})

PAGE_TEMPLATE = "errors/slow_down.html"


@overload
def costly_request(view: View) -> View: ...


@overload
def costly_request(*, when: str) -> Callable[[View], View]: ...


def costly_request(view: View | None = None, *, when: str | None = None) -> View | Callable[[View], View]:
    """Mark a view whose request costs far more than a page (remote searches,
    exports): it counts against the tighter allowance. With `when`, only a
    request whose query (or form) names a non-empty `when` parameter is
    costly (a list is a page; the same list searched is a search)."""

    def mark(func: View) -> View:
        func.console_costly = when or True  # type: ignore[attr-defined]
        return func

    return mark(view) if view is not None else mark


def _costly(view: Callable, request: HttpRequest) -> bool:
    mark = getattr(view, "console_costly", None)
    if mark is True:
        return True
    if isinstance(mark, str):
        return bool((request.GET.get(mark) or request.POST.get(mark) or "").strip())
    return False


def bucket_of(request: HttpRequest) -> str | None:
    """The bucket this request counts in, or None when it is never counted."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return PAGE
    if match.view_name in EXEMPT_VIEWS:
        return None
    if getattr(match.func, "console_background", False) is True:
        return POLL
    return COSTLY if _costly(match.func, request) else PAGE


@dataclass(frozen=True)
class Allowance:
    per_session: int
    per_address: int


def allowance(bucket: str) -> Allowance:
    if bucket == POLL:
        return Allowance(settings.POLLS_PER_SESSION, settings.POLLS_PER_ADDRESS)
    if bucket == COSTLY:
        return Allowance(settings.COSTLY_REQUESTS_PER_SESSION, settings.COSTLY_REQUESTS_PER_ADDRESS)
    return Allowance(settings.PAGE_VIEWS_PER_SESSION, settings.PAGE_VIEWS_PER_ADDRESS)


@dataclass(frozen=True)
class Refusal:
    bucket: str
    by: str  # "session", "address", or "at once" (the session's pages in flight)
    limit: int
    retry_after: int


def session_ident(request: HttpRequest) -> str:
    cookie = request.COOKIES.get(settings.SESSION_COOKIE_NAME, "")
    return hashlib.sha256(cookie.encode()).hexdigest()[:32] if cookie else ""


def token_ident(request: HttpRequest) -> str:
    """A console API request's personal access token, as a bucket's name: the
    hash of the whole token presented (no query; a made-up token counts in a
    bucket of its own, never in the real one's)."""
    if not request.path.startswith("/api/"):
        return ""
    scheme, _, presented = str(request.headers.get("Authorization") or "").partition(" ")
    presented = presented.strip()
    if scheme.lower() != "bearer" or not presented.startswith("wsc_"):
        return ""
    return hashlib.sha256(presented.encode()).hexdigest()[:32]


def fair_use_check(request: HttpRequest, bucket: str) -> Refusal | None:
    """Count this request; a Refusal when its session's or its address's
    allowance for the window is spent (the session's is counted first: one
    person's burst does not spend the address's allowance of the others)."""
    window = settings.FAIR_USE_WINDOW_SECONDS
    limits = allowance(bucket)
    token = token_ident(request)
    if token:
        # A script's token has a browser session's allowance: one runaway loop is refused, not everyone.
        wait = throttle_hit(scope=f"fair:{bucket}:token", ident=token, limit=limits.per_session, window_seconds=window)
        if wait is not None:
            return Refusal(bucket=bucket, by="token", limit=limits.per_session, retry_after=wait)
    session = session_ident(request)
    if session:
        wait = throttle_hit(
            scope=f"fair:{bucket}:session", ident=session, limit=limits.per_session, window_seconds=window
        )
        if wait is not None:
            return Refusal(bucket=bucket, by="session", limit=limits.per_session, retry_after=wait)
    address = client_address(request)
    wait = throttle_hit(scope=f"fair:{bucket}:address", ident=address, limit=limits.per_address, window_seconds=window)
    if wait is not None:
        return Refusal(bucket=bucket, by="address", limit=limits.per_address, retry_after=wait)
    return None


def _seconds(value: float) -> str:
    value = round(value)
    return f"{value} second{'' if value == 1 else 's'}"


def refusal_words(refusal: Refusal) -> tuple[str, str]:
    """The title and the message of a refusal."""
    window = _seconds(settings.FAIR_USE_WINDOW_SECONDS)
    noun = _NOUNS[refusal.bucket]
    title = "Too many searches or exports at once" if refusal.bucket == COSTLY else "Too many pages at once"
    if refusal.by == "at once":
        asked = f"this browser session has more than {refusal.limit} {noun} loading at once"
    else:
        who = {
            "session": "this browser session asked for",
            "token": "this access token asked for",
        }.get(refusal.by, "the people and programs at your network address asked for")
        asked = f"{who} more than {refusal.limit} {noun} within {window}"
    message = f"The console shares its time fairly, and {asked}. Nothing is lost: try again in {_seconds(refusal.retry_after)}."
    return title, message


def refusal_response(request: HttpRequest, refusal: Refusal) -> HttpResponseBase:
    """A poll: 204 (nothing swapped, it keeps polling, slower). An htmx region:
    the message box in #messages (200, htmx swaps no 4xx) counting down to its
    one retry by itself. Else the page in words, status 429 (200 to a boosted
    htmx navigation, which would not swap a 429)."""
    response: HttpResponseBase
    if refusal.bucket == POLL and not request.path.startswith("/api/"):
        response = HttpResponse(status=204)
        response["Retry-After"] = str(refusal.retry_after)
        response["Cache-Control"] = "no-store"
    else:
        title, message = refusal_words(refusal)
        response = early_refusal(
            request,
            status=429,
            code="rate_limited",
            kind="rate_limited",
            title=title,
            message=message,
            page_template=PAGE_TEMPLATE,
            page_context={
                "retry_url": request.get_full_path() if request.method == "GET" else "",
                "posted": request.method not in ("GET", "HEAD"),
                "retry_after": refusal.retry_after,
            },
            retry_after=refusal.retry_after,
        )
    response.fair_use_refused = refusal  # type: ignore[attr-defined]
    return response


# How long an in-flight count outlives its last change: a process killed
# mid-request cannot hold a session's slots for longer than this.
_IN_FLIGHT_SECONDS = 120


def _in_flight_key(session: str) -> str:
    return f"fair:in-flight:{session}"


def in_flight_enter(session: str) -> bool:
    """Take one of the session's PAGES_AT_ONCE_PER_SESSION slots; False when all are taken."""
    count = count_one(_in_flight_key(session), timeout=_IN_FLIGHT_SECONDS)
    if count <= settings.PAGES_AT_ONCE_PER_SESSION:
        return True
    in_flight_leave(session)
    return False


def in_flight_leave(session: str) -> None:
    with contextlib.suppress(ValueError):  # expired meanwhile: nothing to give back
        cache.decr(_in_flight_key(session))


class FairUseMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not settings.FAIR_USE_ENABLED:
            return self.get_response(request)
        bucket = bucket_of(request)
        if bucket is None:
            return self.get_response(request)
        refusal = fair_use_check(request, bucket)
        if refusal is not None:
            return refusal_response(request, refusal)
        session = session_ident(request) if bucket != POLL else ""
        if not session:
            return self.get_response(request)
        # A person has a page or two in flight; a scanner's 32 parallel
        # requests would hold 32 of the server's threads.
        if not in_flight_enter(session):
            return refusal_response(
                request, Refusal(bucket=bucket, by="at once", limit=settings.PAGES_AT_ONCE_PER_SESSION, retry_after=1)
            )
        try:
            return self.get_response(request)
        finally:
            in_flight_leave(session)
