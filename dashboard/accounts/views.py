"""Signing in (the password, then a code), password reset, and a person's own
two-factor sign-in page. The sign-in policy page is views_policy.py."""

from __future__ import annotations

import math
import uuid
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import (
    LoginView,
    PasswordResetConfirmView,
    PasswordResetDoneView,
    PasswordResetView,
)
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.accounts import passkeys, two_factor
from dashboard.accounts.forms import (
    AppCodeForm,
    ConsolePasswordResetForm,
    FactorCodeForm,
    SignInCodeForm,
    new_codes_form,
    turn_off_form,
)
from dashboard.accounts.lockout import client_address, cool_off_seconds
from dashboard.accounts.login_slots import busy_retry_after, password_check_slot
from dashboard.accounts.services import password_reset_done, password_reset_request
from dashboard.accounts.signin import (
    PENDING,
    has_second_factor,
    second_step_forget,
    second_step_passed,
    second_step_user,
    sign_in_after_password,
)
from dashboard.accounts.throttle import lock_clear, throttle_hit
from dashboard.frame.key_gate import works_without_key
from dashboard.frame.workspace import ConsoleRequest


def _minutes(seconds: float) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


class ConsoleLoginView(LoginView):
    """Django's login view, with the single sign-on button when it is
    configured, and a second step for a person with two-factor sign-in (or
    whose role requires it): the right password alone logs nobody in."""

    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["sso_provider"] = settings.OIDC_PROVIDER_NAME if settings.OIDC_ENABLED else ""
        # "Sign in with a passkey" where the sign-in policy lets some role sign in without a password.
        context["passwordless"] = passkeys.passwordless_offered()
        context["saml_provider"] = settings.SAML_PROVIDER_NAME if settings.SAML_ENABLED else ""
        return context

    def post(self, request: Any, *args: Any, **kwargs: Any) -> HttpResponse:
        # The password check waits for a slot of this process (login_slots.py):
        # a login burst never takes every core from other people's pages.
        with password_check_slot() as free:
            if free:
                return super().post(request, *args, **kwargs)
        return self._busy()

    def _busy(self) -> HttpResponse:
        """The login page again, the username kept, no password checked (so
        nothing counts against the account): when to try again, in words."""
        wait = busy_retry_after()
        username = self.request.POST.get("username", "")[:150]
        context = self.get_context_data(form=self.get_form_class()(self.request, initial={"username": username}))
        context["busy_message"] = (
            "Many people are logging in at this moment, so the console could not check your password yet. "
            f"Try again in {wait} second{'' if wait == 1 else 's'}."
        )
        response = self.render_to_response(context, status=429)
        response["Retry-After"] = str(wait)
        return response

    def form_valid(self, form: Any) -> HttpResponse:
        # Nobody is logged in before a second factor passes (signin.py); without one, LoginView's own login().
        target = sign_in_after_password(self.request, user=form.get_user(), next_url=self.get_redirect_url())
        return redirect(target)


def _sign_in_again(request: ConsoleRequest) -> HttpResponseBase:
    if PENDING not in request.session:
        # Nobody was signing in here (a bookmark, another tab finished first): just the login page.
        return redirect("login")
    second_step_forget(request)
    messages.info(
        request,
        f"Signing in takes at most {_minutes(settings.SIGN_IN_SECOND_STEP_MINUTES * 60)} between the password "
        "and the code. Log in again.",
    )
    return redirect("login")


def _paused_message(seconds: float) -> str:
    return (
        "Too many wrong codes for this account, so signing in is paused. "
        f"Try again in {_minutes(seconds)}. An administrator can lift the pause by resetting your two-factor sign-in."
    )


