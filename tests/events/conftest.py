"""Fixtures of outbound events: a workspace's Administrator holding a working
key of it, an endpoint made through the page (its secret as the page showed
it once), and a real local HTTP receiver that answers as each test says: a
status, or no answer in time (tests/http_receiver.py)."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet
from django.urls import reverse

from dashboard.audit.testing import make_administrator
from dashboard.events.models import Endpoint
from dashboard.keys.testing import stored_api_key
from tests.html import one
from tests.http_receiver import HttpReceiver

WORKSPACE = "ws-events"
PASSPHRASE = "a long enough passphrase"


@pytest.fixture(autouse=True)
def events_settings(settings):
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    settings.EVENTS_ALLOW_HTTP = True
    settings.EVENTS_ALLOW_PRIVATE_ADDRESSES = True  # the receiver is on 127.0.0.1
    settings.EVENTS_TIMEOUT = 0.5
    settings.EVENTS_RETRY_SECONDS = [10, 60, 300]
    settings.CONSOLE_BASE_URL = "https://console.example.com"


def key_secret(username: str) -> str:
    return f"svc_sk_{username}0123456789abcdefghijklmnopqrstuv"


def person(django_user_model, username: str, *, admin: bool = True, workspace_id: str = WORKSPACE):
    user = django_user_model.objects.create_user(username=username, password=PASSPHRASE)
    if admin:
        make_administrator(user)
    stored_api_key(user=user, secret=key_secret(username), workspace_id=workspace_id, workspace_name="Events Co")
    return user


@pytest.fixture
def ada(db, django_user_model):
    return person(django_user_model, "ada")


@pytest.fixture
def receiver():
    handle = HttpReceiver()
    try:
        yield handle
    finally:
        handle.stop()


def endpoint_add(client, *, url: str, types: list[str], label: str = "Ops tool", enabled: bool = True):
    """An endpoint added through the page: (the row, the secret the answer showed once)."""
    data = {"label": label, "url": url, "event_types": types}
    if enabled:
        data["enabled"] = "on"
    page = client.post(reverse("events:endpoints"), data)
    assert page.status_code == 200, page.content
    secret = one(page.content, "#made-secret")["value"]
    return Endpoint.objects.get(label=label), secret


@pytest.fixture
def signed_in(client, ada):
    client.force_login(ada)
    return client
