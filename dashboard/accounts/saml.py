"""Optional SAML 2.0 sign-in (djangosaml2 on pysaml2), the twin of oidc.py.

Imported only when SAML_IDP_METADATA is set (settings add this backend, the
configuration loader and djangosaml2's session middleware; dashboard.urls
adds the three views), so a console without SAML never loads the library.

As with OpenID Connect, people are matched to console accounts by email,
case-insensitively (the SAML_EMAIL_ATTRIBUTE attribute, else a NameID in
the email format): an existing account with that email (or with it as
username) is signed in; a new person gets an account named after their
email, unless SAML_CREATE_USER=false, when they are refused in words. A
deactivated account is refused. The assertion must be signed with the key
in the identity provider's metadata (saml_config.py), and answer a sign-in
the console started.

Roles come from the groups attribute (SAML_ROLE_ATTRIBUTE) through
SAML_ROLE_MAP at every sign-in, by the same rules and the same audited
service as OIDC's (oidc_roles.py, people.services.person_role_from_identity_provider):
a person taken out of a group loses its role the next time they sign in.
Like an OIDC sign-in, a SAML one asks no second factor: the identity
provider is where that identity's factors live (two_factor.py).
"""

from __future__ import annotations

import copy
import logging
from typing import Any

import requests
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.cache import cache
from django.db.models import Q
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import path
from django.views.decorators.cache import never_cache
from djangosaml2.backends import Saml2Backend
from djangosaml2.exceptions import IdPConfigurationMissing
from djangosaml2.views import AssertionConsumerServiceView, LoginView, MetadataView
from saml2 import SAMLError
from saml2.config import SPConfig

from dashboard.accounts.oidc_roles import (
    role_from_claims,
    role_map_parse,
    workspace_role_map_parse,
    workspace_roles_from_claims,
)
from dashboard.accounts.saml_config import NAMEID_FORMAT_EMAILADDRESS

logger = logging.getLogger("dashboard.accounts")

