from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from dashboard.accounts.middleware import background_request
from dashboard.health import health_report


@background_request  # retried by the page itself (console.js) while the console is unreachable
@login_not_required
@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """Database and broker status as JSON: 200 when both answer, 503 otherwise."""
    report = health_report()
    response = JsonResponse(report.as_dict(), status=200 if report.healthy else 503)
    response["Cache-Control"] = "no-store"
    return response
