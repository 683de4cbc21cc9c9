"""The key form never loses a paste (issue #40 item 4): the pasted key survives
any other field's error without ever being rendered back, the label may be left
empty (the workspace's name from /v1/me), the required field is marked and the
help links to where a key is made (SERVICE_KEYS_URL)."""

from __future__ import annotations

import logging

import httpx
import pytest
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.keys.models import ApiKey
from tests.helpers import mocked_service
from tests.html import one, parse, text_of, texts
from tests.keys.support import DEMO_SECRET, SERVICE, error_body, me_body

TOO_LONG = "L" * 101


@pytest.fixture
def service():
    with mocked_service(SERVICE) as mock:
        yield mock


def secret_box(html: bytes):
    return one(html, "#add-key-form input[name=secret]")


def test_an_empty_label_is_the_workspace_name_from_me(logged_in_client, user, service):
    route = service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    response = logged_in_client.post(reverse("keys:add"), {"label": "", "secret": DEMO_SECRET})

    assert response.status_code == 302 and route.call_count == 1
    assert ApiKey.objects.get(user=user).label == "Acme Marketing"


def test_adding_a_stored_key_again_without_a_label_keeps_its_label(logged_in_client, user, add_key, service):
    add_key(user, label="Marketing, mine")
    service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    logged_in_client.post(reverse("keys:add"), {"label": "", "secret": DEMO_SECRET})

    assert list(ApiKey.objects.filter(user=user).values_list("label", flat=True)) == ["Marketing, mine"]


def test_a_label_error_keeps_the_key_in_the_browser_and_never_in_the_page_or_logs(logged_in_client, service, caplog):
    caplog.set_level(logging.DEBUG)
    route = service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))

    response = logged_in_client.post(
        reverse("keys:add"), {"label": TOO_LONG, "secret": DEMO_SECRET}, headers={"HX-Request": "true"}
    )

    assert response.status_code == 200 and route.call_count == 0
    assert texts(response.content, "#id_label_error p") == [
        "Ensure this value has at most 100 characters (it has 101)."
    ]
    box = secret_box(response.content)
    # htmx keeps the element the key was pasted into; the answer itself holds no key.
    assert box["hx-preserve"] == "true" and box["id"] == "id_secret" and not box.get("value")
    assert DEMO_SECRET not in response.content.decode()
    assert DEMO_SECRET not in caplog.text
    assert not any(DEMO_SECRET in repr(record.__dict__) for record in caplog.records)
    assert not ApiKey.objects.exists()


def test_a_refused_key_comes_back_empty_for_a_fresh_paste(logged_in_client, service):
    service.get("/v1/me").mock(return_value=httpx.Response(401, json=error_body("authentication", "no", "req_r")))

    response = logged_in_client.post(reverse("keys:add"), {"label": "Acme", "secret": DEMO_SECRET})

    box = secret_box(response.content)
    assert "hx-preserve" not in box.attrs and box["aria-invalid"] == "true" and not box.get("value")
    assert "The service refused this key" in text_of(one(response.content, "#id_secret_error"))


def test_the_required_field_is_marked_and_the_help_links_where_keys_are_made(logged_in_client, settings):
    settings.SERVICE_KEYS_URL = "https://app.example.test/settings/api-keys"

    page = parse(logged_in_client.get(reverse("keys:add")).content)

    secret_label = page.select_one("label[for=id_secret]")
    assert secret_label.select(".required-mark") and "(optional)" not in text_of(secret_label)
    assert page.select_one("#id_secret").has_attr("required")
    label_label = page.select_one("label[for=id_label]")
    assert text_of(label_label) == "Label (optional)" and not label_label.select(".required-mark")
    assert not page.select_one("#id_label").has_attr("required")
    (link,) = page.select("#id_secret_helptext a")
    assert link["href"] == "https://app.example.test/settings/api-keys" and "noopener" in link["rel"]
    assert text_of(page.select_one("#add-key-form p.muted")).endswith("are required.")


def test_the_keys_address_defaults_from_the_product_address():
    from django.conf import settings

    assert settings.SERVICE_KEYS_URL == f"{settings.SERVICE_APP_URL}/settings/api-keys"


def test_storing_and_removing_a_key_are_account_entries_without_the_secret(logged_in_client, user, service):
    service.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))
    logged_in_client.post(reverse("keys:add"), {"label": "Acme", "secret": DEMO_SECRET})
    key = ApiKey.objects.get(user=user)

    logged_in_client.post(reverse("keys:delete", args=[key.pk]))

    stored, removed = AuditEntry.objects.filter(kind=AuditEntry.KIND_ACCOUNT).order_by("id")
    assert (stored.action, removed.action) == ("key_stored", "key_removed")
    assert stored.summary == f"alice stored the API key “Acme” ({key.masked}) of Acme Marketing"
    assert removed.summary == f"alice removed the API key “Acme” ({key.masked}) of Acme Marketing"
    for entry in (stored, removed):
        assert (entry.user_id, entry.subject_id) == (user.pk, user.pk)
        assert entry.details["workspace_id"] == key.workspace_id
        assert DEMO_SECRET not in repr(entry.details) + entry.summary
        assert DEMO_SECRET[11:-4] not in repr(entry.details) + entry.summary
