"""Middleware of the console's own that is not about remote errors."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.shortcuts import resolve_url

from dashboard.web.htmx import client_redirect, is_htmx


class HtmxLoginRedirectMiddleware:
    """An htmx request from an expired session gets `HX-Redirect` to the login page.

    Without it, LoginRequiredMiddleware's 302 is followed by the browser's XHR
    and htmx swaps the login page into whatever region asked (a status poll, a
    table). The login page then comes back to the page the person was on
    (`HX-Current-URL`), not to the partial's address.
    Sits just outside LoginRequiredMiddleware.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if not is_htmx(request) or response.status_code != 302:
            return response
        login_path = resolve_url(settings.LOGIN_URL)
        if not response["Location"].split("?", 1)[0].endswith(login_path):
            return response
        page = request.headers.get("HX-Current-URL") or request.get_full_path()
        return client_redirect(request, f"{login_path}?{urlencode({'next': page})}")


class PermissionsPolicyMiddleware:
    """Sends `Permissions-Policy` (settings.PERMISSIONS_POLICY) on every response.

    Django has no setting for it. The console uses none of these browser
    features, so a page (or a script injected despite the CSP, or a frame of
    remote content) can never ask for the camera, the microphone, the
    location, payments or USB devices, and the page is opted out of
    interest-based advertising cohorts. The header is built once, at start.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.header = ", ".join(
            f"{feature}=({' '.join(allowed)})" for feature, allowed in settings.PERMISSIONS_POLICY.items()
        )

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if self.header:
            response.headers.setdefault("Permissions-Policy", self.header)
        return response
