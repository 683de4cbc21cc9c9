"""Fixtures of the sandbox tests: real HTTP clients against `start_sandbox`.

Tests that only read the seed, or write objects of their own (unique names),
use the session `sandbox`; tests that count the seed or change shared
demo data start their own.
"""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.helpers import running_sandbox


def http_client(handle, key: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=handle.base_url, headers=headers, timeout=30)


@pytest.fixture
def api(sandbox):
    """The demo workspace's admin, over HTTP."""
    with http_client(sandbox, sandbox.demo_key) as client:
        yield client


@pytest.fixture
def client_for(sandbox):
    """`client_for("readonly")`: a client with a fresh key of that kind."""
    clients = []

    def make(kind: str) -> httpx.Client:
        client = http_client(sandbox, sandbox.mint_key(kind))
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture(scope="module")
def fresh_sandbox():
    """A sandbox of this module's own (its seed untouched by other tests)."""
    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def fresh_api(fresh_sandbox):
    with http_client(fresh_sandbox, fresh_sandbox.demo_key) as client:
        yield client


def unique(name: str) -> str:
    return f"{name} {uuid.uuid4().hex[:8]}"


EVERY_TYPE_FIELDS = [
    {"label": "Title", "type": "text", "required": True},
    {"label": "Body", "type": "long_text"},
    {"label": "Count", "type": "number"},
    {"label": "Price", "type": "currency"},
    {"label": "Due", "type": "date"},
    {"label": "Starts at", "type": "datetime"},
    {"label": "Done", "type": "boolean"},
    {"label": "Email", "type": "email"},
    {"label": "Phone", "type": "phone"},
    {"label": "Website", "type": "url"},
    {"label": "Colour", "type": "select", "options": ["Red", {"label": "Green", "color": "#00ff00"}]},
    {"label": "Labels", "type": "multi_select", "options": ["A", "B", "C"]},
    {"label": "Phase", "type": "stage", "options": ["Todo", "Doing", "Done"]},
    {"label": "Picture", "type": "image"},
    {"label": "Attachment", "type": "file"},
]


def make_object(client: httpx.Client, fields=None, **extra) -> dict:
    """Create a custom object with a unique name (every field type by default)."""
    plural = unique("Things")
    body = {"singular_name": "Thing", "plural_name": plural, "fields": fields or EVERY_TYPE_FIELDS, **extra}
    response = client.post("/v1/objects", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def all_pages(client: httpx.Client, path: str, params: dict | None = None, *, between=None) -> list[dict]:
    """Every item over every page; `between(page_number)` runs after each page."""
    items: list[dict] = []
    cursor = None
    pages = 0
    while True:
        query = dict(params or {})
        if cursor:
            query["cursor"] = cursor
        response = client.get(path, params=query)
        assert response.status_code == 200, response.text
        body = response.json()
        items.extend(body["data"])
        pages += 1
        if between:
            between(pages)
        cursor = body["next_cursor"]
        if cursor is None:
            return items
        assert pages < 1000
