"""Fixtures of the Agents tests: a fake service address mocked with respx and
a stored key for it (view tests), or a stored key of the real sandbox
(contract and browser tests)."""

from __future__ import annotations

import re

import pytest

from dashboard.keys.testing import stored_api_key
from tests.helpers import running_sandbox

# The fake service address (mocked by `remote`, tests/conftest.py) and no
# sleeping between retries: shared with tests/live and tests/studio.
from tests.live.fixtures import never_sleep, service_settings  # noqa: F401

SECRET = "svc_sk_agnt0123456789abcdefghijklmnopqrstuvwxyzABCD"


@pytest.fixture
def api_key(user):
    return stored_api_key(user=user, secret=SECRET, workspace_name="Acme Marketing", workspace_timezone="Europe/Berlin")


@pytest.fixture(scope="module")
def seeded_sandbox():
    """A real sandbox over HTTP of this module's own: its demo seed (the
    pending approvals of "Lead qualifier" and "Stale deal cleaner") is
    untouched by tests elsewhere that decide approvals in the session one."""
    with running_sandbox() as handle:
        yield handle


def store_demo_key(user, handle):
    """A fresh demo-workspace key of the sandbox `handle`, active for `user`."""
    return stored_api_key(
        user=user, secret=handle.mint_key("demo"), workspace_name="Acme Marketing", workspace_timezone="Europe/Berlin"
    )


@pytest.fixture
def sandbox_client(seeded_sandbox, settings, user, client):
    """The console's test client logged in as a user whose active key is a
    fresh demo-workspace key of the real sandbox."""
    settings.SERVICE_BASE_URL = seeded_sandbox.base_url
    store_demo_key(user, seeded_sandbox)
    client.force_login(user)
    return client


def form_keys(html: str) -> list[str]:
    return re.findall(r'name="idempotency_key" value="([^"]+)"', html)
