"""The People pages: everyone and the invitations (`people:index`), one
person's page (role, deactivation, stored keys, second factor, their account
audit lines), accepting an invitation (public: the link is the credential),
and the development mail page.

Every page but the accept page needs MANAGE_PEOPLE (Administrators). A
destructive action (deactivate, delete stored keys, a role change) asks once more in place before it is made; a refusal (the
last Administrator, an address already invited) is said in place, with what
was typed kept."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.accounts.passkeys import passkey_enabled
from dashboard.accounts.signin import sign_in_after_password
from dashboard.accounts.two_factor import two_factor_enabled
from dashboard.audit.selectors import account_events_about
from dashboard.frame.key_gate import works_without_key
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people import selectors, services, workspace_roles
from dashboard.people.backends import role_of
from dashboard.people.forms import AcceptForm, InviteForm, PeopleSearchForm, RoleForm, WorkspaceRoleForm
from dashboard.people.models import Invitation
from dashboard.people.roles import MANAGE_PEOPLE, Role
from dashboard.web.htmx import client_redirect, is_partial, render_region
from dashboard.web.pager import CursorPager

PAGE_SIZE = 50
WHO_MAY = "People are managed by Administrators. Ask an Administrator to change your role if you need to do this."
DEVELOPMENT_MAIL_BACKEND = "dashboard.people.mail.DevelopmentMailBackend"


def _base_url(request: ConsoleRequest) -> str:
    return request.build_absolute_uri("/")


def _index_context(request: ConsoleRequest, invite_form: InviteForm, invite_error: str = "") -> dict[str, Any]:
    search = PeopleSearchForm(request.GET or None)
    query = search.query() if search.is_bound else ""
    pager = CursorPager.from_query(request.GET)
    rows, next_after = selectors.people_page(query=query, after=pager.cursor, limit=PAGE_SIZE)
    now = timezone.now()
    invitations = [
        (invitation, selectors.invitation_status(invitation, now))
        for invitation in selectors.invitations_waiting(query=query)
    ]
    return {
        "search": search,
        "query": query,
        "rows": rows,
        "paging": pager.links([("q", query)], next_after),
        "invitations": invitations,
        "invite_form": invite_form,
        "invite_error": invite_error,
        "development_mail": settings.EMAIL_BACKEND == DEVELOPMENT_MAIL_BACKEND,
        "sso_provider": settings.OIDC_PROVIDER_NAME if settings.OIDC_ENABLED else "",
    }


@works_without_key
@require_GET
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def index(request: ConsoleRequest) -> HttpResponse:
    context = _index_context(request, _invite_form(request))
    return render_region(request, "people/index.html", "people", context)


def _invite_form(request: ConsoleRequest, data: Any = None) -> InviteForm:
    """The invitation form, with a role choice per workspace the console
    knows where this Administrator manages people."""
    return InviteForm(data, workspaces=selectors.known_workspaces(), inviter=request.user)


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def invite(request: ConsoleRequest) -> HttpResponseBase:
    """Invite one address or several at once. All sent: back to the page,
    which lists them. Some refused: the form again, each refused address
    named with why and left in the box to fix (the sent ones are said, and
    the invitations list swapped too), nothing typed lost."""
    form = _invite_form(request, request.POST)
    error = ""
    if form.is_valid():
        done = services.invitations_create(
            addresses=form.cleaned_data["emails"],
            role=form.cleaned_data["role"],
            by=request.user,
            base_url=_base_url(request),
            workspace_roles=form.workspace_roles(),
        )
        sent = ", ".join(invitation.email for invitation in done.sent)
        chosen = Invitation(role=form.cleaned_data["role"], workspace_roles=form.workspace_roles())
        role = "; ".join([str(Role(chosen.role).label), *chosen.workspace_role_words()])
        if not done.refused:
            messages.success(
                request,
                ngettext(
                    "Invitation sent to %(emails)s as %(role)s.",
                    "Invitations sent to %(emails)s as %(role)s.",
                    len(done.sent),
                )
                % {"emails": sent, "role": role}
                + " "
                + ngettext(
                    "Each link works once, for %(days)s day.",
                    "Each link works once, for %(days)s days.",
                    settings.INVITATION_DAYS,
                )
                % {"days": settings.INVITATION_DAYS},
            )
            return client_redirect(request, reverse("people:index"))
        # The box keeps what was not sent, to fix and send again.
        kept_data = request.POST.copy()  # the roles chosen (per workspace too) kept
        kept_data["emails"] = "\n".join(address for address, _ in done.refused)
        kept = _invite_form(request, kept_data)
        context = _index_context(request, kept)
        context.update({"invite_refused": done.refused, "invite_sent": sent, "invite_role": role})
        context["people_too"] = bool(done.sent) and is_partial(request)
        return render_region(request, "people/index.html", "invite_form", context)
    return render_region(request, "people/index.html", "invite_form", _index_context(request, form, error))


def _invitation_or_404(pk: int) -> Any:
    invitation = selectors.invitation_get(pk=pk)
    if invitation is None:
        raise Http404("No such invitation.")
    return invitation


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def invitation_resend(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    invitation = _invitation_or_404(pk)
    try:
        services.invitation_resend(invitation=invitation, by=request.user, base_url=_base_url(request))
    except services.PeopleRefusal as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(
            request,
            gettext("A new link was sent to %(email)s; the one sent before no longer works.")
            % {"email": invitation.email},
        )
    return client_redirect(request, reverse("people:index"))


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def invitation_link(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """A new link for a pending invitation, shown once to copy (the answer
    is the page, never a redirect: the link is in no address, message or
    log); the one sent before stops working."""
    invitation = _invitation_or_404(pk)
    try:
        link = services.invitation_new_link(invitation=invitation, by=request.user, base_url=_base_url(request))
    except services.PeopleRefusal as refusal:
        messages.error(request, refusal.message)
        return client_redirect(request, reverse("people:index"))
    context = _index_context(request, _invite_form(request))
    context["new_link"] = {"invitation": selectors.invitation_get(pk=pk), "link": link}
    response = render_region(request, "people/index.html", "people", context)
    response["Cache-Control"] = "no-store"
    return response


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def invitation_revoke(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    invitation = _invitation_or_404(pk)
    try:
        services.invitation_revoke(invitation=invitation, by=request.user)
    except services.PeopleRefusal as refusal:
        messages.error(request, refusal.message)
    else:
        messages.success(
            request,
            gettext("The invitation of %(email)s was revoked; its link no longer works.") % {"email": invitation.email},
        )
    return client_redirect(request, reverse("people:index"))


# --- one person ------------------------------------------------------------------------


def _person_or_404(pk: int) -> Any:
    user = selectors.person_get(pk=pk)
    if user is None:
        raise Http404("No such person.")
    return user


def _person_context(request: ConsoleRequest, user: Any, **extra: Any) -> dict[str, Any]:
    selectors.person_of(user=user)
    role = role_of(user, "")
    role_label = Role(role).label if role in Role.values else role
    role_form = extra.pop("role_form", None) or RoleForm(initial={"role": role})
    workspaces = selectors.known_workspaces()
    workspace_role_form = extra.pop("workspace_role_form", None) or WorkspaceRoleForm(
        workspaces=workspaces, default_label=role_label
    )
    return {
        "person": user,
        "role": role,
        "role_label": role_label,
        "role_form": role_form,
        "workspace_roles": selectors.person_workspace_roles(user=user, workspaces=workspaces),
        "workspace_role_form": workspace_role_form,
        "keys": list(user.api_keys.order_by("workspace_name", "label")),
        # Resetting it is the accounts app's page (`two_factor_reset`), linked from here.
        "second_factor": selectors.second_factors(app=two_factor_enabled(user), passkey=passkey_enabled(user)),
        "events": account_events_about(subject_id=user.pk),
        "is_self": user.pk == request.user.pk,
        "confirm": "",
        "error": "",
        **extra,
    }


@works_without_key
@require_GET
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def person(request: ConsoleRequest, pk: int) -> HttpResponse:
    user = _person_or_404(pk)
    return render(request, "people/person.html", _person_context(request, user))


def _in_place(request: ConsoleRequest, user: Any, **extra: Any) -> HttpResponse:
    """The person's actions again, with a confirmation or a refusal in place."""
    return render_region(request, "people/person.html", "actions", _person_context(request, user, **extra))