@login_not_required
@never_cache
@require_http_methods(["GET", "POST"])
def login_code(request: ConsoleRequest) -> HttpResponseBase:
    """The second step: a code from the app or a recovery code, or a passkey
    (posted to login_code_passkey). Wrong codes
    are counted per account (AXES_FAILURE_LIMIT of them pause this step for
    AXES_COOLOFF_TIME, like the password), and while paused even the right
    code is refused, so guessing gains nothing."""
    user = second_step_user(request)
    if user is None:
        return _sign_in_again(request)
    if not has_second_factor(user):
        # Reset by an administrator meanwhile: the password step decides again.
        second_step_forget(request)
        return redirect("login")
    paused = two_factor.code_attempts_paused(user)
    form = SignInCodeForm(request.POST or None)
    if not two_factor.two_factor_enabled(user):
        # A passkey and no app: the box takes a recovery code only.
        form.fields["code"].label = "Recovery code"
        form.fields["code"].help_text = "One of the recovery codes you saved when you added your first passkey."
    if request.method == "POST" and paused is None and form.is_valid():
        how = two_factor.two_factor_check(user=user, code=form.cleaned_data["code"], purpose="sign in")
        if how:
            lock_clear(scope=two_factor.CODE_LOCK_SCOPE, ident=str(user.pk))
            target = second_step_passed(request, user)
            if how == "recovery":
                left = two_factor.recovery_codes_left(user)
                messages.warning(
                    request,
                    f"You signed in with a recovery code; it is used up ({left} left). Phone lost? On the "
                    "Two-factor sign-in page, make new recovery codes, and turn it off and on again with the new "
                    "phone (if your role requires it, an administrator resets it instead).",
                )
            return redirect(target)
        paused = two_factor.code_failure_record(
            user=user, limit=settings.AXES_FAILURE_LIMIT, cool_off_seconds=cool_off_seconds()
        )
        if paused is None:
            form.add_error(
                "code",
                "That code is not right. Check the app shows the Workspace Console entry, and try the newest code.",
            )
    context = {
        "form": form,
        "paused_message": _paused_message(paused) if paused else "",
        "has_app": two_factor.two_factor_enabled(user),
        "has_passkey": passkeys.passkey_enabled(user),
    }
    return render(request, "registration/login_code.html", context, status=429 if paused else 200)


# never_cache: the page shows a new secret to a session not logged in yet, which
# PrivatePagesMiddleware (logged-in people only) does not mark no-store.
@login_not_required
@never_cache
@require_http_methods(["GET", "POST"])
def login_two_factor_setup(request: ConsoleRequest) -> HttpResponseBase:
    """A person whose role requires two-factor sign-in and who has none sets
    it up here, right after the password, before any page of the console.
    Confirming the app logs them in and shows their recovery codes once."""
    user = second_step_user(request)
    if user is None:
        return _sign_in_again(request)
    if two_factor.two_factor_enabled(user):
        return redirect("login_code")
    device = two_factor.pending_app_device(user)
    form = AppCodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        codes = two_factor.two_factor_enable(user=user, device=device, code=form.cleaned_data["code"])
        if codes is not None:
            return render(
                request,
                "registration/login_two_factor_setup.html",
                {"codes": codes, "continue_url": second_step_passed(request, user)},
            )
        form.add_error(
            "code",
            gettext("That code is not right. Scan the code again, or type the secret, and enter the newest code."),
        )
    context = {
        "form": form,
        "qr_code": two_factor.qr_code_svg(device),
        "secret": two_factor.secret_text(device),
        "person": user,
    }
    return render(request, "registration/login_two_factor_setup.html", context)


# --- one's own two-factor sign-in --------------------------------------------


