"""A stored key for tests of any area, written straight to the database (no
/v1/me call): the same columns `api_key_add` fills, encrypted the same way.

    from dashboard.keys.testing import stored_api_key
    key = stored_api_key(user=user, secret="svc_sk_...", workspace_id="ws-1")
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from dashboard.keys.crypto import encrypt_secret
from dashboard.keys.models import ApiKey


def stored_api_key(
    *,
    user: Any,
    secret: str,
    label: str = "Test key",
    workspace_id: str = "ws-test",
    workspace_name: str = "Test Workspace",
    workspace_timezone: str = "UTC",
    member_role: str = "admin",
    member_id: str | None = None,
    key_id: str | None = None,
    is_active: bool = True,
    checked: bool = True,
) -> ApiKey:
    """`checked`: stored as `api_key_add` stores it, just checked by /v1/me
    (a page asks again only KEY_RECHECK_SECONDS later); False for a key
    whose check is due at once."""
    if is_active:
        # The one-active-key-per-user constraint.
        ApiKey.objects.filter(user=user, is_active=True).update(is_active=False)
    return ApiKey.objects.create(
        user=user,
        label=label,
        encrypted_secret=encrypt_secret(secret),
        prefix=secret[: len("svc_sk_") + 2],
        last4=secret[-4:],
        workspace_id=workspace_id,
        workspace_name=workspace_name,
        workspace_timezone=workspace_timezone,
        member_id=member_id or f"member-{user.pk}",
        member_role=member_role,
        key_id=key_id or f"key-{workspace_id}-{secret[-4:]}",
        key_name=label,
        is_active=is_active,
        last_verified_at=timezone.now() if checked else None,
        checked_at=timezone.now() if checked else None,
    )


def store_sandbox_key(user, client, secret: str):
    """Store `secret` as the user's active key, with the identity /v1/me reports."""
    me = client.get("/v1/me")
    return stored_api_key(
        user=user,
        secret=secret,
        label="Sandbox",
        workspace_id=me["workspace"]["id"],
        workspace_name=me["workspace"]["name"],
        workspace_timezone=me["workspace"].get("timezone") or "UTC",
        member_id=me["member"]["id"],
        member_role=me["member"]["role"],
        key_id=me["key"]["id"],
    )
