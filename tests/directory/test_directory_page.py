"""People → Directory provisioning: an Administrator makes a directory token
(shown once, only its hash kept), sees when it was last used, revokes it."""

from __future__ import annotations

import hashlib

import pytest
from django.test import Client
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.directory.models import DirectoryToken
from dashboard.directory.tokens import directory_token_create
from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.directory.support import Scim, patch
from tests.html import one, select, texts

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, admin):
    client.force_login(admin)
    return client


def test_an_administrator_makes_a_token_shown_once_and_kept_as_a_hash(admin_client, admin):
    page = admin_client.get(reverse("directory:tokens"))
    assert one(page.content, "#base-url").get("value") == "http://testserver/scim/v2/"

    made = admin_client.post(reverse("directory:token_new"), {"name": "Entra ID"})

    assert made.status_code == 200 and "no-store" in made["Cache-Control"]
    token = one(made.content, "#made-token").get("value")
    row = DirectoryToken.objects.get()
    assert token.startswith(f"scim_{row.token_id}_") and row.secret_hash == hashlib.sha256(token.encode()).hexdigest()
    assert row.name == "Entra ID" and row.created_by == admin
    assert token not in admin_client.get(reverse("directory:tokens")).content.decode()
    assert AuditEntry.objects.get(action="directory_token_made").user == admin
    # Used by the directory: the page says when and from where.
    assert Scim(token=token, client=Client()).call("GET", "Users")[0] == 200
    shown = texts(admin_client.get(reverse("directory:tokens")).content, "td[data-label='Last used']")
    assert shown[0].endswith("from 127.0.0.1")


def test_a_name_is_needed_and_nothing_is_made_without_one(admin_client):
    response = admin_client.post(reverse("directory:token_new"), {"name": ""})

    assert response.status_code == 422 and not DirectoryToken.objects.exists()


def test_revoking_refuses_the_directory_from_then_on(admin_client, admin):
    admin_client.post(reverse("directory:token_new"), {"name": "Okta"})
    row = DirectoryToken.objects.get()

    response = admin_client.post(reverse("directory:token_revoke", args=[row.pk]))

    assert response.status_code == 302
    row.refresh_from_db()
    assert row.revoked_at is not None and row.revoked_by == admin


def test_only_administrators_reach_the_page(client, django_user_model):
    member = django_user_model.objects.create_user(username="mo", password="x")
    Person.objects.create(user=member, role=Role.MEMBER)
    client.force_login(member)

    assert client.get(reverse("directory:tokens")).status_code == 403
    assert client.post(reverse("directory:token_new"), {"name": "Okta"}).status_code == 403
    assert not DirectoryToken.objects.exists()


def test_the_people_page_links_to_it_and_a_persons_history_names_the_directory(admin_client, admin, django_user_model):
    assert reverse("directory:tokens") in [
        link.get("href") for link in select(admin_client.get(reverse("people:index")).content, ".page-header a")
    ]
    bob = django_user_model.objects.create_user(username="bob")
    scim = Scim(token=directory_token_create(name="Okta", by=admin).token, client=Client())
    scim.call("PATCH", f"Users/{bob.pk}", patch({"op": "replace", "path": "active", "value": "False"}))

    history = admin_client.get(reverse("people:person", args=[bob.pk]))

    assert texts(history.content, "td[data-label=Who]")[0] == "Okta (directory)"
    assert texts(history.content, "td[data-label=What]")[0] == "bob deactivated by Okta (directory)"
