"""Remote errors as pages people can act on.

`RemoteErrorMiddleware` catches what views let propagate: any `ApiError` from
the transport, and `NoActiveKeyError` from the keys app.

- A normal request gets the full page `errors/remote_error.html`, with a
  status that mirrors the remote one (401, 402, 403, 404, 409, 429...), 502
  when the service failed or could not be reached. DEBUG makes no difference:
  the middleware answers before Django's technical 500 page is considered.
- An htmx request gets only the message box (the inline partial
  `remote_error`) with status 200, because htmx 2 does not swap 4xx/5xx and a
  silent non-swap looks like nothing happened.
  Where it goes: the server cannot know what element the request targeted
  (a table row, a button, a form being edited...), and swapping a message
  box over a form would lose what the person typed. So the middleware always
  sends it to the page's `#messages` region (`HX-Retarget: #messages`,
  `HX-Reswap: innerHTML show:top`): visible, valid in any layout, and the
  form or row stays as it was. A view that wants the message somewhere else
  catches the error and calls `render_remote_error(request, exc)` itself,
  which renders the same box for the request's own target.
  Boosted navigations and history restores get the full page (status 200)
  since they swap the whole body.
- `NoActiveKeyError` redirects to the key settings page with a message
  (`HX-Redirect` for htmx).

Every message shows the request id when there is one; none shows a
traceback, a remote HTML page, or the API key.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import NoReverseMatch, reverse
from django.utils.http import url_has_allowed_host_and_scheme

from dashboard.api import errors
from dashboard.forms import place_remote_error
from dashboard.idempotency import renew_idempotency_key
from dashboard.logging import redact

logger = logging.getLogger("dashboard.errors")

TEMPLATE = "errors/remote_error.html"
PARTIAL = "errors/remote_error.html#remote_error"
MESSAGES_REGION = "#messages"

NO_KEY_MESSAGE = "Add an API key of your workspace to use the console."


@dataclass
class ErrorAction:
    label: str
    url: str


@dataclass
class RemoteErrorView:
    """What the message box shows."""

    kind: str
    title: str
    message: str
    page_status: int
    remote_message: str = ""
    request_id: str | None = None
    retry_after: int | None = None
    actions: list[ErrorAction] = field(default_factory=list)


# --------------------------------------------------------------------------
# Middleware


class RemoteErrorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, errors.ApiError):
            logger.warning(
                "remote error shown to the user: %s status=%s request_id=%s path=%s",
                type(exception).__name__,
                exception.status,
                exception.request_id,
                request.path,
            )
            return render_remote_error(request, exception, retarget=MESSAGES_REGION)
        if _is_no_active_key_error(exception):
            return redirect_to_key_settings(request, message=getattr(exception, "message", None))
        return None


def _is_no_active_key_error(exception: Exception) -> bool:
    # The keys app owns this exception; import lazily so this module never
    # depends on it being importable (or migrated) yet.
    try:
        from dashboard.keys.errors import NoActiveKeyError
    except ImportError:
        return type(exception).__name__ == "NoActiveKeyError"
    return isinstance(exception, NoActiveKeyError)


def redirect_to_key_settings(request: HttpRequest, *, message: str | None = None) -> HttpResponse:
    url = _reverse_or_none("keys:list") or _reverse_or_none("home") or "/"
    messages.info(request, message or NO_KEY_MESSAGE, fail_silently=True)
    if _is_htmx(request):
        response = HttpResponse(status=200)
        response["HX-Redirect"] = url
        return response
    return HttpResponseRedirect(url)


# --------------------------------------------------------------------------
# Rendering


def render_remote_error(request: HttpRequest, exc: errors.ApiError, *, retarget: str | None = None) -> HttpResponse:
    """The message box for `exc`: a full page for a normal request, the
    partial (status 200) for an htmx one. `retarget` (a CSS selector) sends
    the htmx partial to that region instead of the request's own target."""
    view = describe_remote_error(request, exc)
    context = {"remote_error": view}
    if _is_htmx(request) and not _wants_full_page(request):
        response = HttpResponse(render_to_string(PARTIAL, context, request=request), status=200)
        if retarget:
            response["HX-Retarget"] = retarget
            response["HX-Reswap"] = "innerHTML show:top"
    else:
        status = 200 if _is_htmx(request) else view.page_status
        try:
            response = render(request, TEMPLATE, context, status=status)
        except Exception:
            logger.exception("error page layout failed; answering with the bare message box")
            response = HttpResponse(render_to_string(PARTIAL, context, request=request), status=status)
    if view.retry_after is not None:
        response["Retry-After"] = str(view.retry_after)
    response["Cache-Control"] = "no-store"
    return response


