"""One's own name and password while signed in (/accounts/you/, issue #40
item 3): the current password first, the other sessions signed out (this one
kept), wrong current passwords paused, every change audited; no API key needed."""

from __future__ import annotations

import logging

import pytest
from django.test import Client
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.people.models import SignedInSession
from tests.helpers import PASSWORD
from tests.html import one, parse, text_of, texts

NEW_PASSWORD = "a brand new passphrase, 2026"


def signed_in(username: str = "alice", password: str = PASSWORD) -> Client:
    """A browser of its own, signed in through the login form (so its session is recorded)."""
    browser = Client()
    response = browser.post(reverse("login"), {"username": username, "password": password})
    assert response.status_code == 302
    return browser


def change(browser: Client, *, current: str, new: str = NEW_PASSWORD, again: str | None = None):
    return browser.post(
        reverse("own_password"),
        {"old_password": current, "new_password1": new, "new_password2": again or new},
    )


def test_the_page_works_without_a_key_and_marks_what_is_required(user):
    page = parse(signed_in().get(reverse("own_account")).content)

    assert text_of(page.select_one("h1")) == "Your name, password and sessions"
    assert page.select_one("#id_name")["autocomplete"] == "name"
    for name in ("old_password", "new_password1", "new_password2"):
        assert page.select_one(f"label[for=id_{name}] .required-mark"), name
        assert page.select_one(f"#id_{name}")["type"] == "password"


def test_changing_the_password_signs_out_the_other_sessions_and_keeps_this_one(user, caplog):
    caplog.set_level(logging.DEBUG)
    here, phone, laptop = signed_in(), signed_in(), signed_in()
    assert SignedInSession.objects.filter(user=user).count() == 3

    response = change(here, current=PASSWORD)

    assert response.status_code == 302 and response["Location"] == reverse("own_account")
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    page = here.get(reverse("own_account"))
    assert page.status_code == 200
    assert "Your password is changed. 2 other sessions were signed out." in text_of(parse(page.content).body)
    for other in (phone, laptop):
        sent = other.get(reverse("own_account"))
        assert sent.status_code == 302 and sent["Location"].startswith(reverse("login"))
        login_page = other.get(sent["Location"])
        assert "Your password was changed" in text_of(parse(login_page.content).body)
    # This session keeps its row (under its new key): a later "sign out others" still spares it.
    assert list(SignedInSession.objects.filter(user=user).values_list("session_key", flat=True)) == [
        here.session.session_key
    ]
    (entry,) = AuditEntry.objects.filter(action="password_changed")
    assert (entry.kind, entry.user_id, entry.subject_id) == (AuditEntry.KIND_ACCOUNT, user.pk, user.pk)
    assert entry.details == {"other_sessions_signed_out": 2}
    assert NEW_PASSWORD not in caplog.text and PASSWORD not in caplog.text


def test_a_wrong_current_password_changes_nothing(user):
    here = signed_in()

    response = change(here, current="not my password")

    assert response.status_code == 422
    assert texts(response.content, "#id_old_password_error p")
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
    assert not AuditEntry.objects.filter(action="password_changed").exists()
    assert not one(response.content, "#id_old_password").get("value")  # no password is rendered back


def test_mismatched_or_weak_new_passwords_are_said_in_place(user):
    here = signed_in()

    assert texts(change(here, current=PASSWORD, again="something else").content, "#id_new_password2_error p")
    assert texts(change(here, current=PASSWORD, new="12345678").content, "#id_new_password2_error p")
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_wrong_current_passwords_pause_changing_it(user, settings):
    settings.AXES_FAILURE_LIMIT = 3
    here = signed_in()
    for _ in range(3):
        change(here, current="guess")

    response = change(here, current=PASSWORD)

    assert response.status_code == 429
    (message,) = texts(response.content, ".alert-error p")
    assert message.startswith("Too many wrong current passwords, so changing the password is paused.")
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_the_display_name_is_saved_audited_and_shown(user):
    here = signed_in()

    response = here.post(reverse("own_name"), {"name": "  Alice Martin "})

    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.first_name, user.last_name, user.get_full_name()) == ("Alice Martin", "", "Alice Martin")
    assert one(here.get(reverse("own_account")).content, "#id_name")["value"] == "Alice Martin"
    (entry,) = AuditEntry.objects.filter(action="name_changed")
    assert entry.details == {"from": "", "to": "Alice Martin"} and entry.user_id == user.pk

    here.post(reverse("own_name"), {"name": "Alice Martin"})
    assert AuditEntry.objects.filter(action="name_changed").count() == 1  # the same name writes nothing


def test_a_single_sign_on_account_has_no_password_to_change(user):
    here = signed_in()
    user.set_unusable_password()
    user.save()
    here.force_login(user)

    page = parse(here.get(reverse("own_account")).content)

    assert not page.select("#id_old_password")
    assert "single sign-on" in text_of(page.select_one("[aria-labelledby=password-heading]"))
    assert change(here, current="x").status_code == 302


@pytest.mark.parametrize("name", ["own_name", "own_password"])
def test_the_writes_take_only_posts(user, name):
    assert signed_in().get(reverse(name)).status_code == 405
