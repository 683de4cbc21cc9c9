"""Who may write: a read-only member (`request.workspace.can_write`) is
never offered a write, and a write address reached anyway says why before
anything is typed (the service would refuse it only after submitting)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def refuse_read_only(request: HttpRequest) -> HttpResponse | None:
    """A read-only member is never offered a write; a write address reached
    anyway says so in words before anything is typed (the service would refuse)."""
    if request.workspace.can_write:
        return None
    return render(
        request,
        "objects/read_only.html",
        {"role": request.workspace.member_role},
        status=403,
    )
