"""Console permissions on views: a person without one gets a page that says
who may do this and names their role (status 403), never a bare "Forbidden".

Two guards, used by every area:

- `requires_write(explanation)`: the view changes the workspace. Refused when
  the console role may not write (Viewer, Auditor) or, failing that, when the
  service's role for the active key may only read (`request.workspace`'s
  `console_may_write` and `key_may_write`: the same two answers behind
  `can_write`, which hides the write buttons). The refusal names which role
  stands in the way: the console's (ask an administrator, People page) or the
  workspace's (the area's `explanation`: ask a workspace admin).
- `requires_permission(permission, explanation)`: the view needs one
  permission of the console roles (`dashboard/people/roles.py`).

Each guard marks the view it wraps (`GUARDS_ATTRIBUTE`, read by
`view_guards`), so a test can walk every URL of the console and find a view
that takes a POST without a guard (tests/people/test_role_matrix.py): a
new write address cannot be forgotten.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import wraps
from typing import TYPE_CHECKING, Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from dashboard.people.backends import role_label
from dashboard.web.htmx import is_partial

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest, Workspace

# The attribute a guard sets on the view it wraps: a frozenset of what it
# needs, "write" (`WRITE_GUARD`) or a permission's name ("audit.view_audit_trail").
# functools.wraps copies it outwards through every later decorator.
GUARDS_ATTRIBUTE = "console_guards"
WRITE_GUARD = "write"

# What a person whose console role only reads is told, in every area alike
# (the area's own explanation is about the workspace's role, not this one).
ASK_FOR_WRITE = "Ask an administrator to give you a role that writes, such as Member (People page)."


def view_guards(view: Callable[..., Any]) -> frozenset[str]:
    """What the guards around `view` need, read through its whole
    `__wrapped__` chain (a decorator that copies no attributes hides none)."""
    found: set[str] = set()
    seen = 0
    current: Any = view
    while current is not None and seen < 50:
        found.update(getattr(current, GUARDS_ATTRIBUTE, ()))
        current = getattr(current, "__wrapped__", None)
        seen += 1
    return frozenset(found)


def _mark(wrapped: Callable[..., Any], guard: str) -> None:
    setattr(wrapped, GUARDS_ATTRIBUTE, view_guards(wrapped) | {guard})


def forbidden(request: HttpRequest, explanation: str) -> HttpResponse:
    """The "you may not" page, or its message box for a partial request (status
    200 there, since htmx 2 swaps nothing on a 403)."""
    context = {"explanation": explanation}
    if is_partial(request):
        return render(request, "errors/forbidden.html#forbidden", context)
    return render(request, "errors/forbidden.html", context, status=403)


def refuse(request: HttpRequest, message: str) -> HttpResponse:
    """The one refusal: `{"ok": false, "message"}` (403) for a script that
    asked for JSON (the board's moves), else `forbidden`."""
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"ok": False, "message": message}, status=403)
    return forbidden(request, message)


def write_refusal(workspace: Workspace, explanation: str) -> str:
    """Why this person may not write here ("" when they may). The console role
    is asked first: an Auditor with an admin key is told about the console
    role, which is what an administrator can change for them."""
    if not workspace.console_may_write:
        return f"Your console role ({workspace.console_role}) can only read. {ASK_FOR_WRITE}"
    if not workspace.key_may_write:
        return f"Your role in this workspace ({workspace.member_role}) can only read. {explanation}"
    return ""


def permission_refusal(request: HttpRequest, explanation: str) -> str:
    """What a person without a role's permission is told: their role, then who may."""
    return f"Your console role is {role_label(request.user)}. {explanation}"


def requires_permission(permission: str, explanation: str) -> Callable:
    """For a view that needs one permission of the console roles
    (`dashboard.people.roles`: DECIDE_APPROVALS, VIEW_AUDIT_TRAIL, MANAGE_PEOPLE...):
    refused before the view runs, naming the person's role, then
    `explanation` (who may, and whom to ask)."""

    def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            if not request.user.has_perm(permission):
                return refuse(request, permission_refusal(request, explanation))
            return view(request, *args, **kwargs)

        _mark(wrapped, permission)
        return wrapped

    return decorator


def requires_write(explanation: str, *, methods: Iterable[str] | None = None) -> Callable:
    """For a view that writes to the workspace: a person who may only read
    (`write_refusal`) is refused before anything is read or typed (the service
    would refuse only after the form is sent), on the same "you may not" page.
    `explanation` says what needs a workspace role that writes and whom to ask.
    `methods` limits the guard to those methods, for one address whose GET
    only reads and whose POST writes (a Content App's page and its run)."""
    guarded = frozenset(method.upper() for method in methods) if methods is not None else None

    def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def wrapped(request: ConsoleRequest, *args: Any, **kwargs: Any) -> Any:
            if guarded is None or request.method in guarded:
                message = write_refusal(request.workspace, explanation)
                if message:
                    return refuse(request, message)
            return view(request, *args, **kwargs)

        _mark(wrapped, WRITE_GUARD)
        return wrapped

    return decorator
