"""Passkeys in the browser (dashboard/accounts/passkeys.py does the checks):
adding and removing one's own on the account page, the second step with a
passkey, signing in without a password where the policy lets the role, and
registering one while signing in when the role requires it.

The options views answer JSON for static/js/passkeys.js; the browser's
answer comes back in an ordinary form post (a hidden `credential` field),
so each outcome is a page or a redirect with a message, as elsewhere."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import redirect, render, resolve_url
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from dashboard.accounts import passkeys, step_up, two_factor
from dashboard.accounts.forms import PasskeyAddForm, PasskeyAnswerForm, passkey_remove_form
from dashboard.accounts.models import Passkey
from dashboard.accounts.passkeys import PasskeyRefused
from dashboard.accounts.signin import (
    PASSWORD_BACKEND,
    has_second_factor,
    passkey_setup_allowed,
    second_step_finish,
    second_step_forget,
    second_step_passed,
    second_step_user,
)
from dashboard.accounts.views import factor_code_passes
from dashboard.accounts.views_self import own_account_page
from dashboard.frame.key_gate import works_without_key
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import next_url


def _options(body: str) -> HttpResponse:
    response = HttpResponse(body, content_type="application/json")
    response["Cache-Control"] = "no-store"
    return response


def _no_options(words: str, status: int = 409) -> JsonResponse:
    return JsonResponse({"error": words}, status=status)


def _answer(request: HttpRequest) -> str:
    form = PasskeyAnswerForm(request.POST)
    return form.cleaned_data["credential"] if form.is_valid() else ""


# --- one's own passkeys -------------------------------------------------------


@works_without_key
@require_POST
def own_passkey_options(request: ConsoleRequest) -> HttpResponseBase:
    """Options to register a passkey (`purpose=register`) or to confirm a
    change with one of one's own (`purpose=confirm`)."""
    user: Any = request.user
    if request.POST.get("purpose") == passkeys.CONFIRM:
        if not passkeys.passkey_enabled(user):
            return _no_options("You have no passkey to confirm with.")
        return _options(passkeys.authentication_options(request, purpose=passkeys.CONFIRM, user=user))
    return _options(passkeys.registration_options(request, user=user))


@works_without_key
@require_POST
def own_passkey_add(request: ConsoleRequest) -> HttpResponseBase:
    user: Any = request.user
    form = PasskeyAddForm(request.POST)
    if form.is_valid():
        try:
            passkey = passkeys.passkey_register(
                request, user=user, answer=form.cleaned_data["credential"], name=form.cleaned_data["name"]
            )
        except PasskeyRefused as refused:
            form.add_error(None, str(refused))
        else:
            codes = two_factor.recovery_codes_first(user=user)
            messages.success(request, gettext("The passkey “%(name)s” is added.") % {"name": passkey.name})
            if codes:
                # Shown once, on this page: a lost passkey must not lock the person out.
                return own_account_page(request, recovery_codes=codes)
            return redirect("own_account")
    return own_account_page(request, passkey_form=form, status=422)


def _confirmed(request: ConsoleRequest, form: Any) -> tuple[bool, int | None]:
    """The step-up before removing a passkey: another (or the same) passkey
    answering a fresh challenge, or a code from the app or a recovery code."""
    answer = _answer(request)
    if answer:
        try:
            passkeys.passkey_authenticate(request, purpose=passkeys.CONFIRM, answer=answer, user=request.user)
        except PasskeyRefused as refused:
            form.add_error(None, str(refused))
            return False, None
        return True, None
    return factor_code_passes(request, form, purpose="remove a passkey")


