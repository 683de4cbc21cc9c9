"""Deactivation and reactivation, role changes and the last Administrator,
an administrator deleting someone's stored keys: each with its confirmation,
its refusal in place and its audit entry."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.inbox.services import _working_keys_of
from dashboard.jobs import engine
from dashboard.keys.models import ApiKey
from dashboard.keys.testing import stored_api_key
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_track, operations_poll_due
from dashboard.people import services
from dashboard.people.models import Person, SignedInSession
from dashboard.people.roles import Role
from tests.helpers import PASSWORD
from tests.html import one, select, text_of, texts

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_class():
    """Another browser (its own cookies)."""
    from django.test import Client

    return Client


@pytest.fixture
def bob(django_user_model):
    user = django_user_model.objects.create_user(username="bob", password=PASSWORD)
    Person.objects.create(user=user, role=Role.MEMBER)
    return user


def bobs_tab(bob, client_class):
    """Bob signed in through the login page (so his session is recorded)."""
    tab = client_class()
    response = tab.post(reverse("login"), {"username": "bob", "password": PASSWORD})
    assert response.status_code == 302
    return tab


def test_deactivating_asks_first(admin_client, bob):
    response = admin_client.post(reverse("people:deactivate", args=[bob.pk]), HTTP_HX_REQUEST="true")

    assert "Deactivate bob now?" in text_of(one(response.content, "#person-actions [role=alert]"))
    bob.refresh_from_db()
    assert bob.is_active


def test_deactivating_ends_every_session_and_the_open_tab_lands_on_the_login_page(
    admin_client, admin, bob, client_class
):
    page_tab, htmx_tab = bobs_tab(bob, client_class), bobs_tab(bob, client_class)
    assert page_tab.get(reverse("home")).status_code == 200
    assert SignedInSession.objects.filter(user=bob).count() == 2

    response = admin_client.post(reverse("people:deactivate", args=[bob.pk]), {"confirm": "yes"})

    assert response.status_code == 302
    bob.refresh_from_db()
    assert not bob.is_active
    # A full page: to the login page, which says why.
    page = page_tab.get(reverse("home"))
    assert page.status_code == 302 and urlsplit(page["Location"]).path == reverse("login")
    login_page = page_tab.get(page["Location"])
    assert any("deactivated your account" in message for message in texts(login_page.content, "#messages .alert"))
    # An htmx request: HX-Redirect to the login page, where the message waits.
    partial = htmx_tab.get(reverse("inbox:index"), HTTP_HX_REQUEST="true")
    assert urlsplit(partial["HX-Redirect"]).path == reverse("login")
    assert any(
        "deactivated your account" in message
        for message in texts(htmx_tab.get(partial["HX-Redirect"]).content, "#messages .alert")
    )
    # The password no longer signs in.
    assert client_class().post(reverse("login"), {"username": "bob", "password": PASSWORD}).status_code == 200
    entry = AuditEntry.objects.get(action="deactivated")
    assert entry.user == admin and entry.subject == bob and entry.details["sessions_ended"] == 2


def test_reactivating_restores_access(admin_client, admin, bob, client_class):
    admin_client.post(reverse("people:deactivate", args=[bob.pk]), {"confirm": "yes"})

    admin_client.post(reverse("people:reactivate", args=[bob.pk]))

    bob.refresh_from_db()
    assert bob.is_active
    tab = bobs_tab(bob, client_class)
    assert tab.get(reverse("home")).status_code == 200
    # Bob's tab signing in is an entry of its own (signed_in).
    assert [entry.action for entry in AuditEntry.objects.exclude(action="signed_in").order_by("id")] == [
        "deactivated",
        "reactivated",
    ]
    history = admin_client.get(reverse("people:person", args=[bob.pk]))
    assert texts(history.content, "td[data-label=What]") == [
        "bob signed in: An unknown browser from 127.0.0.1",  # his tab, after the reactivation
        "bob reactivated",
        "bob deactivated",
    ]


def test_a_deactivated_persons_keys_are_used_by_nothing(admin, bob, remote):
    key = stored_api_key(user=bob, secret="svc_sk_live_bobsecret0001", workspace_id="ws-1")
    op = operation_track(owner_key=key, kind="studio.turn", remote_id="turn-1", snapshot={"status": "building"})
    assert _working_keys_of("ws-1") == [key]

    services.person_deactivate(user=bob, by=admin)

    # The inbox refresh picks none of them; the key stays stored, encrypted.
    assert _working_keys_of("ws-1") == []
    assert ApiKey.objects.get(pk=key.pk).encrypted_secret == key.encrypted_secret
    # The work the console followed with it stops, saying why; the poller calls nothing.
    op.refresh_from_db()
    assert op.is_final and op.status == TrackedOperation.STATUS_STOPPED
    assert "bob's account was deactivated" in op.last_error
    assert operations_poll_due().polled == 0
    assert remote.calls.call_count == 0


def test_the_poller_stops_a_row_of_a_deactivated_person_it_had_already_claimed(bob, remote):
    from datetime import timedelta

    from django.utils import timezone

    key = stored_api_key(user=bob, secret="svc_sk_live_bobsecret0002", workspace_id="ws-1")
    op = operation_track(owner_key=key, kind="studio.turn", remote_id="turn-2", snapshot={"status": "building"})
    TrackedOperation.objects.filter(pk=op.pk).update(next_poll_at=timezone.now() - timedelta(seconds=1))
    get_user_model().objects.filter(pk=bob.pk).update(is_active=False)  # as if in the same moment

    report = operations_poll_due()

    op.refresh_from_db()
    assert report.polled == 0 and remote.calls.call_count == 0
    assert op.is_final and "deactivated" in op.last_error


def test_role_change_asks_then_applies_from_the_next_request(admin_client, admin, bob, client_class):
    tab = bobs_tab(bob, client_class)
    url = reverse("people:role", args=[bob.pk])

    asked = admin_client.post(url, {"role": Role.ADMINISTRATOR}, HTTP_HX_REQUEST="true")
    assert "from Member to Administrator" in text_of(one(asked.content, "#person-actions [role=alert]"))
    assert Person.objects.get(user=bob).role == Role.MEMBER
    assert tab.get(reverse("people:index")).status_code == 403

    admin_client.post(url, {"role": Role.ADMINISTRATOR, "confirm": "on"})

    assert Person.objects.get(user=bob).role == Role.ADMINISTRATOR
    assert tab.get(reverse("people:index")).status_code == 200
    entry = AuditEntry.objects.get(action="role_changed")
    assert entry.details == {"from": Role.MEMBER, "to": Role.ADMINISTRATOR} and entry.user == admin


def test_the_last_administrator_cannot_be_demoted(admin_client, admin):
    response = admin_client.post(
        reverse("people:role", args=[admin.pk]), {"role": Role.MEMBER, "confirm": "on"}, HTTP_HX_REQUEST="true"
    )

    assert "only active Administrator" in text_of(one(response.content, "#person-actions .alert-error"))
    assert Person.objects.get(user=admin).role == Role.ADMINISTRATOR
    assert not AuditEntry.objects.filter(action="role_changed").exists()


def test_the_last_administrator_cannot_be_deactivated(admin, django_user_model):
    other = django_user_model.objects.create_user(username="root", is_superuser=True, is_active=False)

    with pytest.raises(services.PeopleRefusal, match="only active Administrator"):
        services.person_deactivate(user=admin, by=other)

    admin.refresh_from_db()
    assert admin.is_active


def test_nobody_deactivates_themselves(admin_client, admin, django_user_model):
    second = django_user_model.objects.create_user(username="grace")
    Person.objects.create(user=second, role=Role.ADMINISTRATOR)

    response = admin_client.post(reverse("people:deactivate", args=[admin.pk]), {"confirm": "yes"})

    assert "your own account" in text_of(one(response.content, "#person-actions .alert-error"))
    admin.refresh_from_db()
    assert admin.is_active


def test_an_administrator_deletes_someones_stored_keys_after_confirming(admin_client, admin, bob):
    stored_api_key(user=bob, secret="svc_sk_live_bobsecret0003", label="Marketing")
    stored_api_key(user=bob, secret="svc_sk_live_bobsecret0004", label="Sales", key_id="k4", is_active=False)
    url = reverse("people:keys_delete", args=[bob.pk])

    asked = admin_client.post(url, HTTP_HX_REQUEST="true")
    assert "Delete all 2 stored keys of bob?" in text_of(one(asked.content, "#person-actions .alert-warning"))
    assert ApiKey.objects.filter(user=bob).count() == 2

    admin_client.post(url, {"confirm": "yes"})

    assert not ApiKey.objects.filter(user=bob).exists()
    entry = AuditEntry.objects.get(action="keys_deleted")
    assert len(entry.details["keys"]) == 2 and "svc_sk_live_bobsecret" not in str(entry.details)


@pytest.mark.parametrize(
    ("language", "count", "said"),
    [
        ("de", 1, "1 gespeicherter Schlüssel von bob gelöscht."),
        ("de", 2, "2 gespeicherte Schlüssel von bob gelöscht."),
        ("fr", 1, "1 clé enregistrée de bob supprimée."),
        ("fr", 2, "2 clés enregistrées de bob supprimées."),
    ],
)
def test_keys_deleted_is_said_in_the_administrators_language_with_its_plural(admin_client, bob, language, count, said):
    for number in range(count):
        stored_api_key(user=bob, secret=f"svc_sk_live_bobsecret000{number}", label=f"Key {number}", key_id=f"k{number}")

    page = admin_client.post(
        reverse("people:keys_delete", args=[bob.pk]), {"confirm": "yes"}, follow=True, HTTP_ACCEPT_LANGUAGE=language
    )

    assert said in texts(page.content, "#messages .alert")
    # The audit summary is stored for operators: English, whoever deleted them.
    entry = AuditEntry.objects.get(action="keys_deleted")
    assert entry.summary == f"{count} stored {'API key' if count == 1 else 'API keys'} of bob deleted"


def test_the_person_page_lists_key_labels_never_keys(admin_client, bob):
    stored_api_key(user=bob, secret="svc_sk_live_bobsecret0005", label="Marketing")

    response = admin_client.get(reverse("people:person", args=[bob.pk]))

    assert [text_of(item).split(" (")[0] for item in select(response.content, "#person-actions li")] == ["Marketing"]
    assert "bobsecret" not in response.content.decode()


def test_an_object_job_of_a_deactivated_person_stops_at_its_next_step(bob, remote, monkeypatch):
    import uuid

    from objects import jobs
    from objects.models import ObjectJob

    sent: list[int] = []
    monkeypatch.setattr(engine, "send_step", lambda kind, job_id, countdown=None: sent.append(job_id))
    key = stored_api_key(user=bob, secret="svc_sk_live_bobsecret0006", workspace_id="ws-1")
    job = ObjectJob.objects.create(
        uid=uuid.uuid4(),
        owner_key=key,
        started_by=bob,
        workspace_id="ws-1",
        object_key="deals",
        kind=ObjectJob.KIND_EDIT,
        title="Set stage",
        status=ObjectJob.RUNNING,
        params={"changes": {"stage": "won"}},
    )
    get_user_model().objects.filter(pk=bob.pk).update(is_active=False)

    engine.job_step(jobs.KIND, job.pk)

    job.refresh_from_db()
    assert job.status == ObjectJob.STOPPED and job.resume_status == ObjectJob.RUNNING
    assert "bob's account was deactivated" in job.message
    assert remote.calls.call_count == 0 and sent == []


def test_a_superusers_role_is_not_edited_and_says_why(admin_client, django_user_model):
    root = django_user_model.objects.create_user(username="root", is_superuser=True)

    response = admin_client.post(
        reverse("people:role", args=[root.pk]), {"role": Role.VIEWER, "confirm": "on"}, HTTP_HX_REQUEST="true"
    )

    assert "is a superuser" in text_of(one(response.content, "#person-actions .alert-error"))
    assert not AuditEntry.objects.filter(action="role_changed").exists()


def test_people_pages_work_while_the_administrators_key_is_refused(admin_client, admin, bob):
    from django.utils import timezone

    key = stored_api_key(user=admin, secret="svc_sk_live_adasecret00001")
    ApiKey.objects.filter(pk=key.pk).update(refused_at=timezone.now())

    assert admin_client.get(reverse("people:index")).status_code == 200
    assert admin_client.get(reverse("people:person", args=[bob.pk])).status_code == 200


def test_deactivation_keeps_the_persons_audit_history(admin, bob):
    from dashboard.audit.services import audit_account_event

    audit_account_event(actor=bob, subject=bob, action="two_factor.enabled", summary="Turned on two-factor sign-in")

    services.person_deactivate(user=bob, by=admin)

    assert list(AuditEntry.objects.filter(subject=bob).order_by("id").values_list("action", flat=True)) == [
        "two_factor.enabled",
        "deactivated",
    ]
