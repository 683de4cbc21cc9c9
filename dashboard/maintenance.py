"""Maintenance mode: a flag in the shared cache that every web process reads
once per request (one cache read, no query), set by `manage.py maintenance
on|off` and by `manage.py backup` / `restore` for as long as they run.

While it is on, writes are refused in words (503: a page saying nothing was
received and what was typed is still in the form; for htmx the message box
in #messages, so the form stays as typed), pages say so in a notice, and
`/readyz` answers 503 `"maintenance"` with why while `/livez` stays up. A
restore closes pages too (`closed`): the database they would read is being
replaced. The probes and static files are never held.

The flag lives in the cache (Redis in production) because the database may
be the thing being restored; a cache that cannot be read means "not on"
(logged), so an outage of the cache never closes the console."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponseBase
from django.utils import timezone

from dashboard.web.early_refusals import early_refusal

logger = logging.getLogger("dashboard.maintenance")

CACHE_KEY = "console:maintenance"
PAGE_TEMPLATE = "errors/maintenance.html"
# Always answered: the probes say why themselves (/readyz) or must stay up (/livez).
HELD_NEVER = ("/livez", "/readyz", "/healthz")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
# What each command's maintenance is called on pages and in /readyz.
WHY_WORDS = {
    "backup": "a backup is being made",
    "restore": "a backup is being restored",
    "upgrade": "the console is being upgraded",
}


@dataclass(frozen=True)
class Maintenance:
    why: str  # "backup", "restore", "upgrade", or an operator's own words
    since: str  # ISO 8601, UTC
    closed: bool = False  # pages too, not only writes

    @property
    def words(self) -> str:
        return WHY_WORDS.get(self.why, self.why)


def maintenance_state() -> Maintenance | None:
    try:
        value = cache.get(CACHE_KEY)
    except Exception:  # the cache down: never a reason to close the console
        logger.warning("maintenance: the flag could not be read", exc_info=True)
        return None
    if not isinstance(value, dict):
        return None
    try:
        return Maintenance(**value)
    except TypeError:
        return None


def maintenance_begin(*, why: str, closed: bool = False) -> Maintenance:
    state = Maintenance(why=why[:200], since=timezone.now().isoformat(timespec="seconds"), closed=closed)
    cache.set(CACHE_KEY, asdict(state), timeout=None)
    logger.warning("maintenance on: %s", state.words)
    return state


def maintenance_end() -> None:
    cache.delete(CACHE_KEY)
    logger.warning("maintenance off")


def _refusal(request: HttpRequest, state: Maintenance) -> HttpResponseBase:
    title = "The console is under maintenance"
    writes = request.method not in SAFE_METHODS
    message = f"The console is under maintenance: {state.words}. " + (
        "Nothing was changed: send it again in a few minutes." if writes else "Try again in a few minutes."
    )
    response = early_refusal(
        request,
        status=503,
        code="maintenance",
        kind="maintenance",
        title=title,
        message=message,
        page_template=PAGE_TEMPLATE,
        page_context={"posted": writes, "retry_url": request.get_full_path() if not writes else ""},
        retry_after=60,
    )
    # On purpose, not an error: the request's own line (dashboard.request) is enough, no ERROR per refusal.
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


class MaintenanceMiddleware:
    """Before sessions and authentication: a refused request costs no query
    (the database may be mid-restore). `request.maintenance` is the state for
    the page's notice (templates/base.html)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self.static_url = settings.STATIC_URL or "/static/"

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        path = request.path
        if path.startswith(HELD_NEVER) or path.startswith(self.static_url):
            return self.get_response(request)
        state = maintenance_state()
        request.maintenance = state  # type: ignore[attr-defined]
        if state is not None and (state.closed or request.method not in SAFE_METHODS):
            return _refusal(request, state)
        return self.get_response(request)