@works_without_key
@require_http_methods(["GET", "POST"])
def own_passkey_remove(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Removing one of one's own passkeys: a page that asks for a fresh
    factor (a passkey, a code or a recovery code), then the removal."""
    user: Any = request.user
    passkey = Passkey.objects.filter(user_id=user.pk, pk=pk).first()
    if passkey is None:
        raise Http404("No such passkey")
    last_required = passkeys.passkey_required(user) and Passkey.objects.filter(user_id=user.pk).count() == 1
    form = passkey_remove_form(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if last_required:
            messages.error(
                request, gettext("Your role must sign in with a passkey: add another before removing this one.")
            )
            return redirect("own_account")
        passed, paused = _confirmed(request, form)
        if passed:
            name = passkeys.passkey_remove(user=user, passkey_id=passkey.pk)
            messages.success(request, gettext("The passkey “%(name)s” is removed.") % {"name": name})
            return redirect("own_account")
        status = 429 if paused else 422
    context = {
        "passkey": passkey,
        "form": form,
        "last_required": last_required,
        "has_codes": two_factor.two_factor_enabled(user) or two_factor.recovery_codes_left(user) > 0,
    }
    return render(request, "accounts/passkey_remove.html", context, status=status)


@works_without_key
@require_http_methods(["GET", "POST"])
def step_up_passkey(request: ConsoleRequest) -> HttpResponseBase:
    """A fresh check that it is you, with your passkey (the step-up before a
    destructive or spend approve, dashboard/accounts/step_up.py, for a person
    whose second factor is a passkey): the session is marked, then back to
    the approval (`next`), where Approve now goes through."""
    user: Any = request.user
    back = next_url(request, resolve_url("agents:approvals"))
    refused = ""
    if request.method == "POST":
        try:
            passkeys.passkey_authenticate(request, purpose=passkeys.CONFIRM, answer=_answer(request), user=user)
        except PasskeyRefused as refusal:
            refused = str(refusal)
        else:
            step_up.step_up_mark(request.session)
            messages.success(request, gettext("Confirmed: approve it now."))
            return redirect(back)
    context = {"back": back, "refused": refused, "has_passkey": passkeys.passkey_enabled(user)}
    return render(request, "accounts/step_up_passkey.html", context, status=422 if refused else 200)


# --- signing in -----------------------------------------------------------------


@login_not_required
@never_cache
@require_POST
def login_passkey_options(request: HttpRequest) -> HttpResponseBase:
    """Options while signing in: the second step (`second-step`), registering
    one the role requires (`register`), or without a password (`passwordless`)."""
    purpose = request.POST.get("purpose")
    if purpose == passkeys.PASSWORDLESS:
        if not passkeys.passwordless_offered():
            return _no_options("Signing in with a passkey alone is not allowed here.", status=403)
        return _options(passkeys.authentication_options(request, purpose=passkeys.PASSWORDLESS))
    user = second_step_user(request)
    if user is None:
        return _no_options("Signing in took too long. Log in again.", status=403)
    if purpose == passkeys.REGISTER:
        if not passkey_setup_allowed(request, user):
            return _no_options("Finish the second step first.", status=403)
        return _options(passkeys.registration_options(request, user=user))
    if not passkeys.passkey_enabled(user):
        return _no_options("Your account has no passkey.")
    return _options(passkeys.authentication_options(request, purpose=passkeys.SECOND_STEP, user=user))


@login_not_required
@never_cache
@require_POST
def login_code_passkey(request: HttpRequest) -> HttpResponseBase:
    """The second step with a passkey instead of a code."""
    user = second_step_user(request)
    if user is None:
        second_step_forget(request)
        messages.info(request, gettext("Signing in took too long. Log in again."))
        return redirect("login")
    try:
        passkey = passkeys.passkey_authenticate(
            request, purpose=passkeys.SECOND_STEP, answer=_answer(request), user=user
        )
    except PasskeyRefused as refused:
        messages.error(request, str(refused))
        return redirect("login_code")
    passkeys.passkey_sign_in_record(passkey=passkey, how="second step")
    return redirect(second_step_passed(request, user))


@login_not_required
@never_cache
@require_POST
def login_passkey(request: HttpRequest) -> HttpResponseBase:
    """Signing in without a password: the passkey names its owner, and their
    role must be one the sign-in policy lets do this. The authenticator has
    verified the person (PIN, fingerprint), so it stands for both factors."""
    back = next_url(request, "")
    login_page = resolve_url("login") + (f"?next={back}" if back else "")
    if not passkeys.passwordless_offered():
        return redirect(login_page)
    try:
        passkey = passkeys.passkey_authenticate(request, purpose=passkeys.PASSWORDLESS, answer=_answer(request))
    except PasskeyRefused as refused:
        messages.error(request, str(refused))
        return redirect(login_page)
    user = passkey.user
    if not user.is_active:
        messages.error(request, gettext("That account is deactivated."))
        return redirect(login_page)
    if not passkeys.passwordless_allowed(user):
        messages.error(
            request, gettext("Your role signs in with its password first. Log in with it, then use your passkey.")
        )
        return redirect(login_page)
    second_step_forget(request)
    login(request, user, backend=PASSWORD_BACKEND)
    passkeys.passkey_sign_in_record(passkey=passkey, how="without a password")
    return redirect(back or resolve_url(settings.LOGIN_REDIRECT_URL))


@login_not_required
@never_cache
@require_http_methods(["GET", "POST"])
def login_passkey_setup(request: HttpRequest) -> HttpResponseBase:
    """A person whose role requires a passkey and who has none registers one
    here while signing in (after their second factor, if they have one),
    before any page of the console. Registering logs them in."""
    user = second_step_user(request)
    if user is None:
        second_step_forget(request)
        messages.info(request, gettext("Signing in took too long. Log in again."))
        return redirect("login")
    if passkeys.passkey_enabled(user) or not passkeys.passkey_required(user):
        return redirect("login_code") if has_second_factor(user) else redirect("login")
    if not passkey_setup_allowed(request, user):
        return redirect("login_code")
    form = PasskeyAddForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            passkeys.passkey_register(
                request, user=user, answer=form.cleaned_data["credential"], name=form.cleaned_data["name"]
            )
        except PasskeyRefused as refused:
            form.add_error(None, str(refused))
        else:
            codes = two_factor.recovery_codes_first(user=user)
            target = resolve_url(second_step_finish(request, user))
            if codes:
                return render(
                    request, "registration/login_passkey_setup.html", {"codes": codes, "continue_url": target}
                )
            return redirect(target)
    context = {"form": form, "person": user}
    return render(request, "registration/login_passkey_setup.html", context, status=422 if form.errors else 200)
