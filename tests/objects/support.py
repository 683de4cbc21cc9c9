"""Constants and helpers of the Objects view tests: the fake service address
(mocked by `remote`, tests/conftest.py), its key and workspace, and storing
that key for a user."""

from __future__ import annotations

SERVICE_URL = "https://service.objects.test"
SECRET = "svc_sk_objs0123456789abcdefghijklmnopqrstuvwxyzABCD"
WORKSPACE_ID = "ws-objects-1"


def store_api_key(user, secret: str = SECRET, *, workspace_id: str = WORKSPACE_ID, timezone: str = "UTC"):
    from dashboard.keys.testing import stored_api_key

    return stored_api_key(
        user=user,
        secret=secret,
        label="Objects key",
        workspace_id=workspace_id,
        workspace_name="Acme Objects",
        workspace_timezone=timezone,
        key_id=f"key-{user.pk}-{workspace_id}",
    )
