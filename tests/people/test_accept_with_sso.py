"""Accepting an invitation by signing in with the OpenID Connect provider
(a stub provider over real HTTP, tests/accounts/oidc_provider.py) or the
SAML one (in-process, tests/accounts/saml_idp.py): the
account is made under the invited address with the invited role, the
provider's sign-in links to it by email, and the invitee lands on "add
your API key"."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from django.core import mail
from django.urls import reverse

from dashboard.people import services
from dashboard.people.models import Invitation, Person
from dashboard.people.roles import Role
from tests.accounts.oidc_provider import running_provider
from tests.accounts.saml_idp import InProcessIdP
from tests.accounts.support import PERSON, saml_settings, sso_settings
from tests.html import one, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def provider(settings):
    with running_provider(dict(PERSON)) as stub:
        sso_settings(settings, stub)
        yield stub


def invitation_link(django_user_model) -> str:
    """An Administrator invites PERSON as an Auditor: the link of the email."""
    admin = django_user_model.objects.create_user(username="ada")
    Person.objects.create(user=admin, role=Role.ADMINISTRATOR)
    services.invitation_create(email=PERSON["email"], role=Role.AUDITOR, by=admin, base_url="http://testserver")
    return re.search(r"http://testserver(/people/join/[\w-]+/)", mail.outbox[0].body).group(1)


def joined_as_invited(client, response, django_user_model) -> None:
    """Signed in on "add your API key" as the invited account: no password, the invited role."""
    assert response.status_code == 302 and response["Location"] == reverse("keys:add")
    person = django_user_model.objects.get(email=PERSON["email"])
    assert client.session["_auth_user_id"] == str(person.pk)
    assert not person.has_usable_password()
    assert Person.objects.get(user=person).role == Role.AUDITOR
    assert Invitation.objects.get().accepted_user == person


def test_the_invitee_signs_in_with_the_provider_and_gets_the_invited_role(client, provider, django_user_model):
    page = client.get(invitation_link(django_user_model))
    form = one(page.content, ".auth-sso form")
    assert text_of(one(form, "button")) == "Sign in with Stub ID"
    start = client.get(client.post(form["action"])["Location"])
    assert parse_qs(urlsplit(start["Location"]).query)["client_id"]
    back = httpx.get(start["Location"], follow_redirects=False)  # the browser at the provider
    callback = urlsplit(back.headers["Location"])
    response = client.get(f"{callback.path}?{callback.query}")

    joined_as_invited(client, response, django_user_model)
    assert django_user_model.objects.count() == 2


def test_the_invitee_signs_in_with_the_saml_provider_and_gets_the_invited_role(
    client, settings, tmp_path, django_user_model
):
    idp = InProcessIdP(tmp_path)
    saml_settings(settings, idp)
    page = client.get(invitation_link(django_user_model))
    form = one(page.content, ".auth-sso form")
    assert text_of(one(form, "button")) == "Sign in with Okta"
    start = client.get(client.post(form["action"], {"via": "saml"})["Location"])
    answer = idp.answer(start["Location"], email=PERSON["email"], groups=[])
    response = client.post(reverse("saml2_acs"), answer)

    joined_as_invited(client, response, django_user_model)
