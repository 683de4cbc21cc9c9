from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.accounts.lockout import client_address
from dashboard.api import errors as api_errors
from dashboard.api.messages import meaning_of, with_request_id
from dashboard.frame.key_gate import works_without_key
from dashboard.frame.workspace import ConsoleRequest
from dashboard.keys import selectors, services
from dashboard.keys.errors import KeyCheckThrottledError, KeyDecryptionError
from dashboard.keys.forms import AddApiKeyForm
from dashboard.web.htmx import client_redirect, is_partial, next_url, render_region
from dashboard.web.params import database_id


def check_failure_message(exc: api_errors.ApiError, *, then: str = "") -> str:
    """What the key form says when `GET /v1/me` did not accept a key (`then`
    is added before the request id)."""
    return with_request_id(f"{meaning_of(exc).checking_key} {then}".strip(), exc)


@works_without_key
@require_GET
def key_list(request: ConsoleRequest) -> HttpResponse:
    keys = list(selectors.api_key_list(user=request.user))
    unreadable_keys = [key.label for key in keys if not key.is_readable]
    return render(request, "keys/list.html", {"keys": keys, "unreadable_keys": unreadable_keys})


@works_without_key
@require_http_methods(["GET", "POST"])
def key_add(request: ConsoleRequest) -> HttpResponseBase:
    form = AddApiKeyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            key = services.api_key_add(
                user=request.user,
                label=form.cleaned_data["label"],
                secret=form.cleaned_data["secret"],
                address=client_address(request),
            )
        except KeyCheckThrottledError as exc:
            # No remote call was made; nothing is wrong with the key, so it stays in its box.
            form.add_error(None, gettext("%(message)s Nothing was stored.") % {"message": exc.message})
        except (api_errors.AuthenticationError, api_errors.PermissionDeniedError) as exc:
            # The key itself was refused: the message goes on its field, whose box comes back
            # empty for a fresh paste (the secret is never rendered back).
            form.add_error("secret", check_failure_message(exc, then="Nothing was stored."))
        except api_errors.ApiError as exc:
            # The service could not say (down, slow, 5xx): the pasted key stays for a retry.
            form.add_error(None, check_failure_message(exc, then="Nothing was stored."))
        else:
            state = "It is now the active key." if key.is_active else "Switch to it from the header when you need it."
            messages.success(
                request,
                gettext("Key “%(label)s” added for workspace %(workspace_name)s. %(state)s")
                % {"label": key.label, "workspace_name": key.workspace_name, "state": state},
            )
            # A full page change, not a swap into the form.
            return client_redirect(request, reverse("keys:list"))
    if request.method == "POST":
        return render_region(request, "keys/add.html", "add_form", {"form": form})
    return render(request, "keys/add.html", {"form": form})


@works_without_key
@require_POST
def key_check(request: ConsoleRequest, pk: int) -> HttpResponse:
    key = selectors.api_key_get(user=request.user, pk=pk)
    check_error = ""
    try:
        key = services.api_key_check(user=request.user, pk=key.pk, address=client_address(request))
    except (KeyDecryptionError, KeyCheckThrottledError) as exc:
        check_error = exc.message
    except api_errors.ApiError as exc:
        check_error = check_failure_message(exc)
        key.refresh_from_db()  # a 401 just marked it refused
    if is_partial(request):
        return render(
            request, "keys/list.html#key_row", {"key": key, "check_error": check_error, "checked": not check_error}
        )
    if check_error:
        messages.error(
            request, gettext("“%(label)s”: %(check_error)s") % {"label": key.label, "check_error": check_error}
        )
    else:
        messages.success(
            request,
            gettext("“%(label)s” works: workspace %(workspace_name)s, role %(member_role)s.")
            % {"label": key.label, "workspace_name": key.workspace_name, "member_role": key.member_role},
        )
    return redirect("keys:list")


def _key_pk(request: ConsoleRequest) -> int:
    pk = database_id(request.POST.get("key"))
    if pk is None:
        raise Http404("No such key")
    return pk


@works_without_key
@require_POST
def key_activate(request: ConsoleRequest) -> HttpResponse:
    key = services.api_key_activate(user=request.user, pk=_key_pk(request))
    messages.success(
        request,
        gettext("Now working in %(workspace_name)s as %(member_role)s.")
        % {"workspace_name": key.workspace_name, "member_role": key.member_role},
    )
    return redirect(next_url(request, reverse("home")))


@works_without_key
@require_http_methods(["GET", "POST"])
def key_delete(request: ConsoleRequest, pk: int) -> HttpResponse:
    key = selectors.api_key_get(user=request.user, pk=pk)
    if request.method == "POST":
        services.api_key_delete(user=request.user, pk=key.pk)
        messages.success(
            request,
            gettext("Key “%(label)s” deleted from the console. It still works at the service until revoked there.")
            % {"label": key.label},
        )
        return redirect("keys:list")
    return render(request, "keys/delete.html", {"key": key})


@require_GET
def account(request: ConsoleRequest) -> HttpResponse:
    # Remote errors (and a missing or unreadable key) propagate to the
    # shared RemoteErrorMiddleware.
    key, identity = selectors.account_identity_for(user=request.user)
    return render(request, "keys/account.html", {"key": key, "identity": identity})
