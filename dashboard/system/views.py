"""Readiness for machines (/livez, /readyz) and the System status page for
console administrators."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from dashboard.accounts.middleware import background_request
from dashboard.frame.key_gate import works_without_key
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.health import OK, readiness_report
from dashboard.maintenance import maintenance_state
from dashboard.people.roles import VIEW_SYSTEM_STATUS
from dashboard.system.selectors import system_status
from dashboard.system.service_probe import probe_wanted_mark, service_probe_fresh, service_probe_last
from dashboard.web.htmx import poll_unchanged, render_region

WHO_MAY = "The System status page is for console administrators. Ask an administrator if you need to see it."


@background_request  # a probe, never a person's activity
@login_not_required
@require_GET
def livez(request: HttpRequest) -> HttpResponse:
    """The process answers: nothing else is asked (no database, no broker), so
    a container is restarted only when it is itself stuck."""
    response = JsonResponse({"status": OK})
    response["Cache-Control"] = "no-store"
    return response


@background_request
@login_not_required
@require_GET
def readyz(request: HttpRequest) -> HttpResponse:
    """Database, broker, cache, beat, a worker and the poller's backlog as
    JSON: 200 when every part works, 503 naming those that don't."""
    maintenance = maintenance_state()
    if maintenance is not None:
        # Not ready on purpose, and nothing else asked: the database may be mid-restore.
        why = {"why": maintenance.why, "words": maintenance.words, "since": maintenance.since}
        response = JsonResponse({"status": "maintenance", "maintenance": why}, status=503)
        response["Cache-Control"] = "no-store"
        return response
    report = readiness_report()
    response = JsonResponse(report.as_dict(), status=200 if report.ready else 503)
    response["Cache-Control"] = "no-store"
    return response


@works_without_key
@require_GET
@requires_permission(VIEW_SYSTEM_STATUS, WHO_MAY)
def status(request: ConsoleRequest) -> HttpResponse:
    probe_wanted_mark()
    # The full page may measure the service (at most every 15 s); its poll only reads.
    state = system_status(probe=service_probe_fresh())
    return render_region(request, "system/status.html", "status", {"status": state})


@works_without_key
@background_request
@never_cache
@require_GET
@requires_permission(VIEW_SYSTEM_STATUS, WHO_MAY)
def status_live(request: ConsoleRequest) -> HttpResponse:
    """The status region, polled every 5 s: 204 while what it shows is
    unchanged. Reads the database, the cache and the broker; never the service
    (a worker keeps its probe fresh while the page is open)."""
    probe_wanted_mark()
    # The version is a hash of the words shown, so the parts are read either way;
    # what an unchanged answer saves is the render and the bytes.
    state = system_status(probe=service_probe_last())
    unchanged = poll_unchanged(request, lambda: state.version)
    if unchanged is not None:
        return unchanged
    return render_region(request, "system/status.html", "status", {"status": state})
