"""Optional single sign-on with an OpenID Connect provider (mozilla-django-oidc).

Imported only when OIDC_RP_CLIENT_ID is set (settings add this backend and
dashboard.urls adds the two views), so a console without single sign-on
never loads the library.

People are matched to console accounts by email, case-insensitively: an
existing account with that email (or with it as username) is signed in; a
new person gets an account named after their email, unless
OIDC_CREATE_USER=false. A provider that says the email is not verified is
refused: the email is what links the identity to an account.

The provider's four endpoints come from its discovery document when
OIDC_OP_DISCOVERY_URL is set (`/.well-known/openid-configuration`, read on
first use and kept an hour; an endpoint set by hand still wins), and roles
from its groups when OIDC_ROLE_MAP is set (oidc_roles.py), at every sign-in.
"""

from __future__ import annotations

import logging
from typing import Any

import requests
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.cache import cache
from django.core.exceptions import SuspiciousOperation
from django.db.models import Q
from django.http import HttpResponseRedirect
from django.urls import path
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.utils import import_from_settings
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from dashboard.accounts.oidc_roles import (
    claim_values,
    role_from_claims,
    role_map_parse,
    workspace_role_map_parse,
    workspace_roles_from_claims,
)


def username_for(email: str, claims: dict[str, Any] | None = None) -> str:
    """OIDC_USERNAME_ALGO: the email itself (Django's username allows @ . + - _)."""
    return email.strip()[:150]


logger = logging.getLogger("dashboard.accounts")

# Where each endpoint setting is in a discovery document (OpenID Connect Discovery 1.0).
DISCOVERED = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}
DISCOVERY_SECONDS = 3600
DISCOVERY_TIMEOUT = 5


def discovery_read(url: str) -> dict[str, str]:
    """The provider's endpoints from its discovery document (`url`: the
    document, or the issuer it is under), kept an hour in the cache. A
    provider that is down or answers badly gives {} (not kept): sign-on
    then fails back on the login page, and the next try reads again."""
    if not url.rstrip("/").endswith("/.well-known/openid-configuration"):
        url = f"{url.rstrip('/')}/.well-known/openid-configuration"
    cache_key = f"oidc-discovery:{url}"
    kept = cache.get(cache_key)
    if isinstance(kept, dict):
        return kept
    try:
        response = requests.get(url, timeout=DISCOVERY_TIMEOUT)
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as exc:
        logger.warning("Single sign-on: the provider's discovery document could not be read (%s)", type(exc).__name__)
        return {}
    # An endpoint is https, or http only when the document itself was read over http (a provider on the host).
    schemes = ("https://",) if url.startswith("https://") else ("https://", "http://")
    members = document if isinstance(document, dict) else {}
    found = {
        name: value
        for name, member in DISCOVERED.items()
        if isinstance(value := members.get(member), str) and value.startswith(schemes)
    }
    if len(found) != len(DISCOVERED):
        logger.warning("Single sign-on: the discovery document lacks %s", sorted(set(DISCOVERED) - set(found)))
        return {}
    cache.set(cache_key, found, DISCOVERY_SECONDS)
    return found


def oidc_setting(attr: str, *args: Any) -> Any:
    """mozilla-django-oidc's settings, with the endpoints from discovery when
    OIDC_OP_DISCOVERY_URL is set (one set by hand still wins; "" when neither
    says: the sign-on fails in words rather than a 500)."""
    discovery_url = str(settings.OIDC_OP_DISCOVERY_URL or "")
    if attr in DISCOVERED and discovery_url:
        return str(getattr(settings, attr, "") or "") or discovery_read(discovery_url).get(attr, "")
    return import_from_settings(attr, *args)


