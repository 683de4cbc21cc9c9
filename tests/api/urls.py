"""Test-only URLs: views that fail the way real views do, in front of the
console's own URLs (so the error page renders inside the real layout)."""

from django.http import HttpResponse
from django.template import engines
from django.urls import include, path

from dashboard.api import ServiceClient, errors
from dashboard.frame.remote_errors import render_remote_error
from tests.api.support import API_KEY

REMOTE_ERRORS = {
    "401": lambda: errors.AuthenticationError(
        f"key {API_KEY} revoked", status=401, type="authentication", request_id="req_401"
    ),
    "402": lambda: errors.InsufficientCreditsError(
        "no credits", status=402, type="insufficient_credits", request_id="req_402"
    ),
    "403": lambda: errors.PermissionDeniedError("readonly key", status=403, type="permission", request_id="req_403"),
    "404": lambda: errors.NotFoundError("no such agent", status=404, type="not_found", request_id="req_404"),
    "409": lambda: errors.ConflictError("approval already decided", status=409, type="conflict", request_id="req_409"),
    "429": lambda: errors.RateLimitedError(
        "slow down", status=429, type="rate_limited", request_id="req_429", retry_after=29.2
    ),
    "500": lambda: errors.ServerError("boom", status=500, type="server_error", request_id="req_500"),
    "503": lambda: errors.ServerError(
        "The service answered 503 Service Unavailable.", status=503, request_id="req_503"
    ),
    "connection": lambda: errors.ApiConnectionError(request_id="req_connection"),
    "timeout": lambda: errors.ApiTimeoutError(request_id="req_timeout"),
    "stream": lambda: errors.StreamError("The agent failed to answer.", request_id="req_stream"),
}


def raise_remote_error(request, kind):
    raise REMOTE_ERRORS[kind]()


def call_the_service(request):
    data = ServiceClient(API_KEY).get("/v1/me")
    return HttpResponse(f"hello {data['workspace']['name']}")


def place_the_error_itself(request):
    try:
        ServiceClient(API_KEY).get("/v1/me")
    except errors.ApiError as exc:
        return render_remote_error(request, exc)
    return HttpResponse("unexpected")


def raise_no_active_key(request):
    from dashboard.keys.errors import NoActiveKeyError

    raise NoActiveKeyError()


def raise_something_else(request):
    raise RuntimeError("not a remote error")


# A page like the area pages: a table row with an htmx action targeting the
# row itself, and an htmx form targeting itself (browser test).
ROW_PAGE = """{% extends "base.html" %}{% block title %}Leads{% endblock %}{% block content %}
<table class="table"><tbody>
  <tr id="lead-row"><td>Ada Lovelace</td><td>
    <button class="btn btn-danger" hx-post="/test-remote-error/500/" hx-target="#lead-row" hx-swap="outerHTML">Delete</button>
  </td></tr>
</tbody></table>
<form id="note-form" method="post" action="/test-remote-error/402/" hx-post="/test-remote-error/402/" hx-target="this" hx-swap="outerHTML">{% csrf_token %}
  <div class="form-field"><label for="note">Note</label><input id="note" name="note"></div>
  <button class="btn btn-primary" type="submit">Save note</button>
</form>
{% endblock %}"""


def row_page(request):
    return HttpResponse(engines["django"].from_string(ROW_PAGE).render({}, request))


# A region that the service rate-limits once (Retry-After: 1 s), then answers.
RATE_LIMITED_ONCE = {"calls": 0}
REGION_PAGE = """{% extends "base.html" %}{% block title %}Leads{% endblock %}{% block content %}
<h1>Leads</h1>
<section id="leads-region"><p>Ada Lovelace (last loaded)</p></section>
<button class="btn" hx-get="/test-region/" hx-target="#leads-region" hx-swap="innerHTML">Refresh</button>
{% endblock %}"""


# An image without a text alternative: a critical axe violation (tests/api/test_axe_browser.py).
INACCESSIBLE_PAGE = """{% extends "base.html" %}{% block title %}Logo{% endblock %}{% block content %}
<h1>Logo</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="40" height="40">
{% endblock %}"""


def inaccessible_page(request):
    return HttpResponse(engines["django"].from_string(INACCESSIBLE_PAGE).render({}, request))


def region_page(request):
    RATE_LIMITED_ONCE["calls"] = 0
    return HttpResponse(engines["django"].from_string(REGION_PAGE).render({}, request))


def rate_limited_once_region(request):
    RATE_LIMITED_ONCE["calls"] += 1
    if RATE_LIMITED_ONCE["calls"] == 1:
        raise errors.RateLimitedError("slow down", status=429, request_id="req_429_once", retry_after=1)
    return HttpResponse("<p>Grace Hopper (fresh)</p>")


urlpatterns = [
    path("test-row-page/", row_page),
    path("test-region-page/", region_page),
    path("test-inaccessible-page/", inaccessible_page),
    path("test-region/", rate_limited_once_region),
    path("test-remote-error/<str:kind>/", raise_remote_error),
    path("test-remote-call/", call_the_service),
    path("test-remote-call-placed/", place_the_error_itself),
    path("test-no-key/", raise_no_active_key),
    path("test-other-error/", raise_something_else),
    path("", include("dashboard.urls")),
]
