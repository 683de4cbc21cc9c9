"""Fixtures of the Agents tests: a fake service address mocked with respx and
a stored key for it (view tests), or a stored key of the real sandbox
(contract and browser tests). Helpers are in tests/agents/support.py."""

from __future__ import annotations

import httpx
import pytest

from dashboard.audit.testing import make_approver
from dashboard.keys.testing import stored_api_key
from tests.agents.support import (
    AGENT_ID,
    DELETE_ID,
    RUN_ID,
    SECRET,
    agents_page,
    approval,
    full_agent,
    store_demo_key,
)
from tests.helpers import running_sandbox


@pytest.fixture(autouse=True)
def fake_service(fake_service_settings, never_sleep):
    """Every test here: the fake service address (mocked by `remote`; the
    sandbox fixtures point the console elsewhere), retries without sleeping
    (both fixtures in tests/live/fixtures.py, shared with tests/live and
    tests/studio)."""
    return fake_service_settings


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


@pytest.fixture
def sandbox_client(seeded_sandbox, settings, user, client):
    """The console's test client logged in as a user whose active key is a
    fresh demo-workspace key of the real sandbox."""
    settings.SERVICE_BASE_URL = seeded_sandbox.base_url
    store_demo_key(user, seeded_sandbox)
    make_approver(user)
    client.force_login(user)
    return client


@pytest.fixture
def agent_routes(remote, api_key):
    remote.get(f"/v1/agents/{AGENT_ID}").mock(return_value=httpx.Response(200, json=full_agent()))
    runs = remote.get(f"/v1/agents/{AGENT_ID}/runs").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    {
                        "id": RUN_ID,
                        "status": "waiting",
                        "waiting_for": {"kind": "approval"},
                        "event": {"kind": "chat", "message": "hello"},
                        "created_at": "2026-11-21T09:00:00.000Z",
                    }
                ],
                "next_cursor": None,
            },
        )
    )
    return runs


@pytest.fixture
def console(live_server, seeded_sandbox, settings, transactional_db, django_user_model):
    """The console served live for a browser, logged in as "mona", an
    Approver with a demo key of this module's sandbox (browser tests)."""
    from tests.helpers import PASSWORD

    settings.SERVICE_BASE_URL = seeded_sandbox.base_url
    manager = make_approver(django_user_model.objects.create_user(username="mona", password=PASSWORD))
    store_demo_key(manager, seeded_sandbox)
    return live_server


@pytest.fixture
def queue(remote, api_key):
    """The pending queue: a `send` approval then a `destructive` one."""
    listing = remote.get("/v1/approvals").mock(
        return_value=httpx.Response(
            200,
            json={"data": [approval(), approval(DELETE_ID, risk="destructive")], "next_cursor": "cur_2"},
            headers={"X-Request-Id": "req_list"},
        )
    )
    remote.get("/v1/agents").mock(return_value=agents_page())
    # After a decision the run is read again; by default it has resumed and is running.
    remote.get(f"/v1/runs/{RUN_ID}").mock(return_value=httpx.Response(200, json={"id": RUN_ID, "status": "running"}))
    return listing


@pytest.fixture
def approver(user):
    """The logged-in user decides approvals: the Approver console role.
    Tests of who may not decide make them a Member again."""
    return make_approver(user)
