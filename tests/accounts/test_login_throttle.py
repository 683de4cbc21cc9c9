"""Brute force against the login form (django-axes): wrong passwords lock the
account and the address, the right password is refused while locked, and
works again after the cool-off (time moved on, not slept)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.accounts.lockout import client_address
from tests.helpers import PASSWORD
from tests.html import one, text_of

LIMIT = 5


@pytest.fixture(autouse=True)
def throttle_settings(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)


def log_in(client, username: str, password: str, *, address: str = "203.0.113.7", next_url: str = ""):
    data = {"username": username, "password": password}
    if next_url:
        data["next"] = next_url
    return client.post(reverse("login"), data, REMOTE_ADDR=address)


def later(monkeypatch, **delta) -> None:
    """Move the clock on: axes stamps attempts and computes the cool-off with
    django.utils.timezone.now, imported under these names."""
    moved = timezone.now() + timedelta(**delta)
    for name in ("axes.handlers.proxy.now", "axes.attempts.now", "django.utils.timezone.now"):
        monkeypatch.setattr(name, lambda: moved)


def test_wrong_passwords_then_the_right_one_is_refused_until_the_cool_off_ends(client, user, monkeypatch):
    for attempt in range(LIMIT - 1):
        response = log_in(client, "alice", f"wrong guess {attempt}")
        assert response.status_code == 200
        assert "Please enter a correct username and password" in text_of(one(response.content, ".alert-error"))

    locked = log_in(client, "alice", "wrong guess, the last one")
    assert locked.status_code == 429

    # The right password, while locked: refused, with the same clear page.
    refused = log_in(client, "alice", PASSWORD, next_url="/objects/")
    assert refused.status_code == 429
    alert = text_of(one(refused.content, ".alert-error"))
    assert "Too many failed logins for this account or from this address" in alert
    assert "Try again in 15 minutes" in alert
    # The login form is still there, with what was typed (not the password).
    assert one(refused.content, "input[name=username]")["value"] == "alice"
    assert not one(refused.content, "input[name=password]").get("value")
    assert one(refused.content, "input[name=next]")["value"] == "/objects/"
    assert "_auth_user_id" not in client.session

    # Still locked 14 minutes on (attempts while locked do not extend it).
    later(monkeypatch, minutes=14)
    assert log_in(client, "alice", PASSWORD).status_code == 429

    later(monkeypatch, minutes=16)
    accepted = log_in(client, "alice", PASSWORD)
    assert accepted.status_code == 302 and accepted["Location"] == reverse("home")
    assert client.session["_auth_user_id"] == str(user.pk)


def test_one_address_guessing_many_accounts_is_locked_out_of_all_of_them(client, user, django_user_model):
    django_user_model.objects.create_user(username="carol", password="carol's own long passphrase")
    for attempt in range(LIMIT):
        log_in(client, f"someone-{attempt}", "guess", address="198.51.100.9")

    # The address is locked, even for an account it never tried, even with its right password...
    assert log_in(client, "carol", "carol's own long passphrase", address="198.51.100.9").status_code == 429
    # ...while the account itself is not: from another address it logs in.
    assert log_in(client, "carol", "carol's own long passphrase", address="192.0.2.44").status_code == 302


def test_an_account_under_attack_from_many_addresses_is_locked_for_every_address(client, user):
    for attempt in range(LIMIT):
        log_in(client, "alice", "guess", address=f"198.51.100.{attempt + 1}")

    assert log_in(client, "alice", PASSWORD, address="192.0.2.200").status_code == 429


def test_a_success_clears_the_failures_before_it(client, user):
    for attempt in range(LIMIT - 1):
        log_in(client, "alice", f"typo {attempt}")
    assert log_in(client, "alice", PASSWORD).status_code == 302
    client.logout()

    for attempt in range(LIMIT - 1):
        assert log_in(client, "alice", f"typo again {attempt}").status_code == 200
    assert log_in(client, "alice", PASSWORD).status_code == 302


def test_the_client_address_trusts_forwarded_for_only_behind_the_configured_proxies(rf, settings):
    request = rf.get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7")

    settings.TRUSTED_PROXY_COUNT = 0
    assert client_address(request) == "10.0.0.2"
    settings.TRUSTED_PROXY_COUNT = 1
    # The entry the one trusted proxy appended; "6.6.6.6" was the client's own to forge.
    assert client_address(request) == "203.0.113.7"
