"""Shared by the tests of accounts."""

from __future__ import annotations

import subprocess
import sys
import time
from urllib.parse import parse_qs, urlsplit

import httpx
from django.urls import reverse
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from dashboard.accounts import two_factor
from tests.accounts.oidc_provider import CLIENT_ID, CLIENT_SECRET
from tests.helpers import PROJECT_DIR
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


def settings_probe(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`code` run in a new process after `django.setup()`, with only `env` (and
    the settings module) in its environment: how the console starts when
    configured so (settings decide at import what to load)."""
    return subprocess.run(
        [sys.executable, "-c", f"import django, sys; django.setup(); {code}"],
        cwd=PROJECT_DIR,
        env={"DJANGO_SETTINGS_MODULE": "dashboard.settings", "PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=300,  # a new process importing Django: over a minute on a loaded machine (killed at 60 s once)
    )


def saml_settings(settings, provider) -> None:
    """SAML sign-in on as dashboard/settings.py turns it on, for the in-process
    identity provider (tests/accounts/saml_idp.py), its metadata as a file; no
    role mapping (tests/accounts/test_saml.py turns it on). The provider then
    trusts the console's metadata as served."""
    from django.test import Client

    from dashboard.accounts.saml_config import saml_config_build

    settings.SAML_ENABLED = True
    settings.SAML_IDP_METADATA = str(provider.metadata_path)
    settings.SAML_PROVIDER_NAME = "Okta"
    settings.SAML_CONFIG = saml_config_build(
        base_url="http://testserver", entity_id="", idp_metadata=str(provider.metadata_path), provider_name="Okta"
    )
    settings.SAML_CONFIG_LOADER = "dashboard.accounts.saml.saml_config_load"
    settings.SAML_EMAIL_ATTRIBUTE = ["email", "mail"]
    settings.SAML_ROLE_ATTRIBUTE = ["groups", "http://schemas.microsoft.com/ws/2008/06/identity/claims/groups"]
    settings.SAML_ROLE_MAP = ""
    settings.SAML_ROLE_DEFAULT = ""
    settings.SAML_ROLE_REQUIRED = False
    settings.SAML_CREATE_USER = True
    settings.SAML_DEFAULT_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
    settings.SAML_CSP_HANDLER = ""
    settings.SAML_LOGIN_FAILED_URL = "/accounts/login/?sso=failed"
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS, "dashboard.accounts.saml.ConsoleSamlBackend"]
    middleware = list(settings.MIDDLEWARE)
    middleware.insert(
        middleware.index("django.contrib.sessions.middleware.SessionMiddleware") + 1,
        "djangosaml2.middleware.SamlSessionMiddleware",
    )
    settings.MIDDLEWARE = middleware
    settings.ROOT_URLCONF = "tests.accounts.urls_saml"
    provider.trust(Client().get("/accounts/saml/metadata/").content.decode())