class ConsoleOIDCBackend(OIDCAuthenticationBackend):
    @staticmethod
    def get_settings(attr, *args):
        return oidc_setting(attr, *args)

    def authenticate(self, request, **kwargs):
        # A provider that refuses, answers badly or is unreachable is a failed
        # sign-on (back to the login page, which says so), not a 400 or 500 page.
        try:
            return super().authenticate(request, **kwargs)
        except (SuspiciousOperation, requests.RequestException) as exc:
            logger.warning("Single sign-on failed: %s", type(exc).__name__)
            return None

    def get_userinfo(self, access_token, id_token, payload):
        # Groups and app roles may be in the ID token (Entra ID, Okta) or in
        # userinfo (Keycloak, Google): both are read, userinfo winning.
        userinfo = super().get_userinfo(access_token, id_token, payload)
        return {**(payload if isinstance(payload, dict) else {}), **(userinfo if isinstance(userinfo, dict) else {})}

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        email = claims.get("email")
        if not (bool(email) and isinstance(email, str) and claims.get("email_verified") is not False):
            return False
        if role_mapping() and settings.OIDC_ROLE_REQUIRED and self._role(claims) is None:
            logger.warning("Single sign-on refused: none of the person's groups is mapped to a console role")
            return False
        return True

    @staticmethod
    def _role(claims: dict[str, Any]) -> str | None:
        return role_from_claims(claims=claims, claim=settings.OIDC_ROLE_CLAIM, mapping=role_mapping())

    def _apply_role(self, user, claims: dict[str, Any]) -> None:
        """The role the person's groups give, at every sign-in (none mapped:
        OIDC_ROLE_DEFAULT, or the role they had when that is empty)."""
        in_workspaces = workspace_role_mapping()
        if not role_mapping() and not in_workspaces:
            return
        from dashboard.people.services import person_role_from_identity_provider
        from dashboard.people.workspace_roles import person_workspace_roles_from_identity_provider

        groups = claim_values(claims, settings.OIDC_ROLE_CLAIM)
        role = (self._role(claims) if role_mapping() else None) or settings.OIDC_ROLE_DEFAULT
        if role:
            person_role_from_identity_provider(user=user, role=role, groups=groups)
        if in_workspaces:
            roles = workspace_roles_from_claims(claims=claims, claim=settings.OIDC_ROLE_CLAIM, mapping=in_workspaces)
            person_workspace_roles_from_identity_provider(user=user, roles=roles, groups=groups)

    def update_user(self, user, claims: dict[str, Any]):
        self._apply_role(user, claims)
        return user

    def filter_users_by_claims(self, claims: dict[str, Any]):
        email = (claims.get("email") or "").strip()
        if not email:
            return self.UserModel.objects.none()
        return self.UserModel.objects.filter(Q(email__iexact=email) | Q(username__iexact=email))

    def create_user(self, claims: dict[str, Any]):
        user = super().create_user(claims)
        # The provider's name for the person, when it gives one.
        user.first_name = str(claims.get("given_name") or "")[:150]
        user.last_name = str(claims.get("family_name") or "")[:150]
        user.save(update_fields=["first_name", "last_name"])
        self._apply_role(user, claims)
        return user


def role_mapping() -> dict[str, str]:
    """OIDC_ROLE_MAP as pairs (checked at start by settings: oidc_roles.py)."""
    return role_map_parse(settings.OIDC_ROLE_MAP or "")


def workspace_role_mapping() -> dict[str, dict[str, str]]:
    """OIDC_ROLE_MAP's pairs naming a workspace (`group=role@workspace`)."""
    return workspace_role_map_parse(settings.OIDC_ROLE_MAP or "")


class ConsoleOIDCRequestView(OIDCAuthenticationRequestView):
    """The first step of signing on, with the endpoint from discovery; a
    provider whose discovery cannot be read sends the person back to the
    login page, which says single sign-on failed."""

    @staticmethod
    def get_settings(attr, *args):
        return oidc_setting(attr, *args)

    def get(self, request):
        endpoint: str = getattr(self, "OIDC_OP_AUTH_ENDPOINT", "") or self.get_settings(
            "OIDC_OP_AUTHORIZATION_ENDPOINT"
        )
        self.OIDC_OP_AUTH_ENDPOINT = endpoint
        if not endpoint:
            return HttpResponseRedirect(self.get_settings("LOGIN_REDIRECT_URL_FAILURE", "/"))
        return super().get(request)


# The login page is public, so the two steps of signing on must be too
# (LoginRequiredMiddleware guards every other view).
urlpatterns = [
    path(
        "oidc/authenticate/",
        login_not_required(ConsoleOIDCRequestView.as_view()),
        name="oidc_authentication_init",
    ),
    path(
        "oidc/callback/",
        login_not_required(OIDCAuthenticationCallbackView.as_view()),
        name="oidc_authentication_callback",
    ),
]
