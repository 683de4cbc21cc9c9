"""Remote errors as pages and message boxes people can act on.

`RemoteErrorMiddleware` catches what views let propagate: any `ApiError`
from the transport, and `NoActiveKeyError` from the keys app.

- A normal request gets the full page `errors/remote_error.html`, with a
  status that mirrors the remote one (401, 402, 403, 404, 409, 429...), 502
  when the service failed or could not be reached. DEBUG makes no difference:
  the middleware answers before Django's technical 500 page is considered.
- A partial (htmx) request gets only the message box (the inline partial
  `remote_error`) with status 200, because htmx 2 does not swap 4xx/5xx and a
  silent non-swap looks like nothing happened. The server cannot know what
  the request targeted (a row, a button, a form being edited) and a box
  swapped over a form would lose what was typed, so the middleware sends it
  to the page's `#messages` region. A view that wants the box elsewhere
  catches the error and calls `render_remote_error(request, exc, target=...)`.
  Boosted navigations and history restores get the full page (status 200).
- `NoActiveKeyError` redirects to the key settings page with a message.
- `KeyRefusedError` (the active key was refused earlier, so the console
  shows none of the workspace's data) gets the same box as a fresh 401, with
  the refusal's request id and a link to the key settings; a poll gets it in
  `#messages` with 286, so the region stops polling and keeps quiet.

Texts come from the one catalogue, `dashboard.api.messages`. Every box shows
the request id when there is one; none shows a traceback, a remote HTML page
or the API key.

Retrying: the full page has a heading, the section's name in its title and
a Retry link to the same address. The box swapped into `#messages` has a
Retry button that re-issues the failed htmx request (static/js/retry.js),
and a box above a form one that sends the form again (the write keeps its
Idempotency-Key when a retry is the same write). After a 429 the box counts
the service's Retry-After down and retries once by itself; the region the
person was looking at is never swapped away.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext, gettext_lazy

from dashboard.api import errors
from dashboard.api.attempts import read_budget
from dashboard.api.messages import meaning_of, retry_after_seconds, said_by_service
from dashboard.frame.areas import list_page_for, section_of, url_or_none
from dashboard.keys.errors import KeyRefusedError, NoActiveKeyError
from dashboard.logging import redact
from dashboard.web.htmx import client_redirect, is_htmx, is_partial, send_to

logger = logging.getLogger("dashboard.errors")

TEMPLATE = "errors/remote_error.html"
PARTIAL = "errors/remote_error.html#remote_error"
MESSAGES_REGION = "#messages"

NO_KEY_MESSAGE = gettext_lazy("Add an API key of your workspace to use the console.")


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
    # How the Retry button retries: "link" (to `retry_url`), "request" (re-issue
    # the failed htmx request) or "form" (send the form the box sits in again).
    retry: str = ""
    retry_url: str | None = None
    section: str = ""
    # False when doing the same again cannot succeed (credits ran out: 402):
    # the box then shows no Retry of any kind, whatever `retry` says, so a
    # view that sets `retry` later (box_for, render_remote_error) cannot
    # bring the button back.
    retry_helps: bool = True


class RemoteErrorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        # The reads this request makes share one time budget (dashboard/api/client.py).
        with read_budget(settings.SERVICE_READ_BUDGET):
            return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponseBase | None:
        if isinstance(exception, errors.ApiError):
            logger.warning(
                "remote error shown to the user: %s status=%s request_id=%s path=%s",
                type(exception).__name__,
                exception.status,
                exception.request_id,
                request.path,
            )
            return render_remote_error(request, exception, target=MESSAGES_REGION)
        if isinstance(exception, KeyRefusedError):
            return render_key_refused(request, exception)
        if isinstance(exception, NoActiveKeyError):
            return redirect_to_key_settings(request, message=exception.message)
        return None


# The HTTP status htmx reads as "stop polling".
STOP_POLLING = 286


def render_key_refused(request: HttpRequest, exc: KeyRefusedError) -> HttpResponse:
    """The refusal page: the box of a 401 (the same words wherever it shows),
    its request id the refusal's, the way on the key settings page. A poll
    (a view marked `background_request`) gets it once in `#messages`, and stops."""
    refused = errors.AuthenticationError(exc.message, status=401, request_id=exc.request_id or None)
    response = render_remote_error(request, refused, target=MESSAGES_REGION)
    match = getattr(request, "resolver_match", None)
    if is_partial(request) and match is not None and getattr(match.func, "console_background", False):
        response.status_code = STOP_POLLING
    response.key_refused = True  # type: ignore[attr-defined]
    return response


def redirect_to_key_settings(request: HttpRequest, *, message: str | None = None) -> HttpResponseBase:
    messages.info(request, message or NO_KEY_MESSAGE, fail_silently=True)
    return client_redirect(request, url_or_none("keys:list") or url_or_none("home") or "/")


def render_remote_error(request: HttpRequest, exc: errors.ApiError, *, target: str | None = None) -> HttpResponse:
    """The message box for `exc`: a full page for a normal request, the
    partial (status 200) for a partial one, swapped into `target` (a CSS
    selector) when given instead of the request's own target."""
    view = describe_remote_error(request, exc)
    view.retry, view.retry_url = ("request", _current_page(request)) if is_partial(request) else _retry_link(request)
    context = {"remote_error": view}
    if is_partial(request):
        response = HttpResponse(render_to_string(PARTIAL, context, request=request), status=200)
        if target:
            send_to(response, target, "innerHTML show:top")
    else:
        status = 200 if is_htmx(request) else view.page_status
        try:
            response = render(request, TEMPLATE, context, status=status)
        except Exception:
            logger.exception("error page layout failed; answering with the bare message box")
            response = HttpResponse(render_to_string(PARTIAL, context, request=request), status=status)
    if view.retry_after is not None:
        response["Retry-After"] = str(view.retry_after)
    response["Cache-Control"] = "no-store"
    return response


