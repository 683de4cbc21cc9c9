"""Web Push's pages: subscribing this browser from the Notifications page
(the page's script asks the browser, then posts an ordinary form),
unsubscribing a device (a plain form: works without JavaScript), and what
the browser fetches without signing in: the service worker at the site's
root scope (`/sw.js`) and the web app manifest."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.templatetags.static import static
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.devices import device_of
from dashboard.reach import services
from dashboard.reach.forms import PushSubscribeForm
from dashboard.reach.models import PushSubscription
from dashboard.reach.push import push_configured

# The console's own colours (static/css/console.css: --color-primary-fill, --color-bg).
THEME_COLOUR = "#3346c9"
BACKGROUND_COLOUR = "#f6f7f9"


@require_POST
def push_subscribe(request: ConsoleRequest) -> HttpResponseBase:
    """This browser, subscribed by the page's script (the browser's own permission prompt first)."""
    if not push_configured():
        messages.error(request, gettext("Push notifications are not set up on this console: ask its operator."))
        return redirect("reach:preferences")
    form = PushSubscribeForm(request.POST)
    if not form.is_valid():
        messages.error(
            request, gettext("This browser's subscription could not be read: reload the page and try again.")
        )
        return redirect("reach:preferences")
    device = device_of(request.headers.get("User-Agent", ""))
    services.push_subscribe(user=request.user, device=device, **form.cleaned_data)
    messages.success(request, gettext("Push notifications are on for %(device)s.") % {"device": device})
    return redirect("reach:preferences")


@require_POST
def push_unsubscribe(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """One of one's own devices hears nothing more."""
    subscription = get_object_or_404(PushSubscription, pk=pk, user=request.user)
    services.push_unsubscribe(subscription=subscription)
    messages.success(request, gettext("Push notifications are off for %(device)s.") % {"device": subscription.device})
    return redirect("reach:preferences")


@lru_cache(maxsize=1)
def _worker_source() -> bytes:
    return (settings.BASE_DIR / "static" / "js" / "sw.js").read_bytes()


@login_not_required
@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """static/js/sw.js from the site's root, so its scope is the whole console."""
    response = HttpResponse(_worker_source(), content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"  # a new worker is picked up on the next visit
    return response


@login_not_required
@require_GET
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest: the console installed on a phone's home screen."""
    body = {
        "name": "Workspace Console",
        "short_name": "Console",
        "description": "Approvals, runs and the workspace's data, and the notifications that need you.",
        "start_url": "/inbox/",
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "icons": [
            {"src": static("icons/console-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("icons/console-512.png"), "sizes": "512x512", "type": "image/png"},
            {"src": static("icons/console.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    response = JsonResponse(body, content_type="application/manifest+json")
    response["Cache-Control"] = "public, max-age=3600"
    return response
