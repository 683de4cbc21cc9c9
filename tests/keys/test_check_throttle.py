"""Key checks (GET /v1/me with a key) are throttled per user and per address
in the shared cache: past the allowance the form says so, calls nothing,
stores nothing and keeps the label (the secret is never rendered back)."""

from __future__ import annotations

import re

import httpx
import pytest
from django.urls import reverse

from dashboard.keys.models import ApiKey
from tests.helpers import mocked_service
from tests.html import one, text_of, texts
from tests.keys.support import SERVICE, error_body, me_body


@pytest.fixture
def service():
    with mocked_service(SERVICE) as mock:
        yield mock


@pytest.fixture(autouse=True)
def allowance(settings):
    settings.KEY_CHECKS_PER_USER = 3
    settings.KEY_CHECKS_PER_ADDRESS = 5
    settings.KEY_CHECK_WINDOW_MINUTES = 10


def add(client, secret: str, *, address: str = "203.0.113.7"):
    return client.post(reverse("keys:add"), {"label": "Guess", "secret": secret}, REMOTE_ADDR=address)


def test_guessing_keys_is_stopped_after_the_allowance_with_a_clear_message(logged_in_client, user, service):
    me = service.get("/v1/me").mock(
        return_value=httpx.Response(401, json=error_body("authentication", "Invalid API key", "req_guess"))
    )
    for n in range(3):
        assert "The service refused this key" in text_of(
            one(add(logged_in_client, f"svc_sk_guess{n:030d}").content, ".field-error")
        )

    response = add(logged_in_client, "svc_sk_guess" + "9" * 30)

    assert response.status_code == 200
    assert me.call_count == 3  # the fourth guess never reached the service
    # Not the key's fault: a form-level message, and the pasted key stays in its box (hx-preserve).
    (message,) = texts(response.content, "#add-key-form > .alert-error p")
    assert re.fullmatch(
        r"Too many key checks in a short time\. Try again in \d+ minutes?\. Nothing was stored\.", message
    )
    assert one(response.content, "input[name=label]")["value"] == "Guess"
    secret_box = one(response.content, "input[name=secret]")
    assert not secret_box.get("value") and secret_box["hx-preserve"] == "true"
    assert not ApiKey.objects.filter(user=user).exists()


def test_check_again_counts_too_and_says_so_in_the_row(logged_in_client, user, add_key, service):
    key = add_key(user)  # adding it was the user's first check
    me = service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))
    url = reverse("keys:check", args=[key.pk])
    results = [logged_in_client.post(url, headers={"HX-Request": "true"}) for _ in range(3)]

    last = results[-1]
    assert me.call_count == 2  # the first add and two checks used the allowance of 3
    assert text_of(one(last.content, f"#key-row-{key.pk} .field-error")).startswith(
        "Too many key checks in a short time."
    )


def test_one_address_is_limited_across_accounts(client, django_user_model, service):
    me = service.get("/v1/me").mock(
        return_value=httpx.Response(401, json=error_body("authentication", "Invalid API key", "req_guess"))
    )
    for n in range(3):
        person = django_user_model.objects.create_user(username=f"guesser{n}", password="a long passphrase here")
        client.force_login(person)
        for m in range(2):
            add(client, f"svc_sk_guess{n}{m:030d}", address="198.51.100.20")

    assert me.call_count == 5  # the address's allowance, over three accounts
    response = add(client, "svc_sk_guess" + "7" * 30, address="198.51.100.21")
    assert "The service refused this key" in text_of(one(response.content, "#id_secret_error"))
