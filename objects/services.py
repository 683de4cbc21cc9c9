"""Writes of the Objects area. Two sections: schema (objects and their fields)
and records. Edit only your own section."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.cache import cache

from objects.selectors import object_definition_cache_key

if TYPE_CHECKING:
    from dashboard.api import ServiceClient

# --- schema ---


def object_definition_forget(*, workspace_id: str, object_key: str) -> None:
    """Drop the cached definition so the next read (records page, form) sees an edit at once."""
    cache.delete(object_definition_cache_key(workspace_id=workspace_id, object_key=object_key))


def object_create(*, client: ServiceClient, workspace_id: str, body: dict, idempotency_key: str) -> dict:
    """`POST /v1/objects`; the same idempotency key for a re-posted form, so a
    retried create never makes a twin (the service answers 409 naming it)."""
    created = client.post("/v1/objects", json=body, idempotency_key=idempotency_key)
    object_definition_forget(workspace_id=workspace_id, object_key=created.get("key") or body.get("plural_name", ""))
    return created


def object_update(
    *, client: ServiceClient, workspace_id: str, object_key: str, changes: dict, idempotency_key: str
) -> dict:
    """`PATCH /v1/objects/{key}` with only what changed; drops the cached definition."""
    try:
        return client.patch(f"/v1/objects/{object_key}", json=changes, idempotency_key=idempotency_key)
    finally:
        # Even a failed PATCH may have applied (timeout after commit): never trust the old copy.
        object_definition_forget(workspace_id=workspace_id, object_key=object_key)


# --- records ---
