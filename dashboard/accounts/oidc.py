"""Optional single sign-on with an OpenID Connect provider (mozilla-django-oidc).

Imported only when OIDC_RP_CLIENT_ID is set (settings add this backend and
dashboard.urls adds the two views), so a console without single sign-on
never loads the library.

People are matched to console accounts by email, case-insensitively: an
existing account with that email (or with it as username) is signed in; a
new person gets an account named after their email, unless
OIDC_CREATE_USER=false. A provider that says the email is not verified is
refused: the email is what links the identity to an account.
"""

from __future__ import annotations

import logging
from typing import Any

import requests
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import SuspiciousOperation
from django.db.models import Q
from django.urls import path
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView


def username_for(email: str, claims: dict[str, Any] | None = None) -> str:
    """OIDC_USERNAME_ALGO: the email itself (Django's username allows @ . + - _)."""
    return email.strip()[:150]


logger = logging.getLogger("dashboard.accounts")


class ConsoleOIDCBackend(OIDCAuthenticationBackend):
    def authenticate(self, request, **kwargs):
        # A provider that refuses, answers badly or is unreachable is a failed
        # sign-on (back to the login page, which says so), not a 400 or 500 page.
        try:
            return super().authenticate(request, **kwargs)
        except (SuspiciousOperation, requests.RequestException) as exc:
            logger.warning("Single sign-on failed: %s", type(exc).__name__)
            return None

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        email = claims.get("email")
        return bool(email) and isinstance(email, str) and claims.get("email_verified") is not False

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
        return user


# The login page is public, so the two steps of signing on must be too
# (LoginRequiredMiddleware guards every other view).
urlpatterns = [
    path(
        "oidc/authenticate/",
        login_not_required(OIDCAuthenticationRequestView.as_view()),
        name="oidc_authentication_init",
    ),
    path(
        "oidc/callback/",
        login_not_required(OIDCAuthenticationCallbackView.as_view()),
        name="oidc_authentication_callback",
    ),
]
