"""Shared by the tests of accounts."""

from __future__ import annotations

from tests.accounts.oidc_provider import CLIENT_ID, CLIENT_SECRET

PERSON = {
    "sub": "person-42",
    "email": "Dana.Scully@example.com",
    "email_verified": True,
    "given_name": "Dana",
    "family_name": "Scully",
}


def sso_settings(settings, provider) -> None:
    settings.OIDC_ENABLED = True
    settings.OIDC_PROVIDER_NAME = "Stub ID"
    settings.OIDC_RP_CLIENT_ID = CLIENT_ID
    settings.OIDC_RP_CLIENT_SECRET = CLIENT_SECRET
    settings.OIDC_RP_SIGN_ALGO = "RS256"
    settings.OIDC_RP_SCOPES = "openid email profile"
    settings.OIDC_CREATE_USER = True
    settings.OIDC_USERNAME_ALGO = "dashboard.accounts.oidc.username_for"
    settings.LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS, "dashboard.accounts.oidc.ConsoleOIDCBackend"]
    settings.ROOT_URLCONF = "tests.accounts.urls_oidc"
    for name, url in provider.endpoints().items():
        setattr(settings, name, url)