def _done(request: ConsoleRequest, user: Any, message: str) -> HttpResponseBase:
    messages.success(request, message)
    return client_redirect(request, reverse("people:person", args=[user.pk]))


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def role_change(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    user = _person_or_404(pk)
    form = RoleForm(request.POST)
    if not form.is_valid():
        return _in_place(request, user, role_form=form)
    role = form.cleaned_data["role"]
    if role == role_of(user, ""):
        return _in_place(request, user, role_form=form, error=f"{user.get_username()} is already {Role(role).label}.")
    if not form.cleaned_data["confirm"]:
        return _in_place(request, user, role_form=form, confirm="role", new_role=Role(role).label)
    try:
        services.person_role_change(user=user, role=role, by=request.user)
    except services.PeopleRefusal as refusal:
        return _in_place(request, user, role_form=form, error=refusal.message)
    return _done(request, user, f"{user.get_username()} is now {Role(role).label}, from their next request.")


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def workspace_role_change(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """A role in one workspace set, changed, or removed (the default again)."""
    user = _person_or_404(pk)
    default_label = Role(role_of(user, "")).label
    form = WorkspaceRoleForm(request.POST, workspaces=selectors.known_workspaces(), default_label=default_label)
    if not form.is_valid():
        return _in_place(request, user, workspace_role_form=form)
    workspace_id, role = form.cleaned_data["workspace_id"], form.cleaned_data["role"] or None
    try:
        workspace_roles.person_workspace_role_set(user=user, workspace_id=workspace_id, role=role, by=request.user)
    except services.PeopleRefusal as refusal:
        return _in_place(request, user, workspace_role_form=form, error=refusal.message)
    named = workspace_roles.workspace_name_of(workspace_id)
    now = f"{Role(role).label} in {named}" if role else f"back to their default ({default_label}) in {named}"
    return _done(request, user, f"{user.get_username()} is now {now}, from their next request.")


def _confirmed(request: ConsoleRequest) -> bool:
    return request.POST.get("confirm") == "yes"


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def deactivate(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    user = _person_or_404(pk)
    if not _confirmed(request):
        return _in_place(request, user, confirm="deactivate")
    try:
        ended = services.person_deactivate(user=user, by=request.user)
    except services.PeopleRefusal as refusal:
        return _in_place(request, user, error=refusal.message)
    words = ngettext(
        "%(name)s is deactivated (%(count)s open session ended); their stored keys are unused.",
        "%(name)s is deactivated (%(count)s open sessions ended); their stored keys are unused.",
        ended,
    )
    return _done(request, user, words % {"name": user.get_username(), "count": ended})


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def reactivate(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    user = _person_or_404(pk)
    services.person_reactivate(user=user, by=request.user)
    return _done(request, user, gettext("%(name)s can sign in again.") % {"name": user.get_username()})


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def keys_delete(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    user = _person_or_404(pk)
    if not _confirmed(request):
        return _in_place(request, user, confirm="keys")
    deleted = services.person_keys_delete(user=user, by=request.user)
    words = ngettext("%(count)s stored key of %(name)s deleted.", "%(count)s stored keys of %(name)s deleted.", deleted)
    return _done(request, user, words % {"count": deleted, "name": user.get_username()})


# --- accepting an invitation (public) ------------------------------------------------


BAD_LINK_STATUS = {"unknown": 404, "expired": 410, "used": 410, "revoked": 410}


@login_not_required
@never_cache
@require_http_methods(["GET", "POST"])
def accept(request: ConsoleRequest, token: str) -> HttpResponseBase:
    """The invitee's page: choose a password (or sign in with the single
    sign-on provider). A link that is expired, used, revoked or not one the
    console sent shows why, and nothing is made."""
    invitation, state = selectors.invitation_for_token(token)
    context: dict[str, Any] = {"state": state, "invitation": invitation, "token": token}
    if invitation is None or state != "valid":
        return render(request, "people/accept.html", context, status=BAD_LINK_STATUS.get(state, 404))
    form = AcceptForm(request.POST or None, email=invitation.email)
    context["form"] = form
    context["sso_provider"] = settings.OIDC_PROVIDER_NAME if settings.OIDC_ENABLED else ""
    context["saml_provider"] = settings.SAML_PROVIDER_NAME if settings.SAML_ENABLED else ""
    if request.method == "POST" and form.is_valid():
        try:
            user = services.invitation_accept(
                invitation=invitation, name=form.cleaned_data["name"], password=form.cleaned_data["password1"]
            )
        except services.PeopleRefusal as refusal:
            context["error"] = refusal.message
        else:
            # The one decision after a right password: a role the sign-in policy
            # requires a second factor of sets one up first, then "add your API key".
            destination = sign_in_after_password(
                request, user=user, next_url=reverse("keys:add"), backend="django.contrib.auth.backends.ModelBackend"
            )
            messages.success(request, gettext("Welcome to the console. Add your workspace's API key to start."))
            return client_redirect(request, destination)
    return render(request, "people/accept.html", context)


@login_not_required
@never_cache
@require_POST
def accept_with_sso(request: ConsoleRequest, token: str) -> HttpResponseBase:
    # Which sign-in the invitee chose: OpenID Connect, or SAML (`via=saml`) when both are configured.
    saml = request.POST.get("via") == "saml"
    if not (settings.SAML_ENABLED if saml else settings.OIDC_ENABLED):
        raise Http404("Single sign-on is not configured.")
    invitation, state = selectors.invitation_for_token(token)
    if invitation is None or state != "valid":
        bad = {"state": state, "invitation": invitation, "token": token}
        return render(request, "people/accept.html", bad, status=BAD_LINK_STATUS.get(state, 404))
    try:
        services.invitation_accept_with_sso(invitation=invitation)
    except services.PeopleRefusal as refusal:
        context: dict[str, Any] = {
            "state": "valid",
            "invitation": invitation,
            "token": token,
            "error": refusal.message,
            "form": AcceptForm(email=invitation.email),
            "sso_provider": settings.OIDC_PROVIDER_NAME if settings.OIDC_ENABLED else "",
            "saml_provider": settings.SAML_PROVIDER_NAME if settings.SAML_ENABLED else "",
        }
        return render(request, "people/accept.html", context)
    start = "saml2_login" if saml else "oidc_authentication_init"
    return client_redirect(request, f"{reverse(start)}?next={reverse('keys:add')}")


# --- development mail ----------------------------------------------------------------


@works_without_key
@require_GET
@requires_permission(MANAGE_PEOPLE, WHO_MAY)
def mail(request: ConsoleRequest) -> HttpResponse:
    """What the console "sent" on this machine (no EMAIL_URL, not production)."""
    if settings.EMAIL_BACKEND != DEVELOPMENT_MAIL_BACKEND:
        raise Http404("Email is sent for real here.")
    return render(request, "people/mail.html", {"messages_kept": list(selectors.development_mail())})