# A view that sends a form catches these itself. Refusals of the values sent
# go on the form, and the corrected form is a new write (new key).
FORM_ERRORS = (errors.InvalidRequestError, errors.UnprocessableError, errors.ConflictError)
# Failures after which sending the same form again is a retry of the same
# write: the form keeps its key, so the service never does the work twice.
RETRY_SAME_WRITE = (errors.RateLimitedError, errors.ServerError, errors.ApiConnectionError)


def form_error_box(request: HttpRequest, form, exc: errors.ApiError) -> RemoteErrorView:
    """A remote error to show in a message box above the form, which keeps
    everything typed (never a full error page that loses the message). A
    retryable failure keeps the form's key (the retry is the same write);
    anything else renews it. `form` None: no form to renew."""
    if form is not None and not isinstance(exc, RETRY_SAME_WRITE):
        renew_idempotency_key(form)
    return describe_remote_error(request, exc)


def failed_write(request: HttpRequest, form, exc: errors.ApiError, *, conflict_message: str | None = None):
    """Where a failed write's error goes. A refusal of the values lands on the
    form (with a new key: the corrected form is a new write) and None is
    returned; any other error comes back as the box to show above the form."""
    if isinstance(exc, FORM_ERRORS):
        place_remote_error(form, exc, conflict_message=conflict_message)
        renew_idempotency_key(form)
        return None
    return form_error_box(request, form, exc)


def describe_remote_error(request: HttpRequest, exc: errors.ApiError) -> RemoteErrorView:
    request_id = redact(exc.request_id) if exc.request_id else None
    remote_message = _remote_message(exc)

    if isinstance(exc, errors.AuthenticationError):
        actions = _action("Add a new API key", _reverse_or_none("keys:list"))
        return RemoteErrorView(
            kind="authentication",
            title="The service refused your API key",
            message="The key may have been revoked or mistyped. Add a new key of your workspace to continue.",
            page_status=401,
            request_id=request_id,
            actions=actions,
        )
    if isinstance(exc, errors.InsufficientCreditsError):
        return RemoteErrorView(
            kind="insufficient_credits",
            title="Your workspace has run out of credits",
            message="Top up credits in the workspace's billing settings, then try again. Nothing was charged for this attempt.",
            page_status=402,
            request_id=request_id,
        )
    if isinstance(exc, errors.PermissionDeniedError):
        return RemoteErrorView(
            kind="permission",
            title="This API key may not do this",
            message="Ask a workspace admin for access, or use a key of a member who may.",
            page_status=403,
            remote_message=remote_message,
            request_id=request_id,
        )
    if isinstance(exc, errors.NotFoundError):
        back = _way_back(request)
        return RemoteErrorView(
            kind="not_found",
            title="Not found",
            message="It may have been deleted, or it belongs to another workspace.",
            page_status=404,
            remote_message=remote_message,
            request_id=request_id,
            actions=_action(back.label, back.url) if back else [],
        )
    if isinstance(exc, errors.ConflictError):
        return RemoteErrorView(
            kind="conflict",
            title="It changed meanwhile",
            message="Someone or something changed this while you were working. Reload it to see the current state, then try again.",
            page_status=409,
            remote_message=remote_message,
            request_id=request_id,
            actions=_action("Reload", _current_page(request)),
        )
    if isinstance(exc, errors.RateLimitedError):
        seconds = math.ceil(exc.retry_after) if exc.retry_after is not None else None
        wait = f"in {seconds} s" if seconds else "in a moment"
        return RemoteErrorView(
            kind="rate_limited",
            title="Too many requests",
            message=f"The service is busy with this workspace's requests. Try again {wait}.",
            page_status=429,
            request_id=request_id,
            retry_after=seconds,
        )
    if isinstance(exc, (errors.ServerError, errors.ApiConnectionError)):
        return RemoteErrorView(
            kind="unreachable",
            title="The service is unreachable right now",
            message="It failed to answer or could not be reached. Try again in a moment.",
            page_status=502,
            request_id=request_id,
        )
    if isinstance(exc, errors.StreamError):
        return RemoteErrorView(
            kind="stream",
            title="The operation failed",
            message=remote_message or "The service stopped the operation.",
            page_status=502,
            request_id=request_id,
        )
    if isinstance(exc, (errors.InvalidRequestError, errors.UnprocessableError)):
        return RemoteErrorView(
            kind="invalid",
            title="The service did not accept this request",
            message=remote_message or "Check the values and try again.",
            page_status=exc.status or 400,
            request_id=request_id,
            actions=_action("Back", _current_page(request)),
        )
    return RemoteErrorView(
        kind="error",
        title="The service answered with an error",
        message="Try again in a moment.",
        page_status=exc.status if exc.status and 400 <= exc.status < 500 else 502,
        remote_message=remote_message,
        request_id=request_id,
    )


