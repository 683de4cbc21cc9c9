"""Constants and helpers of the stored-key tests: the fake remote service
address for respx, two secrets, and /v1/me and error bodies."""

from __future__ import annotations

from typing import Any

SERVICE = "https://service.example.test"
# The revoked-member journeys (test_revoked_member.py, test_revoked_browser.py): a seeded
# approval's words, and the re-check interval they set (KEY_RECHECK_SECONDS).
APPROVAL_TEXT = "Delete records in deals."
INTERVAL = 60.0

DEMO_SECRET = "svc_sk_demo0123456789abcdefghijklmnopqrstuvwxyzWXYZ"
OTHER_SECRET = "svc_sk_othr9876543210zyxwvutsrqponmlkjihgfedcbaQRST"


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


def error_body(error_type: str, message: str, request_id: str) -> dict[str, Any]:
    return {"error": {"type": error_type, "message": message}, "request_id": request_id}
