"""Account events (people, roles, invitations, sign-in) in the audit trail:
shown in every workspace's trail, filterable by kind, exported in CSV."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.audit.services import audit_account_event
from dashboard.keys.testing import stored_api_key
from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.html import select, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def auditor_client(client, django_user_model):
    auditor = django_user_model.objects.create_user(username="audrey")
    Person.objects.create(user=auditor, role=Role.AUDITOR)
    stored_api_key(user=auditor, secret="svc_sk_live_auditorsecret1", workspace_id="ws-a")
    client.force_login(auditor)
    return client


def test_an_account_event_names_who_whom_and_what(django_user_model):
    ada = django_user_model.objects.create_user(username="ada")
    bob = django_user_model.objects.create_user(username="bob")

    entry = audit_account_event(actor=ada, subject=bob, action="role_changed", summary="Role of bob changed")

    assert (entry.kind, entry.area, entry.username, entry.subject_name) == ("account", "people", "ada", "bob")
    assert entry.get_kind_display() == "People and sign-in"
    bob.delete()
    entry.refresh_from_db()
    assert entry.subject is None and entry.subject_name == "bob"  # kept by name


def test_the_audit_page_shows_account_events_in_every_workspace_and_filters_them(auditor_client, django_user_model):
    ada = django_user_model.objects.create_user(username="ada")
    audit_account_event(actor=ada, subject=None, action="invitation_sent", summary="Invited x@example.com as Member")
    AuditEntry.objects.create(workspace_id="ws-a", method="POST", path="/v1/agents", summary="Created an agent")
    AuditEntry.objects.create(workspace_id="ws-other", method="POST", path="/v1/agents", summary="Not ours")

    everything = auditor_client.get(reverse("audit:index"))
    accounts = auditor_client.get(reverse("audit:index"), {"kind": "account"})

    def rows(response):
        return [text_of(cell) for cell in select(response.content, "#audit-entries tbody td:nth-of-type(3)")]

    assert len(rows(everything)) == 2
    assert rows(accounts) == ["people Invited x@example.com as Member"]


def test_the_export_carries_account_events_and_whom_they_were_about(auditor_client, django_user_model):
    ada = django_user_model.objects.create_user(username="ada")
    bob = django_user_model.objects.create_user(username="bob")
    audit_account_event(actor=ada, subject=bob, action="deactivated", summary="bob deactivated")

    response = auditor_client.get(reverse("audit:export"), {"kind": "account"})
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode().lstrip("\ufeff"))))

    assert rows[0][-1] == "About (account)"
    assert [(row[1], row[4], row[10], row[-1]) for row in rows[1:]] == [
        ("ada", "People and sign-in", "bob deactivated", "bob")
    ]


def test_entries_the_console_made_name_the_console_and_a_deleted_person_keeps_their_name(
    auditor_client, django_user_model
):
    from dashboard.accounts.services import password_reset_send

    carol = django_user_model.objects.create_user(
        username="carol", email="carol@example.com", password="a long passphrase"
    )
    password_reset_send(email="carol@example.com", base_url="https://console.example.test", request_id="r1")
    dora = django_user_model.objects.create_user(username="dora")
    audit_account_event(actor=dora, subject=carol, action="role_changed", summary="Role of carol changed")
    dora.delete()

    page = auditor_client.get(reverse("audit:index"), {"kind": "account"})
    actors = [
        text_of(cell.select_one("strong")) for cell in select(page.content, "#audit-entries tbody td:nth-of-type(2)")
    ]
    response = auditor_client.get(reverse("audit:export"), {"kind": "account"})
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode().lstrip("\ufeff"))))

    assert actors == ["dora", "the console"]
    assert [(row[1], row[10]) for row in rows[1:]] == [
        ("dora", "Role of carol changed"),
        ("the console", "A password reset link was sent by email"),
    ]
