"""Writes of the Objects area: objects and their fields, records,
relationships, column choices. Every remote write takes the Idempotency-Key
minted when its form was rendered."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.cache import cache

from dashboard.api.paths import api_path
from objects.models import ColumnPreference
from objects.selectors import object_definition_cache_key

if TYPE_CHECKING:
    from dashboard.api import ServiceClient


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
        return client.patch(api_path("/v1/objects/{}", object_key), json=changes, idempotency_key=idempotency_key)
    finally:
        # Even a failed PATCH may have applied (timeout after commit): never trust the old copy.
        object_definition_forget(workspace_id=workspace_id, object_key=object_key)


def record_create(*, client: ServiceClient, object_key: str, values: dict, idempotency_key: str) -> dict:
    """`POST /v1/objects/{key}/records`; a retry with the same key returns the first record."""
    return client.post(
        api_path("/v1/objects/{}/records", object_key), json={"values": values}, idempotency_key=idempotency_key
    )


def record_update(
    *, client: ServiceClient, object_key: str, record_id: str, changes: dict, idempotency_key: str
) -> dict:
    """`PATCH` with only the changed keys (`None` clears a field)."""
    return client.patch(
        api_path("/v1/objects/{}/records/{}", object_key, record_id),
        json={"values": changes},
        idempotency_key=idempotency_key,
    )


def record_delete(*, client: ServiceClient, object_key: str, record_id: str, idempotency_key: str) -> None:
    """Deletes the record and every relationship to or from it."""
    client.delete(api_path("/v1/objects/{}/records/{}", object_key, record_id), idempotency_key=idempotency_key)


def relationship_create(
    *,
    client: ServiceClient,
    object_key: str,
    record_id: str,
    relation_key: str,
    target_object: str,
    target_id: str,
    label: str,
    metadata: dict,
    idempotency_key: str,
) -> dict:
    """Links this record (the source) to a target; the same link again returns the existing one."""
    body: dict = {"relation_key": relation_key, "target": {"object": target_object, "id": target_id}}
    if label:
        body["label"] = label
    if metadata:
        body["metadata"] = metadata
    return client.post(
        api_path("/v1/objects/{}/records/{}/relationships", object_key, record_id),
        json=body,
        idempotency_key=idempotency_key,
    )


def column_preference_set(*, user, workspace_id: str, object_key: str, hidden_fields: list[str]):
    """Remembers which columns this person hides in this object's table."""
    preference, _ = ColumnPreference.objects.update_or_create(
        user=user,
        workspace_id=workspace_id,
        object_key=object_key,
        defaults={"hidden_fields": sorted(set(hidden_fields))},
    )
    return preference
