from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from dashboard.api import errors as api_errors
from dashboard.keys import selectors, services
from dashboard.keys.errors import KeyDecryptionError
from dashboard.keys.forms import AddApiKeyForm


def _with_request_id(text: str, exc: api_errors.ApiError) -> str:
    request_id = getattr(exc, "request_id", None)
    return f"{text} (request id {request_id})" if request_id else text


def check_failure_message(exc: api_errors.ApiError, *, then: str = "") -> str:
    """What to tell the user when `GET /v1/me` did not accept a key (`then`
    is added before the request id)."""
    if isinstance(exc, api_errors.AuthenticationError):
        text = "The service refused this key. Check that you copied all of it and that it has not been revoked."
    elif isinstance(exc, api_errors.PermissionDeniedError):
        text = "The service says this key may not read its own account."
    elif isinstance(exc, api_errors.RateLimitedError):
        wait = f" in {int(exc.retry_after)} seconds" if getattr(exc, "retry_after", None) else " in a moment"
        text = f"The service is busy right now; try again{wait}."
    elif isinstance(exc, (api_errors.ApiConnectionError, api_errors.ApiTimeoutError)):
        text = "The service could not be reached to check this key. Try again in a moment."
    else:
        text = "The service could not check this key right now. Try again in a moment."
    return _with_request_id(f"{text} {then}".strip(), exc)


def _safe_next(request: HttpRequest, fallback: str) -> str:
    candidate = request.POST.get("next") or ""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return fallback


@require_GET
def key_list(request: HttpRequest) -> HttpResponse:
    keys = list(selectors.api_key_list(user=request.user))
    unreadable_keys = [key.label for key in keys if not key.is_readable]
    return render(request, "keys/list.html", {"keys": keys, "unreadable_keys": unreadable_keys})


@require_http_methods(["GET", "POST"])
def key_add(request: HttpRequest) -> HttpResponse:
    form = AddApiKeyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            key = services.api_key_add(
                user=request.user, label=form.cleaned_data["label"], secret=form.cleaned_data["secret"]
            )
        except api_errors.ApiError as exc:
            # Nothing was stored; the message goes on the key field and the
            # secret is not rendered back (PasswordInput(render_value=False)).
            form.add_error("secret", check_failure_message(exc, then="Nothing was stored."))
        else:
            state = "It is now the active key." if key.is_active else "Switch to it from the header when you need it."
            messages.success(request, f"Key “{key.label}” added for workspace {key.workspace_name}. {state}")
            if request.htmx:  # a full page change, not a swap into the form
                return HttpResponseClientRedirect(reverse("keys:list"))
            return redirect("keys:list")
    template = "keys/add.html#add_form" if request.htmx and request.method == "POST" else "keys/add.html"
    return render(request, template, {"form": form})


@require_POST
def key_check(request: HttpRequest, pk: int) -> HttpResponse:
    key = selectors.api_key_get(user=request.user, pk=pk)
    check_error = ""
    try:
        key = services.api_key_check(user=request.user, pk=key.pk)
    except KeyDecryptionError as exc:
        check_error = exc.message
    except api_errors.ApiError as exc:
        check_error = check_failure_message(exc)
    if request.htmx:
        return render(
            request, "keys/list.html#key_row", {"key": key, "check_error": check_error, "checked": not check_error}
        )
    if check_error:
        messages.error(request, f"“{key.label}”: {check_error}")
    else:
        messages.success(request, f"“{key.label}” works: workspace {key.workspace_name}, role {key.member_role}.")
    return redirect("keys:list")


def _key_pk(request: HttpRequest) -> int:
    try:
        return int(request.POST.get("key", ""))
    except ValueError:
        raise Http404("No such key") from None


@require_POST
def key_activate(request: HttpRequest) -> HttpResponse:
    key = services.api_key_activate(user=request.user, pk=_key_pk(request))
    messages.success(request, f"Now working in {key.workspace_name} as {key.member_role}.")
    return redirect(_safe_next(request, reverse("home")))


@require_http_methods(["GET", "POST"])
def key_delete(request: HttpRequest, pk: int) -> HttpResponse:
    key = selectors.api_key_get(user=request.user, pk=pk)
    if request.method == "POST":
        services.api_key_delete(user=request.user, pk=key.pk)
        messages.success(
            request, f"Key “{key.label}” deleted from the console. It still works at the service until revoked there."
        )
        return redirect("keys:list")
    return render(request, "keys/delete.html", {"key": key})


@require_GET
def account(request: HttpRequest) -> HttpResponse:
    # Remote errors (and a missing or unreadable key) propagate to the
    # shared RemoteErrorMiddleware.
    key, identity = selectors.account_identity_for(user=request.user)
    return render(request, "keys/account.html", {"key": key, "identity": identity})