def describe_remote_error(request: HttpRequest, exc: errors.ApiError) -> RemoteErrorView:
    meaning = meaning_of(exc)
    said = said_by_service(exc)
    view = RemoteErrorView(
        kind=meaning.kind,
        title=meaning.title,
        message=meaning.advice,
        page_status=meaning.page_status,
        remote_message=said,
        request_id=redact(exc.request_id) if exc.request_id else None,
        retry="form",
        section=section_of(getattr(request, "resolver_match", None)),
    )
    if isinstance(exc, errors.AuthenticationError):
        # The service's words add nothing to "your key was refused".
        view.remote_message = ""
        view.message = gettext("%(advice)s Until then the console shows none of this workspace's data.") % {
            "advice": meaning.advice
        }
        view.actions = _action(gettext("Add a new API key"), url_or_none("keys:list"))
    elif isinstance(exc, errors.InsufficientCreditsError):
        view.remote_message = ""
        view.retry_helps = False  # the same request is refused again until credits are added
    elif isinstance(exc, errors.NotFoundError):
        back = _way_back(request)
        view.actions = [back] if back else []
    elif isinstance(exc, errors.RateLimitedError):
        view.remote_message = ""
        view.retry_after = retry_after_seconds(exc)
    elif isinstance(exc, (errors.ServerError, errors.ApiConnectionError)):
        view.remote_message = ""
    elif isinstance(exc, (errors.StreamError, errors.InvalidRequestError, errors.UnprocessableError)):
        # Here the service's words are the message.
        view.message, view.remote_message = said or meaning.advice, ""
        if not isinstance(exc, errors.StreamError):
            view.page_status = exc.status or meaning.page_status
            view.actions = _action(gettext("Back"), _current_page(request))
    return view


def _retry_link(request: HttpRequest) -> tuple[str, str | None]:
    """A full page retries with a link to the same address; after a plain
    POST there is no address to repeat it, so the way back does."""
    if request.method in ("GET", "HEAD"):
        return "link", request.get_full_path()
    return "", None


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
        return str(htmx.current_url_abs_path)
    if request.method == "GET" and not is_htmx(request):
        return request.get_full_path()
    return _same_site(request, request.headers.get("Referer")) or url_or_none("home")


def _way_back(request: HttpRequest) -> ErrorAction | None:
    """The list of the area the request was in (from the area registry),
    else where the person came from, else home."""
    listed = list_page_for(getattr(request, "resolver_match", None))
    if listed is not None and listed[1] != request.path:
        return ErrorAction(*listed)
    referer = _same_site(request, request.headers.get("Referer"))
    if referer:
        return ErrorAction(gettext("Go back"), referer)
    home = url_or_none("home")
    return ErrorAction(gettext("Go to the start page"), home) if home else None
