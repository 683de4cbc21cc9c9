"""Administrators' pages of sign-in, served under /people/ beside the People
pages (dashboard/people) but owned here: the sign-in policy (which roles
must use two-factor sign-in or a passkey, which may sign in with a passkey
alone) and resetting a person's second factor."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404, HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from dashboard.accounts import passkeys, policy, two_factor
from dashboard.accounts.forms import SignInPolicyForm
from dashboard.accounts.models import PasskeyRoleRule
from dashboard.frame.key_gate import works_without_key
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import MANAGE_PEOPLE
from dashboard.web.htmx import next_url

MANAGE_EXPLANATION = "Only an Administrator may change how people sign in."


@works_without_key
@require_http_methods(["GET", "POST"])
@requires_permission(MANAGE_PEOPLE, MANAGE_EXPLANATION)
def sign_in_policy(request: ConsoleRequest) -> HttpResponseBase:
    initial = {
        "roles": two_factor.two_factor_required_roles(),
        "passkey_roles": passkeys.passkey_rule_roles(PasskeyRoleRule.REQUIRED),
        "passwordless_roles": passkeys.passkey_rule_roles(PasskeyRoleRule.PASSWORDLESS),
    }
    form = SignInPolicyForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data, by = form.cleaned_data, request.user
        changed = policy.sign_in_policy_set(roles=data["roles"], by=by)
        changed |= policy.passkey_policy_set(rule=PasskeyRoleRule.REQUIRED, roles=data["passkey_roles"], by=by)
        changed |= policy.passkey_policy_set(rule=PasskeyRoleRule.PASSWORDLESS, roles=data["passwordless_roles"], by=by)
        messages.success(request, "Sign-in policy saved." if changed else "Nothing changed.")
        return redirect("sign_in_policy")
    context = {"form": form, "roles": policy.sign_in_policy_roles()}
    return render(request, "accounts/sign_in_policy.html", context, status=422 if form.errors else 200)


@works_without_key
@require_http_methods(["GET", "POST"])
@requires_permission(MANAGE_PEOPLE, MANAGE_EXPLANATION)
def two_factor_reset(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Reset a person's second factor (a lost device): a confirmation page,
    then the reset. The People page links here with `next` to come back to."""
    person = get_user_model()._default_manager.filter(pk=pk).first()
    if person is None:
        raise Http404("No such person")
    back = next_url(request, "")
    if request.method == "POST":
        two_factor.two_factor_reset(user=person, by=request.user)
        messages.success(
            request, gettext("Two-factor sign-in of %(username)s is reset.") % {"username": person.get_username()}
        )
        return redirect(back or "sign_in_policy")
    context = {
        "person": person,
        "enabled": two_factor.two_factor_enabled(person),
        "required": two_factor.two_factor_required(person),
        "next": back,
    }
    return render(request, "accounts/two_factor_reset.html", context)
