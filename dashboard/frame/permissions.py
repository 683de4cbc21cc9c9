"""Console permissions on views: a person without one gets a page that says
who may do this (status 403), never a bare "Forbidden"."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from dashboard.web.htmx import is_partial

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest


def forbidden(request: HttpRequest, explanation: str) -> HttpResponse:
    """The "you may not" page, or its message box for a partial request (status
    200 there, since htmx 2 swaps nothing on a 403)."""
    context = {"explanation": explanation}
    if is_partial(request):
        return render(request, "errors/forbidden.html#forbidden", context)
    return render(request, "errors/forbidden.html", context, status=403)


def requires_permission(permission: str, explanation: str) -> Callable:
    def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            if not request.user.has_perm(permission):
                return forbidden(request, explanation)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


def requires_write(explanation: str) -> Callable:
    """For a view that writes to the workspace: a member whose role may only
    read (`request.workspace.can_write`) is refused before anything is typed
    (the service would refuse only after the form is sent), on the same "you
    may not" page, naming their role, then `explanation` (what needs a member
    who may write, and who to ask). A request that asked for JSON (a script's
    fetch) gets `{"ok": false, "message": ...}` with status 403."""

    def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def wrapped(request: ConsoleRequest, *args: Any, **kwargs: Any) -> Any:
            if request.workspace.can_write:
                return view(request, *args, **kwargs)
            message = f"Your role in this workspace ({request.workspace.member_role}) can only read. {explanation}"
            if "application/json" in request.headers.get("Accept", ""):
                return JsonResponse({"ok": False, "message": message}, status=403)
            return forbidden(request, message)

        return wrapped

    return decorator
