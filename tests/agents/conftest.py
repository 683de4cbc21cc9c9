"""Fixtures of the Agents tests: a fake service address mocked with respx and
a stored key for it (view tests), or a stored key of the real sandbox
(contract and browser tests)."""

from __future__ import annotations

import os
import re

import pytest
import respx
from cryptography.fernet import Fernet

from dashboard.keys.testing import stored_api_key

# Playwright's sync API runs an event loop in the test thread; the ORM calls
# of browser tests are synchronous and safe here.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

SERVICE_URL = "https://service.agents.test"
SECRET = "svc_sk_agnt0123456789abcdefghijklmnopqrstuvwxyzABCD"


@pytest.fixture(autouse=True)
def agents_service_settings(settings):
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    settings.SERVICE_BASE_URL = SERVICE_URL
    # One attempt per call, so the tests count remote calls exactly.
    settings.SERVICE_MAX_RETRIES = 0
    return settings


@pytest.fixture(autouse=True)
def never_sleep(monkeypatch):
    monkeypatch.setattr("dashboard.api.client.sleep_before_retry", lambda seconds: None)


@pytest.fixture
def remote():
    with respx.mock(base_url=SERVICE_URL, assert_all_called=False) as mock:
        yield mock


@pytest.fixture
def api_key(user):
    return stored_api_key(user=user, secret=SECRET, workspace_name="Acme Marketing", workspace_timezone="Europe/Berlin")


@pytest.fixture(scope="module")
def seeded_sandbox():
    """A real sandbox over HTTP of this module's own: its demo seed (the
    pending approvals of "Lead qualifier" and "Stale deal cleaner") is
    untouched by tests elsewhere that decide approvals in the session one."""
    from sandbox.testing import start_sandbox

    handle = start_sandbox(time_scale=0.002)
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture
def sandbox_client(seeded_sandbox, settings, user, client):
    """The console's test client logged in as a user whose active key is a
    fresh demo-workspace key of the real sandbox."""
    settings.SERVICE_BASE_URL = seeded_sandbox.base_url
    stored_api_key(user=user, secret=seeded_sandbox.mint_key("demo"), workspace_name="Acme Marketing",
                   workspace_timezone="Europe/Berlin")
    client.force_login(user)
    return client


def form_keys(html: str) -> list[str]:
    return re.findall(r'name="idempotency_key" value="([^"]+)"', html)
