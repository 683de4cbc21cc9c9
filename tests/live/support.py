"""Constants and helpers of the live-update tests, shared by tests/live and
tests/studio: the fake service address, two users' secrets, a Studio turn's
ids and body, and storing a key as if /v1/me had checked it."""

from __future__ import annotations

SERVICE_URL = "https://service.test"
SECRET = "svc_sk_live0123456789abcdefghijklmnopqrstuvwxyzABCD"
OTHER_SECRET = "svc_sk_bobs9876543210zyxwvutsrqponmlkjihgfedcbaWXYZ"
TURN_ID = "3f0c6a52-8f1e-4c1b-9a51-2a7e0d3c9b11"
CONVERSATION_ID = "c0ffee00-1111-4222-8333-444455556666"


def store_key(user, secret: str, workspace: str = "Acme Marketing"):
    """A stored, active API key for `user` (as if checked with /v1/me)."""
    from dashboard.keys.testing import stored_api_key

    return stored_api_key(
        user=user,
        secret=secret,
        label=f"{workspace} key",
        workspace_id=f"ws-{workspace}",
        workspace_name=workspace,
        key_id=f"key-{user.pk}-{workspace}",
    )


def turn_body(status: str = "building", turn_id: str = TURN_ID, **extra) -> dict:
    body = {
        "id": turn_id,
        "object": "studio.turn",
        "status": status,
        "studio": "website",
        "conversation_id": CONVERSATION_ID,
        "message": "",
        "created_at": "2026-11-22T00:00:00.000Z",
    }
    body.update(extra)
    return body
