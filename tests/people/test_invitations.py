"""Invitations: sending (locmem email), refusals in place, the link (single
use, expiring, revocable, replaced by a re-send), accepting with a password,
and the audit trail of each step."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from dashboard.audit.models import AuditEntry
from dashboard.people.models import Invitation, Person
from dashboard.people.roles import Role
from tests.html import one, select, text_of, texts

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "a long and unusual passphrase 42"


@pytest.fixture(autouse=True)
def base_url(settings):
    settings.CONSOLE_BASE_URL = "https://console.example.com"
    settings.INVITATION_DAYS = 7


def invite(admin_client, email="new.person@example.com", role=Role.APPROVER, **headers):
    return admin_client.post(reverse("people:invite"), {"emails": email, "role": role}, **headers)


def link_in(message) -> str:
    return re.search(r"https://console\.example\.com(/people/join/[\w-]+/)", message.body).group(1)


def test_inviting_sends_one_link_and_audits_it(admin_client, admin):
    response = invite(admin_client)

    assert response.status_code == 302 and response["Location"] == reverse("people:index")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["new.person@example.com"]
    assert "Approver" in message.body and "ada" in message.body
    invitation = Invitation.objects.get()
    assert invitation.role == Role.APPROVER and invitation.invited_by == admin
    assert invitation.expires_at - invitation.created_at > timedelta(days=6, hours=23)
    # Only a hash of the token is stored: the link is nowhere in the database.
    token = link_in(message).rstrip("/").rsplit("/", 1)[1]
    assert token not in invitation.token_hash and len(invitation.token_hash) == 64
    entry = AuditEntry.objects.get(action="invitation_sent")
    assert entry.kind == AuditEntry.KIND_ACCOUNT and entry.user == admin
    assert entry.details["email"] == "new.person@example.com"
    page = admin_client.get(reverse("people:index"))
    assert texts(page.content, "#people tbody th")[0] == "new.person@example.com"


@pytest.mark.parametrize("existing", ["account", "invitation"])
def test_an_address_with_an_account_or_a_pending_invitation_is_refused_in_place(
    admin_client, django_user_model, existing
):
    if existing == "account":
        django_user_model.objects.create_user(username="np", email="New.Person@example.com")
    else:
        invite(admin_client)
        mail.outbox.clear()

    response = invite(admin_client, email="new.person@EXAMPLE.com", HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    form = one(response.content, "form#invite-form")
    message = text_of(one(form, "[role=alert]"))
    assert ("already has an account, np" in message) if existing == "account" else ("already invited" in message)
    # What was typed stays.
    assert text_of(one(form, "textarea[name=emails]")) == "new.person@EXAMPLE.com"
    assert mail.outbox == []
    assert Invitation.objects.count() == (0 if existing == "account" else 1)


def test_a_server_that_refuses_the_message_saves_nothing(admin_client, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2  # nothing listens

    response = invite(admin_client, HTTP_HX_REQUEST="true")

    assert "did not take the message" in text_of(one(response.content, "form#invite-form [role=alert]"))
    assert not Invitation.objects.exists()
    assert not AuditEntry.objects.filter(action="invitation_sent").exists()


def test_accepting_makes_the_account_with_the_role_signs_in_and_asks_for_a_key(admin_client, client):
    invite(admin_client)
    link = link_in(mail.outbox[0])
    admin_client.logout()

    page = client.get(link)
    assert page.status_code == 200
    assert "Approver" in text_of(one(page.content, "main"))
    response = client.post(link, {"name": "New Person", "password1": GOOD_PASSWORD, "password2": GOOD_PASSWORD})

    assert response.status_code == 302 and response["Location"] == reverse("keys:add")
    user = get_user_model().objects.get(username="new.person@example.com")
    assert user.email == "new.person@example.com" and user.first_name == "New Person"
    assert user.check_password(GOOD_PASSWORD)
    assert Person.objects.get(user=user).role == Role.APPROVER
    assert client.get(reverse("keys:add")).status_code == 200  # signed in
    invitation = Invitation.objects.get()
    assert invitation.accepted_user == user and invitation.accepted_at is not None
    entry = AuditEntry.objects.get(action="invitation_accepted")
    assert entry.subject == user and entry.user == user


def test_a_weak_password_is_refused_in_place_and_nothing_is_made(admin_client, client):
    invite(admin_client)
    link = link_in(mail.outbox[0])

    response = client.post(link, {"name": "Kept", "password1": "password", "password2": "password"})

    assert response.status_code == 200
    assert texts(response.content, "#id_password1_error")
    assert one(response.content, "input[name=name]")["value"] == "Kept"
    assert not get_user_model().objects.filter(username="new.person@example.com").exists()
    assert Invitation.objects.get().accepted_at is None


def _accept(client, link):
    return client.post(link, {"password1": GOOD_PASSWORD, "password2": GOOD_PASSWORD})


def _says(response) -> str:
    return text_of(one(response.content, "main"))


def test_a_used_link_says_so_and_makes_nothing(admin_client, client):
    invite(admin_client)
    link = link_in(mail.outbox[0])
    _accept(client, link)
    client.logout()

    again = _accept(client, link)

    assert again.status_code == 410
    assert "already used" in _says(again)
    assert get_user_model().objects.filter(email="new.person@example.com").count() == 1


def test_a_tampered_link_says_so(admin_client, client):
    invite(admin_client)
    link = link_in(mail.outbox[0])
    tampered = link[:-3] + ("A" if link[-3] != "A" else "B") + link[-2:]

    response = _accept(client, tampered)

    assert response.status_code == 404
    assert "did not send this link" in _says(response)
    assert not get_user_model().objects.filter(email="new.person@example.com").exists()


def test_an_expired_link_says_so(admin_client, client):
    invite(admin_client)
    Invitation.objects.update(expires_at=timezone.now() - timedelta(minutes=1))

    response = client.get(link_in(mail.outbox[0]))

    assert response.status_code == 410 and "expired" in _says(response)
    assert not select(response.content, "form input[name=password1]")


def test_revoking_kills_the_link_and_is_audited(admin_client, client, admin):
    invite(admin_client)
    invitation = Invitation.objects.get()

    admin_client.post(reverse("people:invitation_revoke", args=[invitation.pk]))

    response = _accept(client, link_in(mail.outbox[0]))
    assert response.status_code == 410 and "withdrawn" in _says(response)
    assert AuditEntry.objects.get(action="invitation_revoked").user == admin
    # A revoked invitation no longer blocks inviting the address again.
    mail.outbox.clear()
    assert invite(admin_client).status_code == 302 and len(mail.outbox) == 1


def test_sending_again_replaces_the_link(admin_client, client):
    invite(admin_client)
    first = link_in(mail.outbox[0])
    invitation = Invitation.objects.get()
    Invitation.objects.update(expires_at=timezone.now() - timedelta(days=1))  # even an expired one

    admin_client.post(reverse("people:invitation_resend", args=[invitation.pk]))

    assert len(mail.outbox) == 2
    second = link_in(mail.outbox[1])
    assert second != first
    assert client.get(first).status_code == 404
    assert _accept(client, second).status_code == 302
    assert AuditEntry.objects.filter(action="invitation_resent").count() == 1


def test_the_link_uses_the_request_address_without_a_base_url(admin_client, settings):
    settings.CONSOLE_BASE_URL = ""

    invite(admin_client)

    assert "http://testserver/people/join/" in mail.outbox[0].body


def test_invitation_pages_need_an_administrator(client, django_user_model):
    member = django_user_model.objects.create_user(username="meg")
    client.force_login(member)

    response = client.post(reverse("people:invite"), {"emails": "x@example.com", "role": Role.ADMINISTRATOR})

    assert response.status_code == 403
    assert mail.outbox == [] and not Invitation.objects.exists()


def test_an_invitee_whose_role_must_use_two_factor_sets_it_up_before_anything(admin_client):
    from django.test import Client

    from dashboard.accounts.models import RequiredTwoFactorRole

    client = Client()  # the invitee's own browser

    RequiredTwoFactorRole.objects.create(role=Role.APPROVER)
    invite(admin_client)

    response = _accept(client, link_in(mail.outbox[0]))

    assert response.status_code == 302 and response["Location"] == reverse("login_two_factor_setup")
    assert "_auth_user_id" not in client.session  # not signed in until a second factor is set up
    assert get_user_model().objects.filter(username="new.person@example.com").exists()


def test_an_accepted_invitation_cannot_be_sent_again_or_revoked(admin_client, client):
    invite(admin_client)
    invitation = Invitation.objects.get()
    _accept(client, link_in(mail.outbox[0]))
    admin_client.force_login(get_user_model().objects.get(username="ada"))

    resent = admin_client.post(reverse("people:invitation_resend", args=[invitation.pk]), follow=True)
    revoked = admin_client.post(reverse("people:invitation_revoke", args=[invitation.pk]), follow=True)

    assert any("already accepted" in text for text in texts(resent.content, "#messages .alert"))
    assert any("already accepted" in text for text in texts(revoked.content, "#messages .alert"))
    assert len(mail.outbox) == 1
    assert Invitation.objects.get().revoked_at is None


def test_several_addresses_at_once_each_refused_one_named_and_kept(admin_client, django_user_model):
    django_user_model.objects.create_user(username="np", email="taken@example.com")

    response = invite(
        admin_client,
        email="one@example.com, taken@example.com\nnot an@address;two@example.com, ONE@example.com",
        HTTP_HX_REQUEST="true",
    )

    assert sorted(message.to[0] for message in mail.outbox) == ["one@example.com", "two@example.com"]
    assert set(Invitation.objects.values_list("email", flat=True)) == {"one@example.com", "two@example.com"}
    form = one(response.content, "form#invite-form")
    alert = one(form, "[role=alert]")
    assert text_of(alert).startswith("Sent to one@example.com, two@example.com as Approver. 3 addresses not invited")
    assert texts(alert, "li") == [
        "taken@example.com already has an account, np.",
        "“not” is not an email address.",
        "“an@address” is not an email address.",
    ]
    # What was not sent stays in the box to fix; the list of invitations is swapped too.
    assert one(form, "textarea[name=emails]").text.strip() == "taken@example.com\nnot\nan@address"
    people = one(response.content, "#people")
    assert people["hx-swap-oob"] == "outerHTML"
    assert {"one@example.com", "two@example.com"} <= set(texts(people, "tbody th"))


def test_more_than_50_addresses_send_nothing_and_keep_the_text(admin_client):
    typed = ", ".join(f"p{n}@example.com" for n in range(51))

    response = invite(admin_client, email=typed, HTTP_HX_REQUEST="true")

    assert "At most 50 addresses at once: this holds 51" in text_of(one(response.content, "form#invite-form"))
    assert text_of(one(response.content, "textarea[name=emails]")) == typed
    assert mail.outbox == [] and not Invitation.objects.exists()


def test_a_new_link_to_copy_replaces_the_sent_one_and_is_audited(admin_client, admin, client):
    invite(admin_client)
    sent = link_in(mail.outbox[0])
    invitation = Invitation.objects.get()

    response = admin_client.post(reverse("people:invitation_link", args=[invitation.pk]), HTTP_HX_REQUEST="true")

    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    field = one(response.content, "#people input[data-copy-source]")
    assert field["aria-label"] == "Invitation link for new.person@example.com"
    new = field["value"]
    assert new.startswith("https://console.example.com/people/join/") and not new.endswith(sent)
    assert len(mail.outbox) == 1  # no email: the link is handed over another way
    entry = AuditEntry.objects.get(action="invitation_link_made")
    assert entry.user == admin and entry.details == {"email": "new.person@example.com", "invitation": invitation.pk}
    assert new.rsplit("/", 2)[1] not in str(entry.details) + entry.summary
    assert client.get(sent).status_code == 404
    assert _accept(client, new.removeprefix("https://console.example.com")).status_code == 302
