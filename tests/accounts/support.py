"""Shared by the tests of accounts."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import httpx
from django.urls import reverse
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from dashboard.accounts import two_factor
from tests.accounts.oidc_provider import CLIENT_ID, CLIENT_SECRET
from tests.html import one

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
    # Endpoints set by hand, no role mapping (tests/accounts/test_oidc_roles.py turns them on).
    settings.OIDC_OP_DISCOVERY_URL = ""
    settings.OIDC_ROLE_MAP = ""
    settings.OIDC_ROLE_CLAIM = "groups"
    settings.OIDC_ROLE_DEFAULT = ""
    settings.OIDC_ROLE_REQUIRED = False
    for name, url in provider.endpoints().items():
        setattr(settings, name, url)


def sign_on(client, *, next_url: str = "/objects/"):
    """Press the button, let the provider answer, come back to the callback."""
    login = client.get(reverse("login") + f"?next={next_url}")
    button = one(login.content, ".auth-sso a")
    start = client.get(button["href"])
    assert start.status_code == 302
    authorize = urlsplit(start["Location"])
    assert parse_qs(authorize.query)["client_id"] == [CLIENT_ID]
    back = httpx.get(start["Location"], follow_redirects=False)  # the person's browser at the provider
    assert back.status_code == 302
    callback = urlsplit(back.headers["Location"])
    return client.get(f"{callback.path}?{callback.query}")


def app_code(device: TOTPDevice, *, steps_ahead: int = 0) -> str:
    """The code an app shows now (or `steps_ahead` periods on: a later code,
    since a code once used is refused again)."""
    device.refresh_from_db()
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time() + steps_ahead * device.step
    return f"{totp.token():06d}"


def enable_app(user) -> TOTPDevice:
    """Two-factor sign-in turned on for `user` with an app (and its recovery codes)."""
    device = two_factor.pending_app_device(user)
    assert two_factor.two_factor_enable(user=user, device=device, code=app_code(device)) is not None
    return device
