"""The console API's one error body (`/api/`): a code, the reason in words and
the request id, whichever layer refuses (the token, the key gate, a role,
the service). Pages answer in HTML; this is the JSON twin of that plumbing."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from dashboard.observability.context import current_request_id


def is_api_request(request: HttpRequest) -> bool:
    """A request a personal access token authenticated (dashboard/tokens/middleware.py)."""
    return getattr(request, "access_token", None) is not None


def api_error(status: int, code: str, message: str, *, request_id: str = "", **headers: str) -> JsonResponse:
    response = JsonResponse(
        {"error": {"code": code, "message": message, "request_id": request_id or current_request_id() or ""}},
        status=status,
    )
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response