def _two_factor_page(request: ConsoleRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    user = request.user
    enabled = two_factor.two_factor_enabled(user)
    context: dict[str, Any] = {
        "enabled": enabled,
        "required": two_factor.two_factor_required(user),
        "codes_left": two_factor.recovery_codes_left(user) if enabled else 0,
        "turn_off_form": turn_off_form(),
        "new_codes_form": new_codes_form(),
        **extra,
    }
    # An account made by single sign-on has no console password, so it never
    # reaches the code step: its provider handles its factors. Nothing to set up.
    context["sso_only"] = not user.has_usable_password()
    if not enabled and "codes" not in extra and not context["sso_only"]:
        device = two_factor.pending_app_device(user)
        context.update(qr_code=two_factor.qr_code_svg(device), secret=two_factor.secret_text(device))
        context.setdefault("form", AppCodeForm())
    return render(request, "accounts/two_factor.html", context, status=status)


@works_without_key
@require_GET
def two_factor_page(request: ConsoleRequest) -> HttpResponse:
    return _two_factor_page(request)


@works_without_key
@require_POST
def two_factor_enable(request: ConsoleRequest) -> HttpResponseBase:
    if two_factor.two_factor_enabled(request.user) or not request.user.has_usable_password():
        return redirect("two_factor")
    form = AppCodeForm(request.POST)
    if form.is_valid():
        device = two_factor.pending_app_device(request.user)
        codes = two_factor.two_factor_enable(user=request.user, device=device, code=form.cleaned_data["code"])
        if codes is not None:
            return _two_factor_page(request, codes=codes, just_enabled=True)
        form.add_error(
            "code",
            gettext("That code is not right. Scan the code again, or type the secret, and enter the newest code."),
        )
    return _two_factor_page(request, form=form, status=422)


def factor_code_passes(request: ConsoleRequest, form: FactorCodeForm, *, purpose: str) -> tuple[bool, int | None]:
    """Whether the person's code allows a change to their second factor, and
    the seconds of a pause when wrong codes paused it (they count with the
    sign-in's, so an open session cannot be used to guess). A refusal is on
    the form."""
    user = request.user
    paused = two_factor.code_attempts_paused(user)
    if form.is_valid() and paused is None:
        if two_factor.two_factor_check(user=user, code=form.cleaned_data["code"], purpose=purpose):
            lock_clear(scope=two_factor.CODE_LOCK_SCOPE, ident=str(user.pk))
            return True, None
        paused = two_factor.code_failure_record(
            user=user, limit=settings.AXES_FAILURE_LIMIT, cool_off_seconds=cool_off_seconds()
        )
        if paused is None:
            form.add_error("code", gettext("That code is not right, so nothing changed."))
    if paused is not None:
        form.add_error(None, _paused_message(paused))
    return False, paused


@works_without_key
@require_POST
def recovery_codes_new(request: ConsoleRequest) -> HttpResponseBase:
    if not two_factor.two_factor_enabled(request.user):
        return redirect("two_factor")
    form = new_codes_form(request.POST)
    passed, paused = factor_code_passes(request, form, purpose="make new recovery codes")
    if passed:
        codes = two_factor.recovery_codes_regenerate(user=request.user)
        return _two_factor_page(request, codes=codes)
    return _two_factor_page(request, new_codes_form=form, status=429 if paused else 422)


@works_without_key
@require_POST
def two_factor_turn_off(request: ConsoleRequest) -> HttpResponseBase:
    user = request.user
    if not two_factor.two_factor_enabled(user):
        return redirect("two_factor")
    if two_factor.two_factor_required(user):
        # The page offers no form then; a hand-made POST gets the same words.
        messages.error(request, gettext("Your role must use two-factor sign-in, so it cannot be turned off."))
        return redirect("two_factor")
    form = turn_off_form(request.POST)
    passed, paused = factor_code_passes(request, form, purpose="turn off two-factor sign-in")
    if passed:
        two_factor.two_factor_disable(user=user)
        messages.success(request, gettext("Two-factor sign-in is off. You sign in with your password alone."))
        return redirect("two_factor")
    return _two_factor_page(request, turn_off_form=form, status=429 if paused else 422)


# --- password reset ----------------------------------------------------------


class ConsolePasswordResetView(PasswordResetView):
    """Asking for a reset link: the same answer whether or not the address
    has an account, and the same work in the request (one outbox message;
    the worker looks the address up and sends). Limited per address asking
    and per email asked for (fixed windows in the shared cache): over the
    limit the form says when to try again, the same for any email, so the
    limit reveals nothing either."""

    form_class = ConsolePasswordResetForm
    template_name = "registration/password_reset_form.html"

    def form_valid(self, form: Any) -> HttpResponse:
        email = form.cleaned_data["email"].strip().lower()
        window = settings.PASSWORD_RESET_WINDOW_MINUTES * 60
        wait = throttle_hit(
            scope="password-reset-address",
            ident=client_address(self.request),
            limit=settings.PASSWORD_RESETS_PER_ADDRESS,
            window_seconds=window,
        ) or throttle_hit(
            scope="password-reset-email", ident=email, limit=settings.PASSWORD_RESETS_PER_EMAIL, window_seconds=window
        )
        if wait is not None:
            form.add_error(
                None,
                gettext("Too many reset links were asked for just now. Try again in %(minutes)s.")
                % {"minutes": _minutes(wait)},
            )
            return self.render_to_response(self.get_context_data(form=form), status=429)
        password_reset_request(
            email=email,
            # Links in emails: CONSOLE_BASE_URL (a proxy's public name) when set, else this request's address.
            base_url=settings.CONSOLE_BASE_URL or self.request.build_absolute_uri("/").rstrip("/"),
            request_id=uuid.uuid4().hex,
        )
        return redirect(self.get_success_url())


class ConsolePasswordResetDoneView(PasswordResetDoneView):
    template_name = "registration/password_reset_done.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        hours = settings.PASSWORD_RESET_TIMEOUT / 3600
        context["reset_valid_for"] = (
            _minutes(settings.PASSWORD_RESET_TIMEOUT) if hours < 1 else ("1 hour" if hours == 1 else f"{hours:g} hours")
        )
        return context


class ConsolePasswordResetConfirmView(PasswordResetConfirmView):
    """Choosing the new password. Django keeps the link's token out of the
    address once opened (it moves it to the session and redirects), and the
    new password's hash ends every other session of the person: each checks
    its stored hash of the password on its next request."""

    template_name = "registration/password_reset_confirm.html"

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        password_reset_done(user=form.user)
        return response
