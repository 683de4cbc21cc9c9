"""A person's personal access tokens (their account's page): make one (shown
once), see when and from where each was last used, revoke. Administrators
see everyone's and revoke any."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.models import PermissionsMixin
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from dashboard.frame.key_gate import works_without_key
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import MANAGE_PEOPLE
from dashboard.tokens import selectors, services
from dashboard.tokens.forms import TokenForm, TokenPolicyForm
from dashboard.tokens.models import AccessToken
from dashboard.tokens.policy import token_days_most, token_policy_set
from dashboard.web.params import database_id


def _may_manage(request: ConsoleRequest) -> bool:
    return isinstance(request.user, PermissionsMixin) and request.user.has_perm(MANAGE_PEOPLE)


def _page(
    request: ConsoleRequest,
    form: TokenForm,
    made: services.MadeToken | None = None,
    status: int = 200,
    policy_form: TokenPolicyForm | None = None,
):
    may_manage = _may_manage(request)
    everyone = None
    person = None
    if may_manage:
        everyone = selectors.tokens_in_force().exclude(user_id=request.user.pk)
        # One person's tokens (the People page's Tokens column links here with ?person=).
        if (person_id := database_id(request.GET.get("person"))) is not None:
            person = get_user_model().objects.filter(pk=person_id).first()
            everyone = everyone.filter(user_id=person_id)
    context = {
        "form": form,
        "made": made,
        "tokens": selectors.tokens_of(user=request.user),
        "everyone": everyone,
        "person": person,
        "policy_form": (policy_form or TokenPolicyForm()) if may_manage else None,
    }
    return render(request, "tokens/tokens.html", context, status=status)


# The person's own tokens, whatever their active key: a token of another workspace is theirs too.
@works_without_key
@never_cache
@require_GET
def tokens(request: ConsoleRequest) -> HttpResponse:
    return _page(request, TokenForm(user=request.user))


@works_without_key
@never_cache
@require_POST
def token_new(request: ConsoleRequest) -> HttpResponse:
    form = TokenForm(request.POST, user=request.user)
    if not form.is_valid():
        return _page(request, form, status=422)
    data = form.cleaned_data
    try:
        made = services.token_create(
            user=request.user,
            workspace_id=data["workspace_id"],
            name=data["name"],
            scopes=list(data["scopes"]),
            days=data["days"],
            allowed_from=data["allowed_from"],
            ask_first=bool(data.get("ask_first")),
        )
    except services.TokenRefused as refused:
        form.add_error(None, str(refused))
        return _page(request, form, status=422)
    # Rendered, not redirected: the token is on this one answer (no-store), never in an address.
    return _page(request, TokenForm(user=request.user), made=made)


@works_without_key
@require_POST
def token_revoke(request: ConsoleRequest, token_id: int) -> HttpResponse:
    token = AccessToken.objects.filter(pk=token_id).select_related("user").first()
    if token is None or (token.user_id != request.user.pk and not _may_manage(request)):
        raise Http404("No such token.")
    services.token_revoke(token=token, by=request.user)
    messages.success(request, gettext("Revoked “%(name)s”: it is refused from now on.") % {"name": token.name})
    return redirect("tokens:list")


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, "Only Administrators set the token policy.")
def token_policy(request: ConsoleRequest) -> HttpResponse:
    """An Administrator sets the longest life of a token (dashboard/tokens/policy.py)."""
    form = TokenPolicyForm(request.POST)
    if not form.is_valid():
        return _page(request, TokenForm(user=request.user), policy_form=form, status=400)
    shortened = token_policy_set(max_days=form.cleaned_data["max_days"], by=request.user)
    most = token_days_most()
    words = ngettext("Tokens now live at most %(days)s day.", "Tokens now live at most %(days)s days.", most) % {
        "days": most
    }
    if shortened:
        words += " " + ngettext(
            "%(count)s token in force now expires sooner.", "%(count)s tokens in force now expire sooner.", shortened
        ) % {"count": shortened}
    messages.success(request, words)
    return redirect("tokens:list")
