"""One's own account while signed in (/accounts/you/): the display name, the
password (the current one first; the other sessions signed out), one's
passkeys (views_passkeys.py adds and removes them) and the
sessions one is signed in with ("sign out other sessions"). Any role, without
an API key: it is the console's account, not a workspace's."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import update_session_auth_hash
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_GET, require_POST

from dashboard.accounts import passkeys
from dashboard.accounts.forms import DisplayNameForm, LanguageForm, OwnPasswordForm, PasskeyAddForm
from dashboard.accounts.lockout import cool_off_seconds
from dashboard.accounts.services import own_name_change, own_password_change
from dashboard.accounts.throttle import lock_clear, lock_failure, lock_remaining
from dashboard.audit.selectors import sign_ins_of
from dashboard.frame.key_gate import works_without_key
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.language import SESSION_KEY, person_language_set, session_language_set
from dashboard.people.selectors import session_list
from dashboard.people.services import session_renamed, sessions_sign_out_others

# Wrong current passwords pause changing it: an open tab must not be a way to guess the password.
OWN_PASSWORD_SCOPE = "own-password"


def _sessions_ended(ended: int) -> str:
    return ngettext("%(count)d other session was signed out.", "%(count)d other sessions were signed out.", ended) % {
        "count": ended
    }


def _paused(seconds: float) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many wrong current passwords, so changing the password is paused. "
        "Try again in %(minutes)d minute, or reset it from the login page.",
        "Too many wrong current passwords, so changing the password is paused. "
        "Try again in %(minutes)d minutes, or reset it from the login page.",
        minutes,
    ) % {"minutes": minutes}


def own_account_page(request: ConsoleRequest, *, status: int = 200, **forms: Any) -> HttpResponse:
    user: Any = request.user
    context: dict[str, Any] = {
        "name_form": DisplayNameForm(initial={"name": user.get_full_name()}),
        "language_form": LanguageForm(initial={"language": request.session.get(SESSION_KEY, "")}),
        # An account made by single sign-on has no console password: its provider keeps it.
        "password_form": OwnPasswordForm(user) if user.has_usable_password() else None,
        "passkeys": passkeys.passkeys_of(user),
        "passkey_form": PasskeyAddForm(),
        "passkey_required": passkeys.passkey_required(user),
        "sessions": session_list(user=user, current_session_key=request.session.session_key),
        "sign_ins": sign_ins_of(user_id=user.pk),
        **forms,
    }
    return render(request, "accounts/own_account.html", context, status=status)


@works_without_key
@require_GET
def own_account(request: ConsoleRequest) -> HttpResponse:
    return own_account_page(request)


@works_without_key
@require_POST
def own_name(request: ConsoleRequest) -> HttpResponseBase:
    form = DisplayNameForm(request.POST)
    if not form.is_valid():
        return own_account_page(request, name_form=form, status=422)
    if own_name_change(user=request.user, name=form.cleaned_data["name"]):
        messages.success(request, gettext("Your display name is changed."))
    else:
        messages.info(request, gettext("Your display name was already that: nothing changed."))
    return redirect("own_account")


@works_without_key
@require_POST
def own_language(request: ConsoleRequest) -> HttpResponseBase:
    form = LanguageForm(request.POST)
    if not form.is_valid():
        return own_account_page(request, language_form=form, status=422)
    language = form.cleaned_data["language"]
    person_language_set(user=request.user, language=language)
    session_language_set(request, language)
    # Said in the new language: the next page is rendered in it.
    with translation.override(language or translation.get_language_from_request(request)):
        messages.success(request, gettext("The console speaks your language now."))
    return redirect("own_account")


@works_without_key
@require_POST
def own_password(request: ConsoleRequest) -> HttpResponseBase:
    user: Any = request.user
    if not user.has_usable_password():
        return redirect("own_account")
    form = OwnPasswordForm(user, request.POST)
    ident = str(user.pk)
    paused = lock_remaining(scope=OWN_PASSWORD_SCOPE, ident=ident)
    if paused is None and form.is_valid():
        lock_clear(scope=OWN_PASSWORD_SCOPE, ident=ident)
        old_key = request.session.session_key
        ended = own_password_change(
            user=user, new_password=form.cleaned_data["new_password1"], keep_session_key=old_key
        )
        # This session stays signed in (under a new key, as after any login); its row follows it.
        update_session_auth_hash(request, user)
        session_renamed(old_key=old_key, new_key=request.session.session_key)
        said = gettext("Your password is changed.")
        if ended:
            said += " " + _sessions_ended(ended)
        messages.success(request, said)
        return redirect("own_account")
    if paused is None and "old_password" in form.errors:
        paused = lock_failure(
            scope=OWN_PASSWORD_SCOPE,
            ident=ident,
            limit=settings.AXES_FAILURE_LIMIT,
            cool_off_seconds=cool_off_seconds(),
        )
    if paused is not None:
        form.add_error(None, _paused(paused))
    return own_account_page(request, password_form=form, status=429 if paused else 422)


@works_without_key
@require_POST
def own_sessions_sign_out(request: ConsoleRequest) -> HttpResponseBase:
    ended = sessions_sign_out_others(user=request.user, keep_session_key=request.session.session_key)
    if ended:
        messages.success(request, _sessions_ended(ended))
    else:
        messages.info(request, gettext("You were signed in nowhere else: nothing to sign out."))
    return redirect("own_account")
