"""Fixtures for the stored-key tests: a fresh encryption key, a fake remote
service address for respx, and /v1/me bodies (constants and helpers in
tests/keys/support.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import running_sandbox, use_fake_service
from tests.keys.support import DEMO_SECRET, SERVICE, me_body


@pytest.fixture(autouse=True)
def key_settings(settings):
    # One attempt per call, so the tests can count remote calls exactly.
    return use_fake_service(settings, SERVICE, max_retries=0)


@pytest.fixture(scope="module")
def own_sandbox():
    """A sandbox server of the module's own: the revoked-member tests revoke
    keys and read the seeded approvals, which no other module may see."""
    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def me() -> Callable[..., dict[str, Any]]:
    return me_body


@pytest.fixture
def add_key(db) -> Callable[..., Any]:
    """Store a key through the real service function, with /v1/me mocked."""
    import httpx
    import respx

    from dashboard.keys.services import api_key_add

    def _add(user, *, label: str = "Acme", secret: str = DEMO_SECRET, **identity: Any):
        with respx.mock(base_url=SERVICE, assert_all_called=True) as mock:
            mock.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body(secret=secret, **identity)))
            return api_key_add(user=user, label=label, secret=secret)

    return _add