METADATA_SECONDS = 3600
METADATA_TIMEOUT = 5
# Why the backend refused, for the login page (set on the request by the backend, read by the ACS view).
REFUSAL = "console_saml_refusal"
GIVEN_NAME = ("givenName", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname")
FAMILY_NAME = ("sn", "surname", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname")


def metadata_read(url: str) -> str:
    """The identity provider's metadata document at `url`, kept an hour in the
    cache; "" when it is down or answers badly (not kept: sign-in then fails
    back on the login page, and the next try reads again)."""
    cache_key = f"saml-metadata:{url}"
    kept = cache.get(cache_key)
    if isinstance(kept, str):
        return kept
    try:
        response = requests.get(url, timeout=METADATA_TIMEOUT)
        response.raise_for_status()
        text = response.text
    except requests.RequestException as exc:
        logger.warning("SAML sign-in: the identity provider's metadata could not be read (%s)", type(exc).__name__)
        return ""
    if "EntityDescriptor" not in text:
        logger.warning("SAML sign-in: the identity provider's metadata address answered no metadata")
        return ""
    cache.set(cache_key, text, METADATA_SECONDS)
    return text


def saml_config_load(request: HttpRequest | None = None) -> SPConfig:
    """SAML_CONFIG_LOADER: settings.SAML_CONFIG, its remote metadata replaced
    by the copy kept an hour (pysaml2 would fetch it at every request)."""
    config = copy.deepcopy(settings.SAML_CONFIG)
    remote = config.get("metadata", {}).pop("remote", [])
    inline = [text for source in remote if (text := metadata_read(source["url"]))]
    if inline:
        config["metadata"]["inline"] = inline
    loaded = SPConfig()
    loaded.load(config)
    return loaded


def role_mapping() -> dict[str, str]:
    """SAML_ROLE_MAP as pairs (checked at start by settings)."""
    return role_map_parse(settings.SAML_ROLE_MAP or "", setting="SAML_ROLE_MAP")


def workspace_role_mapping() -> dict[str, dict[str, str]]:
    """SAML_ROLE_MAP's pairs naming a workspace (`group=role@workspace`)."""
    return workspace_role_map_parse(settings.SAML_ROLE_MAP or "", setting="SAML_ROLE_MAP")


def attribute_values(attributes: dict[str, Any], names: list[str]) -> list[str]:
    """The strings of the first of `names` the assertion holds."""
    for name in names:
        values = attributes.get(name)
        if values:
            return [value for value in values if isinstance(value, str)]
    return []


def email_of(session_info: dict[str, Any]) -> str:
    """The person's email: the email attribute, else a NameID in the email format."""
    found = attribute_values(session_info.get("ava") or {}, list(settings.SAML_EMAIL_ATTRIBUTE))
    if found and "@" in found[0]:
        return found[0].strip()
    name_id = session_info.get("name_id")
    text = str(getattr(name_id, "text", "") or "").strip()
    if getattr(name_id, "format", "") == NAMEID_FORMAT_EMAILADDRESS and "@" in text:
        return text
    return ""


def _refuse(request: HttpRequest | None, message: str) -> None:
    logger.warning("SAML sign-in refused: %s", message)
    if request is not None:
        setattr(request, REFUSAL, message)


class ConsoleSamlBackend(Saml2Backend):
    def authenticate(
        self,
        request: HttpRequest | None,
        session_info: dict[str, Any] | None = None,
        attribute_mapping: Any = None,
        create_unknown_user: bool = True,
        assertion_info: Any = None,
        **kwargs: Any,
    ) -> Any:
        if session_info is None or "ava" not in session_info:
            return None  # another sign-in (a password): not this backend's
        email = email_of(session_info)
        if not email:
            _refuse(request, "Your identity provider did not say your email address, which links you to an account.")
            return None
        groups = attribute_values(session_info["ava"], list(settings.SAML_ROLE_ATTRIBUTE))
        mapping = role_mapping()
        role = role_from_claims(claims={"groups": groups}, claim="groups", mapping=mapping)
        if mapping and settings.SAML_ROLE_REQUIRED and role is None:
            _refuse(request, "None of your groups at your identity provider gives a role in the console.")
            return None
        found = list(self._user_model.objects.filter(Q(email__iexact=email) | Q(username__iexact=email))[:2])
        if len(found) > 1:
            _refuse(request, f"More than one console account has the email {email}. Ask an Administrator.")
            return None
        user = found[0] if found else None
        if user is None:
            if not settings.SAML_CREATE_USER:
                _refuse(request, f"No console account has the email {email}. Ask an Administrator to invite you.")
                return None
            user = self._user_create(email, session_info["ava"])
        if not self.user_can_authenticate(user):
            _refuse(request, "Your console account is deactivated. Ask an Administrator.")
            return None
        if mapping:
            from dashboard.people.services import person_role_from_identity_provider

            if given := role or settings.SAML_ROLE_DEFAULT:
                person_role_from_identity_provider(user=user, role=given, groups=groups)
        if in_workspaces := workspace_role_mapping():
            from dashboard.people.workspace_roles import person_workspace_roles_from_identity_provider

            roles = workspace_roles_from_claims(claims={"groups": groups}, claim="groups", mapping=in_workspaces)
            person_workspace_roles_from_identity_provider(user=user, roles=roles, groups=groups)
        return user

    def _user_create(self, email: str, attributes: dict[str, Any]) -> Any:
        user = self._user_model(
            username=email[:150],
            email=email,
            first_name=(attribute_values(attributes, list(GIVEN_NAME)) or [""])[0][:150],
            last_name=(attribute_values(attributes, list(FAMILY_NAME)) or [""])[0][:150],
        )
        user.set_unusable_password()
        user.save()
        return user


def _failed(request: HttpRequest) -> HttpResponseRedirect:
    """Back to the login page, which says single sign-on did not complete (and why, when the console knows)."""
    reason = getattr(request, REFUSAL, "")
    if reason:
        messages.error(request, reason)
    return HttpResponseRedirect(settings.SAML_LOGIN_FAILED_URL)


class ConsoleSamlLoginView(LoginView):
    """The first step: the AuthnRequest, sent to the identity provider in the
    address. Metadata that cannot be read is a failed sign-in, not a 500."""

    def get(self, request, *args, **kwargs):
        try:
            return super().get(request, *args, **kwargs)
        except (IdPConfigurationMissing, SAMLError) as exc:
            logger.warning("SAML sign-in could not start: %s", type(exc).__name__)
            return _failed(request)


class ConsoleSamlAcsView(AssertionConsumerServiceView):
    """Where the identity provider posts its answer: anything refused (a bad
    signature, an answer to no request, an unknown person) goes back to the
    login page in words."""

    def handle_acs_failure(self, request, exception=None, status=403, **kwargs):
        logger.warning("SAML sign-in failed: %s", type(exception).__name__)
        return _failed(request)


# The login page is public, so the steps of signing in must be too
# (LoginRequiredMiddleware guards every other view); the metadata is public by nature.
urlpatterns = [
    path("saml/login/", login_not_required(never_cache(ConsoleSamlLoginView.as_view())), name="saml2_login"),
    path("saml/acs/", login_not_required(ConsoleSamlAcsView.as_view()), name="saml2_acs"),
    path("saml/metadata/", login_not_required(MetadataView.as_view()), name="saml2_metadata"),
]
