"""Session limits and private pages.

`SessionLimitsMiddleware` ends a session after SESSION_IDLE_MINUTES without
a request from the person, and SESSION_MAX_HOURS after login whatever
happens. The live status regions poll every 2 s by themselves: those polls
(views marked `@background_request`) are not activity, or an open tab would
keep a session alive for ever. So an unattended page is logged out once its
idle time is over: its next poll gets `HX-Redirect` to the login page
(dashboard.middleware.HtmxLoginRedirectMiddleware), which says why.

`PrivatePagesMiddleware` marks every answer to a logged-in person
`Cache-Control: private, no-store`: no shared cache keeps it, and the back
button after logging out does not show it again. Static files never get
here (WhiteNoise answers them first).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import patch_cache_control

from dashboard.people.services import session_seen
from dashboard.web.api_answers import is_api_request

LOGIN_AT = "console_login_at"
SEEN_AT = "console_seen_at"
# Activity is written to the session at most this often: saving it on every
# page view would be a database write per request.
SEEN_RESOLUTION_SECONDS = 60


def background_request(view: Callable) -> Callable:
    """Mark a view the page calls by itself (a status poll): it keeps no session alive."""
    view.console_background = True  # type: ignore[attr-defined]
    return view


def is_background(view: Callable) -> bool:
    """Whether `view` is marked `@background_request` (also asked by the
    test that finds every polled URL in the templates)."""
    return getattr(view, "console_background", False) is True


def session_login_mark(sender, request: HttpRequest, user, **kwargs) -> None:
    """user_logged_in receiver: the clock of the absolute limit starts here."""
    now = time.time()
    request.session[LOGIN_AT] = now
    request.session[SEEN_AT] = now


def _plural(value: float, unit: str) -> str:
    value = round(value, 1)
    shown = int(value) if value == int(value) else value
    return f"{shown} {unit}{'' if shown == 1 else 's'}"


class SessionLimitsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs) -> None:
        if not request.user.is_authenticated or is_api_request(request):
            return None  # a token's request has no session: its limits are the token's
        session = request.session
        now = time.time()
        # A session from before these limits starts its clocks now.
        login_at = session.setdefault(LOGIN_AT, now)
        seen_at = session.setdefault(SEEN_AT, now)
        if now - login_at > settings.SESSION_MAX_HOURS * 3600:
            reason = f"Your session ended: a login lasts {_plural(settings.SESSION_MAX_HOURS, 'hour')}. Log in again."
        elif now - seen_at > settings.SESSION_IDLE_MINUTES * 60:
            reason = (
                f"You were logged out after {_plural(settings.SESSION_IDLE_MINUTES, 'minute')} "
                "without activity. Log in again."
            )
        else:
            if not is_background(view_func) and now - seen_at >= SEEN_RESOLUTION_SECONDS:
                session[SEEN_AT] = now
                # The same once-a-minute write tells the person's sessions list when this one was last seen.
                session_seen(session_key=session.session_key)
            return None
        logout(request)
        messages.info(request, reason)
        # Now anonymous: LoginRequiredMiddleware (next) sends the person to the login page.
        return None


class PrivatePagesMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        # A response already marked no-store (error pages, revealed secrets) is
        # stored by no cache at all: nothing to add.
        # Nor is a public one (the JavaScript catalog: the same for everyone).
        cache_control = response.get("Cache-Control", "")
        if request.user.is_authenticated and "no-store" not in cache_control and "public" not in cache_control:
            patch_cache_control(response, private=True, no_store=True)
        return response
