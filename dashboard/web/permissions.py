"""Console permissions on views: a person without one gets a page that says
who may do this (status 403), never a bare "Forbidden"."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from dashboard.web.htmx import is_partial


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
