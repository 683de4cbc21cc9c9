"""Fixtures for the stored-key tests: a fresh encryption key, a fake remote
service address for respx, and /v1/me bodies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import use_fake_service

SERVICE = "https://service.example.test"

DEMO_SECRET = "svc_sk_demo0123456789abcdefghijklmnopqrstuvwxyzWXYZ"
OTHER_SECRET = "svc_sk_othr9876543210zyxwvutsrqponmlkjihgfedcbaQRST"


@pytest.fixture(autouse=True)
def key_settings(settings):
    # One attempt per call, so the tests can count remote calls exactly.
    return use_fake_service(settings, SERVICE, max_retries=0)


def me_body(
    *,
    secret: str = DEMO_SECRET,
    workspace_id: str = "7d9f3c1e-0000-4000-8000-000000000001",
    workspace_name: str = "Acme Marketing",
    timezone: str = "Europe/Paris",
    member_id: str = "5a1b2c3d-0000-4000-8000-000000000002",
    role: str = "admin",
    key_id: str = "9e8d7c6b-0000-4000-8000-000000000003",
    key_name: str = "Console key",
    created_at: str = "2026-03-01T22:30:00.123Z",
) -> dict[str, Any]:
    return {
        "workspace": {"id": workspace_id, "name": workspace_name, "timezone": timezone},
        "member": {"id": member_id, "role": role},
        "key": {"id": key_id, "name": key_name, "prefix": secret[:11], "created_at": created_at},
    }


OTHER_ME = {
    "secret": OTHER_SECRET,
    "workspace_id": "7d9f3c1e-0000-4000-8000-00000000aaaa",
    "workspace_name": "Globex Sales",
    "timezone": "America/New_York",
    "member_id": "5a1b2c3d-0000-4000-8000-00000000bbbb",
    "role": "member",
    "key_id": "9e8d7c6b-0000-4000-8000-00000000cccc",
    "key_name": "Sales key",
}


@pytest.fixture
def me() -> Callable[..., dict[str, Any]]:
    return me_body


def error_body(error_type: str, message: str, request_id: str) -> dict[str, Any]:
    return {"error": {"type": error_type, "message": message}, "request_id": request_id}


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
