"""Why a session ended, said on the login page it lands on.

Deactivating a person ends their sessions from the outside
(`services.sessions_end`): each session loses its login and keeps the
reason. The open tab's next request is anonymous; this middleware turns
the reason into a message before LoginRequiredMiddleware sends the tab to
the login page (an htmx request gets `HX-Redirect` there), where it shows.
Sits just before LoginRequiredMiddleware, like the session limits, which
say why the same way."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponseBase

from dashboard.people.services import SIGNED_OUT_REASON
from dashboard.web.htmx import is_htmx


class SignedOutNoticeMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs) -> None:
        # Only a session that was ended carries the reason; an authenticated
        # request never does (logging in again starts from the ended session,
        # whose reason is read here first).
        if request.user.is_authenticated:
            return None
        if is_htmx(request):
            # Its answer becomes an HX-Redirect made anew (HtmxLoginRedirectMiddleware),
            # which carries no message cookie: the reason waits in the session for
            # the login page the browser then loads.
            return None
        reason = request.session.pop(SIGNED_OUT_REASON, None)
        if reason:
            messages.info(request, str(reason))
        return None