# --------------------------------------------------------------------------
# Helpers


def _is_htmx(request: HttpRequest) -> bool:
    htmx = getattr(request, "htmx", None)
    if htmx is not None:
        return bool(htmx)
    return request.headers.get("HX-Request") == "true"


def _wants_full_page(request: HttpRequest) -> bool:
    return request.headers.get("HX-Boosted") == "true" or request.headers.get("HX-History-Restore-Request") == "true"


def _remote_message(exc: errors.ApiError) -> str:
    # Only what the service actually said; a default text adds nothing.
    if exc.message and exc.message != exc.default_message:
        return exc.message
    return ""


def _reverse_or_none(name: str) -> str | None:
    try:
        return reverse(name)
    except NoReverseMatch:
        return None


def _action(label: str, url: str | None) -> list[ErrorAction]:
    return [ErrorAction(label=label, url=url)] if url else []


def _same_site(request: HttpRequest, url: str | None) -> str | None:
    if url and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return None


def _current_page(request: HttpRequest) -> str | None:
    """The page the person is looking at: htmx tells it; a plain GET is it;
    a plain POST came from the Referer."""
    htmx = getattr(request, "htmx", None)
    if htmx and htmx.current_url_abs_path:
        return htmx.current_url_abs_path
    if request.method == "GET" and not _is_htmx(request):
        return request.get_full_path()
    return _same_site(request, request.headers.get("Referer")) or _reverse_or_none("home")


AREA_LISTS = {
    "studio": ("Back to Studio", "studio:index"),
    "agents": ("Back to agents", "agents:index"),
    "objects": ("Back to objects", "objects:index"),
    "keys": ("Back to API keys", "keys:list"),
}


def _way_back(request: HttpRequest) -> ErrorAction | None:
    """The list of the area the request was in, else where the person came
    from, else home."""
    match = getattr(request, "resolver_match", None)
    if match is not None:
        if match.url_name and "approval" in match.url_name:
            url = _reverse_or_none("agents:approvals")
            if url:
                return ErrorAction("Back to approvals", url)
        for namespace in match.namespaces:
            if namespace in AREA_LISTS:
                label, name = AREA_LISTS[namespace]
                url = _reverse_or_none(name)
                if url and url != request.path:
                    return ErrorAction(label, url)
    referer = _same_site(request, request.headers.get("Referer"))
    if referer:
        return ErrorAction("Go back", referer)
    home = _reverse_or_none("home")
    return ErrorAction("Go to the start page", home) if home else None
