"""An invitation may name roles in workspaces besides its default role
("Approver in Marketing, Viewer in Sales", issue #37 item 5): offered for the
workspaces the console knows where the inviter manages people, audited when
sent and when accepted, made when the invitee accepts; a role named for a
workspace the inviter may not give is refused in place, what was typed kept."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.keys.testing import stored_api_key
from dashboard.people.backends import person_workspace_role_set, role_of
from dashboard.people.models import Invitation, WorkspaceRole
from dashboard.people.roles import Role
from tests.html import one, select, text_of, texts

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "a long and unusual passphrase 42"
HTMX = {"HTTP_HX_REQUEST": "true"}
MARKETING, SALES = "ws-m", "ws-s"


@pytest.fixture(autouse=True)
def workspaces(settings, django_user_model):
    """Marketing and Sales are known: someone stored a key of each."""
    settings.CONSOLE_BASE_URL = "https://console.example.com"
    keeper = django_user_model.objects.create_user(username="keeper")
    stored_api_key(user=keeper, secret="svc_sk_live_keeper0001", workspace_id=SALES, workspace_name="Sales")
    stored_api_key(user=keeper, secret="svc_sk_live_keeper0002", workspace_id=MARKETING, workspace_name="Marketing")


def invite(client, email="dana@example.com", **roles):
    data = {"emails": email, "role": Role.VIEWER, **{f"role_in_{key}": value for key, value in roles.items()}}
    return client.post(reverse("people:invite"), data, **HTMX)


def test_the_form_offers_a_role_in_each_known_workspace(admin_client):
    form = one(admin_client.get(reverse("people:index")).content, "form#invite-form")
    assert text_of(one(form, "fieldset legend")) == "Roles in workspaces (optional)"
    labels = texts(form, "fieldset label")
    assert labels == ["Role in Marketing", "Role in Sales"]
    options = texts(one(form, "select[name=role_in_ws-m]"), "option")
    assert options[0] == "Their default role" and "Approver" in options


def test_an_invitation_with_roles_in_workspaces_makes_them_when_accepted_audited(admin_client, client, admin):
    response = invite(admin_client, **{MARKETING: Role.APPROVER, SALES: ""})
    assert response["HX-Redirect"] == reverse("people:index")
    invitation = Invitation.objects.get()
    assert invitation.workspace_roles == [{"workspace_id": MARKETING, "role": "approver", "name": "Marketing"}]
    sent = AuditEntry.objects.get(action="invitation_sent")
    assert sent.summary == "Invited dana@example.com as Viewer; Approver in Marketing"
    assert sent.details["workspace_roles"] == invitation.workspace_roles
    assert "In some workspaces your role differs: Approver in Marketing." in mail.outbox[0].body
    row = select(admin_client.get(reverse("people:index")).content, "#people tbody tr")[0]
    assert texts(row, "td")[0] == "Viewer; Approver in Marketing"

    admin_client.logout()
    link = re.search(r"https://console\.example\.com(/people/join/[\w-]+/)", mail.outbox[0].body).group(1)
    assert "Approver in Marketing" in text_of(one(client.get(link).content, "main"))
    client.post(link, {"name": "Dana", "password1": GOOD_PASSWORD, "password2": GOOD_PASSWORD})

    dana = get_user_model().objects.get(username="dana@example.com")
    assert [role_of(dana, ""), role_of(dana, MARKETING), role_of(dana, SALES)] == ["viewer", "approver", "viewer"]
    assert list(WorkspaceRole.objects.values_list("workspace_id", "role")) == [(MARKETING, "approver")]
    accepted = AuditEntry.objects.get(action="invitation_accepted")
    assert accepted.summary == "dana@example.com accepted the invitation (password) as Viewer; Approver in Marketing"


def test_a_role_where_the_inviter_does_not_manage_people_is_not_offered_and_refused_in_place(admin_client, admin):
    person_workspace_role_set(user=admin, workspace_id=SALES, role=Role.VIEWER)  # Ada only reads in Sales
    page = admin_client.get(reverse("people:index"))
    assert texts(one(page.content, "form#invite-form"), "fieldset label") == ["Role in Marketing"]

    response = invite(admin_client, **{MARKETING: Role.APPROVER, SALES: Role.ADMINISTRATOR})  # a page from before

    form = one(response.content, "form#invite-form")
    assert text_of(one(form, "[role=alert]")).startswith("You can't give a role in ws-s: you don't manage people there")
    # What was typed stays: the address, the default role, the role in Marketing.
    assert text_of(one(form, "textarea[name=emails]")) == "dana@example.com"
    assert one(form, "select[name=role] option[selected]")["value"] == Role.VIEWER
    assert one(form, "select[name=role_in_ws-m] option[selected]")["value"] == Role.APPROVER
    assert not Invitation.objects.exists() and mail.outbox == []


def test_a_role_not_listed_is_refused_on_its_field_and_the_rest_kept(admin_client):
    response = invite(admin_client, **{MARKETING: "owner", SALES: Role.APPROVER})

    form = one(response.content, "form#invite-form")
    field = one(form, "select[name=role_in_ws-m]")
    assert field.get("aria-invalid") == "true"
    assert "Select a valid choice" in text_of(one(form, f"#{field['aria-describedby'].split()[0]}"))
    assert one(form, "select[name=role_in_ws-s] option[selected]")["value"] == Role.APPROVER
    assert not Invitation.objects.exists()


def test_a_refused_address_keeps_the_roles_in_workspaces_for_the_next_go(admin_client, django_user_model):
    django_user_model.objects.create_user(username="bob", email="bob@example.com")
    response = invite(admin_client, email="bob@example.com, dana@example.com", **{MARKETING: Role.APPROVER})

    form = one(response.content, "form#invite-form")
    assert text_of(one(form, "textarea[name=emails]")) == "bob@example.com"
    assert one(form, "select[name=role_in_ws-m] option[selected]")["value"] == Role.APPROVER
    assert Invitation.objects.get().email == "dana@example.com"
