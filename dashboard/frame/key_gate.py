"""The key gate: access follows the key, on every page.

Data the console keeps for a workspace (conversations, approvals, runs, the
audit trail) is shown only to someone holding a working key of it.
`KeyGateMiddleware` (after `WorkspaceMiddleware`) holds the rule for every
view a signed-in person opens, except those that say they work without one:

- `@works_without_key` marks such a view (the key settings, to check it or
  add another; signing out; one's own second factor; People and the System
  page, the console's own accounts and health; the palette, which then finds
  only the console's pages). A view anyone may open signed out
  (`@login_not_required`: signing in, a share link's page, the probes) works
  without a key by definition. Nothing else is let through: the gate reads
  the view, never a URL's name or namespace, so an area naming a view like
  another area's changes nothing (tests/layout/test_key_gate.py).
- Before the view: a refused key gets the refusal page (the 401 box, the
  refusal's request id, the way to API keys). A key last checked more than
  KEY_RECHECK_SECONDS ago is asked again first (`GET /v1/me`, one call per
  person per interval, dashboard/keys/recheck.py): a page must block on it,
  since what it renders is exactly the kept data; a revoked key sees the
  refusal from the first page after the interval, fresh login or not.
- After the view: a 401 to any call made with the person's key during the
  request (the transport's refused-key hook, seen here through a context
  variable that the palette's threads share) replaces whatever the view
  rendered with the refusal, in that same request. A view that caught the
  error and went on to render the kept conversation shows nothing of it.
- A poll (`@background_request`) keeps its unchanged path free: a 204 costs
  no query and no call here. Only a changed answer (200, 286) is held to the
  rule: a refused key, or one whose check is due and is refused when asked
  (the poll asks then, in the background of the page), gets the quiet box in
  `#messages` with 286, which stops the polling.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from dashboard.accounts.middleware import is_background
from dashboard.api.attempts import separate_read_budget
from dashboard.api.hooks import KeyRefusal, on_key_refused
from dashboard.frame.remote_errors import render_key_refused
from dashboard.frame.workspace import Workspace
from dashboard.keys.errors import KeyRefusedError
from dashboard.keys.recheck import api_key_recheck
from dashboard.keys.services import api_key_refused
from dashboard.web.api_answers import api_error, is_api_request

# The attribute `works_without_key` sets on the view it marks.
KEYLESS_ATTRIBUTE = "console_works_without_key"
# The seconds a re-check may take out of a page's read budget: a service that
# hangs costs a page this much once, then the check waits its retry.
RECHECK_BUDGET_SECONDS = 3.0


def works_without_key(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a view that works whatever the person's key: the gate neither
    refuses nor re-checks it. It must show nothing a workspace's key guards
    (or read it through `request.workspace.working_id`, which is "" then)."""
    setattr(view, KEYLESS_ATTRIBUTE, True)
    return view


def works_without_a_key(view: Callable[..., Any]) -> bool:
    """Whether `view` is marked `works_without_key`, or open to anyone signed
    out (`login_not_required`), anywhere in its `__wrapped__` chain."""
    current: Any = view
    for _ in range(50):
        if current is None:
            break
        if getattr(current, KEYLESS_ATTRIBUTE, False) is True or getattr(current, "login_required", True) is False:
            return True
        current = getattr(current, "__wrapped__", None)
    return False


def keyless_urls(urls: Any) -> Any:
    """Mark every view of a URL set the console does not write (the admin
    site's `admin.site.urls`, a library's include) as working without a key;
    returns the set as given. The admin is the console's own accounts and
    keys, for its staff whatever their key."""
    from django.urls import URLPattern, URLResolver

    patterns = urls[0] if isinstance(urls, tuple) else urls
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            keyless_urls(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            # A bound method (the admin site's own pages) takes the mark on its function.
            works_without_key(getattr(pattern.callback, "__func__", pattern.callback))
    return urls


# The stored keys the service refused during the request being answered, by
# id, with the refusal's request id (None outside a request). A dict the
# middleware makes, so that the threads the palette copies the context into
# add to the same one.
_refused_here: contextvars.ContextVar[dict[int, str] | None] = contextvars.ContextVar("keys_refused_here", default=None)


def refusal_seen(refusal: KeyRefusal) -> None:
    """The transport's refused-key hook: note the key for the request in hand."""
    seen = _refused_here.get()
    if seen is not None:
        seen.setdefault(refusal.stored_key_id, refusal.request_id or "")


def refused_in_this_request(workspace: Workspace) -> bool:
    """Whether a call of the request in hand was answered 401 for the person's
    active key (then marked refused, `workspace.refused` reads it again):
    for a view marked `works_without_key` that showed some of the workspace
    before it knew (the palette answers again without it)."""
    seen = _refused_here.get()
    if not seen:
        return False  # the usual case: no query (an unchanged poll stays free)
    key = workspace.key
    if key is None or key.pk not in seen:
        return False
    key.refresh_from_db(fields=["refused_at", "refused_request_id"])
    if not key.is_refused:
        # The hook's mark was made in a thread (the palette's) whose write this
        # one cannot see yet, or failed: marked again here (idempotent).
        api_key_refused(KeyRefusal(stored_key_id=key.pk, request_id=seen[key.pk]))
        key.refresh_from_db(fields=["refused_at", "refused_request_id"])
    return True


def key_refused_response(request: HttpRequest, workspace: Workspace) -> HttpResponseBase:
    key = workspace.key
    if is_api_request(request):
        answer = api_error(
            403,
            "key_refused",
            "The service refuses your key of this workspace: the token acts through it, so it is refused too. "
            "Add a working key on the Keys page.",
            request_id=key.refused_request_id if key else "",
        )
        answer.key_refused = True  # type: ignore[attr-defined]  # as the refusal page is marked
        return answer
    return render_key_refused(request, KeyRefusedError(request_id=key.refused_request_id if key else ""))


def key_recheck(workspace: Workspace) -> bool:
    """Ask the service again about the person's active key when its check is
    due; whether it is refused now (False for no key: the view sends the
    person to add one). Read by the gate, and by a view marked
    `works_without_key` that still shows some of the workspace (the palette)."""
    key = workspace.key
    if key is None:
        return False
    if key.is_refused:
        return True
    with separate_read_budget(RECHECK_BUDGET_SECONDS):
        return api_key_recheck(key=key, every_seconds=settings.KEY_RECHECK_SECONDS).refused


def _gated(request: HttpRequest, view: Callable[..., Any] | None) -> bool:
    return view is not None and request.user.is_authenticated and not works_without_a_key(view)


class KeyGateMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        on_key_refused(refusal_seen)  # registering again is harmless

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        token = _refused_here.set({})
        try:
            return self._after_view(request, self.get_response(request))
        finally:
            _refused_here.reset(token)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs) -> HttpResponseBase | None:
        if is_background(view_func) or not _gated(request, view_func):
            return None
        workspace: Workspace = request.workspace  # type: ignore[attr-defined]
        if key_recheck(workspace):
            return key_refused_response(request, workspace)
        return None

    def _after_view(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        match = getattr(request, "resolver_match", None)
        if match is None or getattr(response, "key_refused", False) or not _gated(request, match.func):
            return response
        workspace: Workspace = request.workspace  # type: ignore[attr-defined]
        if refused_in_this_request(workspace):
            # A call of this request was answered 401: its refusal, never what the view made of the rest.
            return key_refused_response(request, workspace)
        if is_background(match.func) and response.status_code in (200, 286) and key_recheck(workspace):
            # A poll's changed answer (a 204 costs nothing here): dropped for the quiet box.
            return key_refused_response(request, workspace)
        return response
