"""The theme control in the header (templates/base.html): light, dark or the
device's. A plain form post and a redirect back to the page it was on, so it
works without JavaScript, and the next page is rendered with the new
`data-theme` on `<html>` (no flash of the other theme). Posted by htmx, the
answer is an event (`consoleTheme`, HX-Trigger) that static/js/console.js
applies to the page in hand: no page load, so nothing typed on it is lost.
Any role may set it: it is a personal preference, not a workspace write (the
role matrix lists it with that reason)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from dashboard.frame.key_gate import works_without_key
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.models import Theme
from dashboard.people.services import person_theme_set
from dashboard.web.htmx import client_redirect, is_htmx, next_url, trigger_client_event


@works_without_key
@require_POST
def theme_set(request: ConsoleRequest) -> HttpResponseBase:
    back = next_url(request, reverse("home"))
    theme = request.POST.get("theme", "")
    if theme not in Theme.values:
        # Only a forged or stale form sends another word: say so where they were, change nothing.
        messages.error(request, gettext("Choose a theme: System, Light or Dark."))
        return client_redirect(request, back)
    person_theme_set(user=request.user, theme=theme)
    label = str(Theme(theme).label)
    if is_htmx(request):
        # Nothing to swap (hx-swap="none"): theme.js sets what the server would have rendered.
        response = HttpResponse()
        trigger_client_event(response, "consoleTheme", {"theme": theme, "label": label})
        return response
    # Said in the status region of the next page, so the change is announced, not only seen.
    messages.success(request, gettext("Theme: %(theme)s.") % {"theme": label})
    return client_redirect(request, back)
