"""Who a request to the console's API (`/api/`) acts as: the person of the
personal access token it presents (`Authorization: Bearer wsc_...`), in the
token's workspace. No session and no cookie: a token request never makes or
touches a session, and needs no CSRF token (nothing a browser sends by itself).

Sits just before LoginRequiredMiddleware: the session's limits (idle, maximum
age) are the browser's and do not apply; every page guard after it (the
workspace, the key gate, roles, the write guard) does, as for a page."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase

from dashboard.observability.context import acting_via, acting_via_reset, set_user_id
from dashboard.tokens.services import TokenRefused, token_authenticate
from dashboard.web.api_answers import api_error

API_PREFIX = "/api/"


def client_address(request: HttpRequest) -> str:
    # REMOTE_ADDR as the proxy set it (gunicorn's forwarded_allow_ips decides whom to trust).
    return str(request.META.get("REMOTE_ADDR") or "")


class AccessTokenMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not request.path.startswith(API_PREFIX) or request.path.startswith(f"{API_PREFIX}v1/docs"):
            return self.get_response(request)
        if request.path == f"{API_PREFIX}v1/openapi.json":
            return self.get_response(request)  # the document is public: it says nothing of a workspace
        scheme, _, presented = str(request.headers.get("Authorization") or "").partition(" ")
        if scheme.lower() != "bearer" or not presented.strip():
            return api_error(
                401,
                "token_required",
                "Send a personal access token: Authorization: Bearer wsc_… (make one on your account page).",
                WWW_Authenticate='Bearer realm="console"',
            )
        try:
            token = token_authenticate(presented=presented.strip(), address=client_address(request))
        except TokenRefused as refused:
            return api_error(401, "token_refused", str(refused), WWW_Authenticate='Bearer error="invalid_token"')
        request.user = token.user
        request.access_token = token  # type: ignore[attr-defined]
        request._dont_enforce_csrf_checks = True  # type: ignore[attr-defined]
        set_user_id(token.user_id)
        via = acting_via(f"token {token.name}")
        try:
            return self.get_response(request)
        finally:
            acting_via_reset(via)
