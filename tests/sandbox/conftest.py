"""Fixtures of the sandbox tests: real HTTP clients against `start_sandbox`
(helpers in tests/sandbox/support.py).

Tests that only read the seed, or write objects of their own (unique names),
use the session `sandbox`; tests that count the seed or change shared
demo data start their own.
"""

from __future__ import annotations

import httpx
import pytest

from tests.helpers import running_sandbox
from tests.sandbox.support import http_client


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
