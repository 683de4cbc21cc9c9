"""The sign-in between the password and the second factor.

After the right password a person with two-factor sign-in (or whose role
requires it) is NOT logged in: the session holds only who is signing in,
through which backend, where to go next and since when. The second step
(a code, or setting up an app) reads it back within
SIGN_IN_SECOND_STEP_MINUTES and only then calls `login()`, so no page of the
console, poll or API-key read is ever served to a half-signed-in session.
`login()` cycles the session key (no fixation) and fires `user_logged_in`:
django-axes forgets the password failures and the session limits start.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.http import HttpRequest
from django.shortcuts import resolve_url
from django.urls import reverse

from dashboard.accounts.passkeys import passkey_enabled, passkey_required
from dashboard.accounts.two_factor import two_factor_enabled, two_factor_required

PENDING = "console_sign_in_pending"
# The backend that checks passwords: the one a password sign-in is logged in
# with when the caller names none (the first in AUTHENTICATION_BACKENDS is
# axes' lockout check, which loads no user).
PASSWORD_BACKEND = "django.contrib.auth.backends.ModelBackend"


def sign_in_after_password(request: HttpRequest, *, user: Any, next_url: str, backend: str = "") -> str:
    """The one decision after a right password (the login form, an accepted
    invitation): where to send the person. With a second factor (an app or a
    passkey): the second step; of a role that requires one and without any:
    setting up an app, or a passkey where the role requires that; nobody is
    logged in yet in these cases. Otherwise they are logged in now and
    go to `next_url` (a path the caller has checked) or the home page."""
    if backend:
        user.backend = backend
    if has_second_factor(user):
        second_step_start(request, user=user, next_url=next_url)
        return reverse("login_code")
    if two_factor_required(user):
        second_step_start(request, user=user, next_url=next_url)
        return reverse("login_two_factor_setup")
    if passkey_required(user):
        second_step_start(request, user=user, next_url=next_url)
        return reverse("login_passkey_setup")
    second_step_forget(request)
    login(request, user, backend=getattr(user, "backend", None) or PASSWORD_BACKEND)
    return next_url or resolve_url(settings.LOGIN_REDIRECT_URL)


def has_second_factor(user: Any) -> bool:
    """An authenticator app or a passkey: either one is asked after the password."""
    return two_factor_enabled(user) or passkey_enabled(user)


def second_step_passed(request: HttpRequest, user: Any) -> str:
    """Where a person goes once their second factor passed (a code, a
    passkey, an app just set up): logged in now, unless their role requires a
    passkey and they have none; then they register one first (still not
    logged in), allowed because the factor passed (`passkey_setup_allowed`)."""
    if passkey_required(user) and not passkey_enabled(user):
        pending = request.session.get(PENDING)
        if isinstance(pending, dict):
            request.session[PENDING] = {**pending, "factor_passed": True}
            return reverse("login_passkey_setup")
    return resolve_url(second_step_finish(request, user))


def passkey_setup_allowed(request: HttpRequest, user: Any) -> bool:
    """Whether the half-signed-in person may register a passkey now: after
    their second factor passed, or when they have none (the password is all
    there is to give). Never on the password alone when an app or passkey
    exists: that would add a way in past the factor."""
    pending = request.session.get(PENDING)
    passed = isinstance(pending, dict) and pending.get("factor_passed") is True
    return passed or not has_second_factor(user)


def second_step_start(request: HttpRequest, *, user: Any, next_url: str) -> None:
    # A new session key now, as login() makes one: a session id planted in the
    # person's browser before the password must not carry their half sign-in
    # (its holder could otherwise take the code step or the app set-up).
    request.session.cycle_key()
    # Django's LoginView sets `backend` on the user authenticate() returned: the same one logs them in.
    request.session[PENDING] = {
        "user": user.pk,
        "backend": getattr(user, "backend", None) or PASSWORD_BACKEND,
        "next": next_url,
        "at": time.time(),
    }


def second_step_user(request: HttpRequest) -> Any | None:
    """The person half-way through signing in, or None: nobody is, it took
    longer than the step allows, or the account was deactivated meanwhile
    (the caller forgets the step and says so)."""
    pending = request.session.get(PENDING)
    if not isinstance(pending, dict):
        return None
    if time.time() - float(pending.get("at", 0)) > settings.SIGN_IN_SECOND_STEP_MINUTES * 60:
        return None
    user_id = pending.get("user")
    user = (
        get_user_model()._default_manager.filter(pk=user_id, is_active=True).first()
        if isinstance(user_id, int)
        else None
    )
    return user


def second_step_next(request: HttpRequest) -> str:
    pending = request.session.get(PENDING)
    return str(pending.get("next") or "") if isinstance(pending, dict) else ""


def second_step_forget(request: HttpRequest) -> None:
    request.session.pop(PENDING, None)


def second_step_finish(request: HttpRequest, user: Any) -> str:
    """Log the person in; returns where they were going (a path checked when the password was)."""
    pending = request.session.pop(PENDING, {})
    login(request, user, backend=pending.get("backend") or PASSWORD_BACKEND)
    return str(pending.get("next") or "") or settings.LOGIN_REDIRECT_URL
