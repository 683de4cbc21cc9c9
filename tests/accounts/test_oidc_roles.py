"""Roles from the identity provider (#37 item 1) against the stub OpenID
Connect provider over real HTTP: its endpoints found by discovery, a groups
claim (in userinfo or in the ID token, nested or flat) mapped to console
roles at every sign-in, so a person taken out of a group loses its role the
next time; the last Administrator kept; people in no mapped group given the
default or refused; a bad map stops the start in words."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured

from dashboard.accounts.oidc import discovery_read
from dashboard.accounts.oidc_roles import (
    claim_values,
    role_from_claims,
    role_map_parse,
    workspace_role_map_parse,
    workspace_roles_from_claims,
)
from dashboard.audit.models import AuditEntry
from dashboard.people.backends import role_of
from dashboard.people.models import Person, WorkspaceRole
from tests.accounts.oidc_provider import running_provider
from tests.accounts.support import PERSON, sign_on, sso_settings

MAP = "console-admins=administrator, finance-approvers=approver,readers=viewer"
EMAIL = PERSON["email"]


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def mapped(settings, db):
    """The stub provider found by discovery only (no endpoint set by hand), groups mapped."""
    with running_provider(dict(PERSON)) as stub:
        sso_settings(settings, stub)
        for name in stub.endpoints():
            setattr(settings, name, "")
        settings.OIDC_OP_DISCOVERY_URL = stub.base_url  # the issuer: the document is under it
        settings.OIDC_ROLE_MAP = MAP
        settings.OIDC_ROLE_CLAIM = "groups"
        settings.OIDC_ROLE_DEFAULT = "member"
        settings.OIDC_ROLE_REQUIRED = False
        yield stub


def signed_in(client, django_user_model):
    response = sign_on(client)
    assert response.status_code == 302 and response["Location"] == "/objects/"
    client.logout()
    return django_user_model.objects.get(email=EMAIL)


def test_the_map_is_read_and_a_bad_one_is_said_in_words():
    assert role_map_parse(" a=Administrator,\nteam=x=viewer ") == {"a": "administrator", "team=x": "viewer"}
    with pytest.raises(ImproperlyConfigured, match="“boss” .* is not a console role"):
        role_map_parse("ceo=boss")
    with pytest.raises(ImproperlyConfigured, match="not group=role"):
        role_map_parse("just-a-group")


def test_a_pair_may_name_a_workspace():
    text = (
        "console-admins=administrator, marketing-approvers=approver@ws-m, marketing-readers=viewer@ws-m, x=auditor@ws-f"
    )
    assert role_map_parse(text) == {"console-admins": "administrator"}
    mapping = workspace_role_map_parse(text)
    assert mapping == {
        "ws-m": {"marketing-approvers": "approver", "marketing-readers": "viewer"},
        "ws-f": {"x": "auditor"},
    }
    claims = {"groups": ["marketing-readers", "marketing-approvers"]}
    assert workspace_roles_from_claims(claims=claims, claim="groups", mapping=mapping) == {
        "ws-m": "approver",
        "ws-f": None,
    }
    with pytest.raises(ImproperlyConfigured, match="group=role@workspace"):
        role_map_parse("team=approver@")


def test_the_strongest_mapped_group_wins_and_claims_are_read_tolerantly():
    mapping = role_map_parse(MAP)
    assert (
        role_from_claims(claims={"groups": ["readers", "finance-approvers"]}, claim="groups", mapping=mapping)
        == "approver"
    )
    assert role_from_claims(claims={"groups": "console-admins"}, claim="groups", mapping=mapping) == "administrator"
    assert role_from_claims(claims={"groups": [{"name": "x"}, 7]}, claim="groups", mapping=mapping) is None
    keycloak = {"realm_access": {"roles": ["readers", "offline_access"]}}
    assert claim_values(keycloak, "realm_access.roles") == ["readers", "offline_access"]
    assert claim_values({"realm_access": "no"}, "realm_access.roles") == []


def test_endpoints_come_from_discovery_and_a_role_from_the_groups(client, mapped, django_user_model):
    mapped.claims["groups"] = ["finance-approvers"]
    person = signed_in(client, django_user_model)
    assert role_of(person) == "approver"
    assert mapped.calls.count("/.well-known/openid-configuration") == 1
    entry = AuditEntry.objects.filter(action="role_changed").latest("pk")
    assert "by the identity provider's groups" in entry.summary and entry.details["to"] == "approver"

    # Out of the group at the provider: the next sign-in takes the role away (the default applies).
    mapped.claims["groups"] = ["somewhere-else"]
    person = signed_in(client, django_user_model)
    assert role_of(person) == "member"
    # The document was kept: discovery is read once an hour, not at every sign-in.
    assert mapped.calls.count("/.well-known/openid-configuration") == 1


def test_a_group_mapped_in_a_workspace_gives_the_role_there_and_leaving_it_gives_the_default(
    client, mapped, django_user_model, settings
):
    settings.OIDC_ROLE_MAP = MAP + ",marketing-approvers=approver@ws-marketing"
    mapped.claims["groups"] = ["readers", "marketing-approvers"]
    person = signed_in(client, django_user_model)
    assert (role_of(person, ""), role_of(person, "ws-marketing")) == ("viewer", "approver")
    entry = AuditEntry.objects.get(action="workspace_role_changed")
    assert entry.summary.endswith("to Approver by the identity provider's groups, at sign-in")

    mapped.claims["groups"] = ["readers"]
    person = signed_in(client, django_user_model)
    assert role_of(person, "ws-marketing") == "viewer"  # the default there again
    assert not WorkspaceRole.objects.exists()


def test_groups_in_the_id_token_count_too(client, mapped, django_user_model):
    mapped.id_token_claims = {"roles": ["console-admins"]}
    mapped.claims.pop("groups", None)
    from django.conf import settings

    settings.OIDC_ROLE_CLAIM = "roles"
    person = signed_in(client, django_user_model)
    assert role_of(person) == "administrator"


def test_the_only_administrator_is_kept_and_the_trail_says_why(client, mapped, django_user_model):
    mapped.claims["groups"] = ["console-admins"]
    person = signed_in(client, django_user_model)
    mapped.claims["groups"] = ["readers"]
    person = signed_in(client, django_user_model)
    assert role_of(person) == "administrator"
    kept = AuditEntry.objects.get(action="role_kept")
    assert "the only active one" in kept.summary


def test_without_a_default_a_role_given_by_hand_stays(client, mapped, django_user_model, settings):
    settings.OIDC_ROLE_DEFAULT = ""
    existing = django_user_model.objects.create_user(username="dana", email=EMAIL, password="x" * 20)
    Person.objects.update_or_create(user=existing, defaults={"role": "auditor"})
    mapped.claims["groups"] = ["unmapped"]
    assert role_of(signed_in(client, django_user_model)) == "auditor"


def test_a_person_in_no_mapped_group_is_refused_when_a_group_is_required(client, mapped, django_user_model, settings):
    settings.OIDC_ROLE_REQUIRED = True
    mapped.claims["groups"] = ["unmapped"]
    response = sign_on(client)
    assert response.status_code == 302 and "sso=failed" in response["Location"]
    assert not django_user_model.objects.filter(email=EMAIL).exists()


def test_a_provider_whose_discovery_cannot_be_read_sends_back_to_the_login_page(client, mapped, settings):
    settings.OIDC_OP_DISCOVERY_URL = "http://127.0.0.1:9/"  # nothing listens there
    login = client.get("/accounts/login/")
    from tests.html import one

    start = client.get(one(login.content, ".auth-sso a")["href"])
    assert start.status_code == 302 and start["Location"] == "/accounts/login/?sso=failed"
    assert discovery_read("http://127.0.0.1:9/") == {}
