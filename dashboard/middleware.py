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
    """Sends `Permissions-Policy` (settings.PERMISSIONS_POLICY) on every page.

    Django has no setting for it. The console uses none of these browser
    features, so a page (or a script injected despite the CSP, or a frame of
    remote content) can never ask for the camera, the microphone, the
    location, payments or USB devices, and the page is opted out of
    interest-based advertising cohorts. The header is built once, at start.
    It sits just inside WhiteNoise: a static file is no document, and the
    header (about 300 bytes) would ride on each of a page's dozen files.
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


# Headers that apply to a document only: on a script, a style sheet or an
# icon they do nothing but ride along (about 60 bytes each, on every file).
PAGE_ONLY_HEADERS = ("Cross-Origin-Opener-Policy", "Referrer-Policy", "Permissions-Policy", "Content-Security-Policy")


class StaticFileHeadersMiddleware:
    """Takes the page-only headers off static files (STATIC_URL).

    Just outside SecurityMiddleware, which adds Cross-Origin-Opener-Policy
    and Referrer-Policy to every response; a static file keeps what is its
    own: X-Content-Type-Options: nosniff, HSTS, its caching headers (the
    ETag; Last-Modified goes, a second validator of the same file) and
    X-Request-Id. (Permissions-Policy and the CSP are added inside WhiteNoise,
    so a static file never has them; they are listed to keep it so.)
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.static_prefix = settings.STATIC_URL or "/static/"

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if request.path.startswith(self.static_prefix):
            for name in PAGE_ONLY_HEADERS:
                if name in response.headers:
                    del response.headers[name]
            # WhiteNoise sends both validators; a browser revalidates with the
            # ETag (If-None-Match) first, so Last-Modified only rides along.
            if "ETag" in response.headers and "Last-Modified" in response.headers:
                del response.headers["Last-Modified"]
        return response
