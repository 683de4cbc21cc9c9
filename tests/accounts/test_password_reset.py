"""Password reset by email (locmem backend): the same answer for any
address, the email sent by the worker's task (run inline here), the link
working once, every other session ended by the new password, the limits
per email and per address, and the second factor still asked after."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.outbox.models import OutboxMessage
from tests.helpers import PASSWORD
from tests.html import one, select, text_of

NEW_PASSWORD = "a brand new long passphrase"
LINK = re.compile(r"https?://\S+/accounts/password-reset/\S+/\S+/")


@pytest.fixture(autouse=True)
def reset_settings(settings, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.PASSWORD_RESETS_PER_EMAIL = 3
    settings.PASSWORD_RESETS_PER_ADDRESS = 10
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)


@pytest.fixture
def alice(user):
    user.email = "alice@example.com"
    user.save()
    return user


def ask(client, email: str, *, capture, address: str = "203.0.113.7"):
    """Ask for a link; the after-commit publish runs, and with it (eager Celery) the task."""
    with capture(execute=True):
        return client.post(reverse("password_reset"), {"email": email}, REMOTE_ADDR=address)


def test_the_login_page_links_to_the_reset(client, db):
    page = client.get(reverse("login"))
    assert one(page.content, f"a[href='{reverse('password_reset')}']")


def test_any_address_gets_the_same_answer_and_only_an_account_an_email(
    client, alice, django_capture_on_commit_callbacks
):
    known = ask(client, "Alice@Example.com", capture=django_capture_on_commit_callbacks)
    unknown = ask(client, "nobody@example.com", capture=django_capture_on_commit_callbacks)

    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert known["Location"] == reverse("password_reset_done")
    done = client.get(known["Location"])
    assert "If a console account has that email" in text_of(one(done.content, "#main"))

    # One email, to the account's address; the link is made by the task, never in a task's arguments.
    assert [message.to for message in mail.outbox] == [["alice@example.com"]]
    assert LINK.search(mail.outbox[0].body)
    assert not OutboxMessage.objects.exists()
    assert AuditEntry.objects.filter(subject_id=alice.pk, action="password.reset_sent").count() == 1


def test_the_request_does_the_same_work_for_any_address(client, alice, django_assert_num_queries):
    # The worker is not reached here (nothing commits in a test): the request itself.
    counts = []
    for email in ("alice@example.com", "nobody@example.com"):
        with django_assert_num_queries(1) as captured:  # the outbox row; no lookup of the address
            client.post(reverse("password_reset"), {"email": email})
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]
    assert OutboxMessage.objects.count() == 2


def test_the_link_sets_a_new_password_once_and_ends_other_sessions(client, alice, django_capture_on_commit_callbacks):
    from django.test import Client

    elsewhere = Client()
    elsewhere.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert elsewhere.get(reverse("two_factor")).status_code == 200

    ask(client, "alice@example.com", capture=django_capture_on_commit_callbacks)
    link = LINK.search(mail.outbox[0].body).group(0)
    opened = client.get(link, follow=True)
    form = one(opened.content, "form")
    assert select(form, "input[name=new_password1]")
    set_url = opened.redirect_chain[-1][0]

    done = client.post(set_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}, follow=True)
    assert "every other session of your account has ended" in text_of(one(done.content, "#main"))
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD)
    assert AuditEntry.objects.filter(subject_id=alice.pk, action="password.reset").exists()

    # The session opened with the old password is over at its next request, which says why.
    ended = elsewhere.get(reverse("two_factor"), follow=True)
    assert ended.redirect_chain[-1][0].startswith(reverse("login"))
    assert "Your password was changed with a reset link" in text_of(one(ended.content, "#messages"))
    assert "_auth_user_id" not in elsewhere.session

    # The link worked once.
    reused = client.get(link, follow=True)
    assert "This link does not work" in text_of(one(reused.content, "h1"))


def test_a_weak_new_password_is_refused_in_place(client, alice, django_capture_on_commit_callbacks):
    ask(client, "alice@example.com", capture=django_capture_on_commit_callbacks)
    opened = client.get(LINK.search(mail.outbox[0].body).group(0), follow=True)
    refused = client.post(opened.redirect_chain[-1][0], {"new_password1": "alice", "new_password2": "alice"})
    assert refused.status_code == 200
    assert text_of(one(refused.content, "#id_new_password2_error"))
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


def test_too_many_requests_for_one_email_wait_whatever_the_address(client, alice):
    for _ in range(3):
        assert client.post(reverse("password_reset"), {"email": "alice@example.com"}).status_code == 302
    limited = client.post(reverse("password_reset"), {"email": "ALICE@example.com"}, REMOTE_ADDR="198.51.100.1")
    assert limited.status_code == 429
    assert "Try again in" in text_of(one(limited.content, ".alert-error"))
    assert one(limited.content, "input[name=email]")["value"] == "ALICE@example.com"
    # An unknown address is limited the same way: the limit says nothing about accounts.
    for _ in range(3):
        client.post(reverse("password_reset"), {"email": "nobody@example.com"}, REMOTE_ADDR="198.51.100.2")
    assert (
        client.post(reverse("password_reset"), {"email": "nobody@example.com"}, REMOTE_ADDR="198.51.100.3").status_code
        == 429
    )


def test_one_address_asking_for_many_emails_is_limited(client, db, settings):
    settings.PASSWORD_RESETS_PER_ADDRESS = 4
    answers = [
        client.post(reverse("password_reset"), {"email": f"person{n}@example.com"}).status_code for n in range(5)
    ]
    assert answers == [302, 302, 302, 302, 429]


def test_no_email_for_an_account_without_a_password_or_deactivated(
    client, alice, django_user_model, django_capture_on_commit_callbacks
):
    sso = django_user_model.objects.create_user(username="sso@example.com", email="sso@example.com")
    sso.set_unusable_password()
    sso.save()
    alice.is_active = False
    alice.save()
    ask(client, "sso@example.com", capture=django_capture_on_commit_callbacks)
    ask(client, "alice@example.com", capture=django_capture_on_commit_callbacks)
    assert mail.outbox == []


def test_the_link_uses_the_console_base_url_when_set(client, alice, settings, django_capture_on_commit_callbacks):
    settings.CONSOLE_BASE_URL = "https://console.example.com"
    ask(client, "alice@example.com", capture=django_capture_on_commit_callbacks)
    assert LINK.search(mail.outbox[0].body).group(0).startswith("https://console.example.com/accounts/")


def test_a_task_sent_twice_sends_one_email(alice):
    from dashboard.accounts.services import password_reset_send

    sent = [
        password_reset_send(email="alice@example.com", base_url="https://console.example", request_id="abc")
        for _ in range(2)
    ]
    assert sent == [1, 0]
    assert len(mail.outbox) == 1
    assert LINK.search(mail.outbox[0].body).group(0).startswith("https://console.example/")


def test_a_new_password_alone_ends_other_sessions(alice):
    """Django's own guarantee, beneath the console's ending of recorded
    sessions (a session the records missed ends too): a session keeps a hash
    of the password it was opened with, and a new password no longer matches."""
    from django.test import Client

    elsewhere = Client()
    elsewhere.force_login(alice)
    assert elsewhere.get(reverse("two_factor")).status_code == 200
    alice.set_password(NEW_PASSWORD)
    alice.save()
    assert elsewhere.get(reverse("two_factor")).status_code == 302
    assert "_auth_user_id" not in elsewhere.session
