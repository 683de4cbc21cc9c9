"""Fixtures of the Objects tests (schema and records): a fake service address
(mocked by `remote`, tests/conftest.py), a stored API key, and an empty cache
for every test. Each side adds its own fixtures in its section; constants and
helpers are in tests/objects/support.py."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from sandbox.fixtures import create_every_type_object, sample_values
from tests.helpers import SCREENSHOTS, use_fake_service
from tests.objects.support import SERVICE_URL, session_cookie, store_api_key


@pytest.fixture(autouse=True)
def objects_service_settings(settings):
    # One attempt per call, so the tests count remote calls exactly.
    return use_fake_service(settings, SERVICE_URL, max_retries=0)


@pytest.fixture(autouse=True)
def empty_cache():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def api_key(user):
    return store_api_key(user)


@pytest.fixture
def paris_console(logged_in_client, user):
    """A logged-in client whose active key's workspace is in Paris (times in CET/CEST)."""
    store_api_key(user, timezone="Europe/Paris")
    return logged_in_client


@pytest.fixture
def console(logged_in_client, api_key):
    """A logged-in browser-less client whose active key points at the mocked service."""
    return logged_in_client


# --- schema ---

# --- records ---


@pytest.fixture
def deals(sandbox, settings, logged_in_client, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    records = [service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)}) for i in range(12)]
    # One record with most values empty.
    records.append(service.post(f"/v1/objects/{obj['key']}/records", json={"values": {"name": "Bare"}}))
    store_sandbox_key(user, service, sandbox.demo_key)
    options = {f["key"]: {o["label"]: o["id"] for o in f.get("options", [])} for f in obj["fields"]}
    return {"key": obj["key"], "options": options, "service": service, "records": records}


@pytest.fixture
def many_deals(deals):
    """The 13 seeded records and 20 more (33 in all; 25 a page)."""
    for i in range(12, 32):
        deals["service"].post(f"/v1/objects/{deals['key']}/records", json={"values": sample_values(i)})
    return deals


@pytest.fixture
def grid(live_server, sandbox, settings, transactional_db, django_user_model, page: Page):
    """An object with one field of every type, 30 records, and a browser logged in."""
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    records = [service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)}) for i in range(30)]
    user = django_user_model.objects.create_user(username="rita", password="grids are fun to test")
    store_sandbox_key(user, service, sandbox.demo_key)
    page.context.add_cookies([session_cookie(user, live_server.url)])
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return {"server": live_server, "key": obj["key"], "records": records, "service": service, "user": user}
