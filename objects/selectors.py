"""Reads of the Objects area. Two sections: schema (object definitions, the
cache) and records. Edit only your own section."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.cache import cache

if TYPE_CHECKING:
    from dashboard.api import Page, ServiceClient

# --- schema ---
# A definition is read on every records page; caching it per workspace keeps a
# records page at two remote calls. Edits drop it (objects.services), so the
# short lifetime only bounds staleness from edits made outside this console.
OBJECT_DEFINITION_TTL_SECONDS = 60


def object_definition_cache_key(*, workspace_id: str, object_key: str) -> str:
    return f"objects:definition:{workspace_id}:{object_key}"


def object_definition_get(*, client: ServiceClient, workspace_id: str, object_key: str) -> dict:
    """The object and its fields (`GET /v1/objects/{key}`), from the cache when
    it was read in the last minute. Remote errors (404...) propagate."""
    cache_key = object_definition_cache_key(workspace_id=workspace_id, object_key=object_key)
    definition = cache.get(cache_key)
    if definition is None:
        definition = client.get(f"/v1/objects/{object_key}")
        cache.set(cache_key, definition, OBJECT_DEFINITION_TTL_SECONDS)
    return definition


def object_list(*, client: ServiceClient, kind: str | None, cursor: str | None, limit: int) -> Page:
    """One page of objects (`GET /v1/objects`), each with its fields."""
    params: dict[str, str | int] = {"limit": limit}
    if kind:
        params["kind"] = kind
    if cursor:
        params["cursor"] = cursor
    return client.page("/v1/objects", params=params, item_key="objects")


# --- records ---
