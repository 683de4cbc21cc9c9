"""Names, not ids: the titles of other records, for links and the
relationships panel.

The contract's record filter matches field values only (no id filter), so
titles are looked up one record at a time, bounded (`MAX_LOOKUPS` per page)
and cached per workspace in Django's cache: a page of links costs one
`get_many` when warm. A write through the console drops the record's entry
(`title_forget`), so a renamed record shows its new name at once; the
lifetime bounds staleness from edits made elsewhere.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.core.cache import cache
from django.urls import NoReverseMatch, reverse

from dashboard.api import errors
from dashboard.api.paths import api_path
from dashboard.web.reading import as_dict, text

if TYPE_CHECKING:
    from dashboard.api import ServiceClient

logger = logging.getLogger("objects.names")

TITLE_TTL_SECONDS = 600
MAX_LOOKUPS = 20
# What a record without a usable title is cached as, so it is not asked for again.
NO_TITLE = ""

# Records of built-in objects that have a page of their own in the console
# (by URL name: areas meet only through URLs, never imports).
SYSTEM_PAGES = {"agents": "agents:detail"}


def title_cache_key(*, workspace_id: str, object_key: str, record_id: str) -> str:
    digest = hashlib.sha256(f"{workspace_id}\n{object_key}\n{record_id}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"objects:title:{digest}"


def values_cache_key(*, workspace_id: str, object_key: str, record_id: str) -> str:
    """A linked record's values as lookups and rollups read them (objects/computed.py)."""
    digest = hashlib.sha256(f"{workspace_id}\n{object_key}\n{record_id}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"objects:values:{digest}"


def title_forget(*, workspace_id: str, object_key: str, record_id: str) -> None:
    """A write through the console: the record's title and values are read anew."""
    cache.delete_many(
        [
            title_cache_key(workspace_id=workspace_id, object_key=object_key, record_id=record_id),
            values_cache_key(workspace_id=workspace_id, object_key=object_key, record_id=record_id),
        ]
    )


def title_of(body: dict, definition: dict) -> str:
    """A record's title: its title field's value (the contract), else a
    `title` or `name` member some implementations add."""
    from objects.fields import title_field_key

    values = as_dict(body.get("values"))
    key = title_field_key(definition)
    for candidate in (values.get(key) if key else None, body.get("title"), body.get("name")):
        if candidate not in (None, "") and not isinstance(candidate, (dict, list)):
            return text(candidate)
    return NO_TITLE


def record_titles(
    *,
    client: ServiceClient,
    workspace_id: str,
    refs: Iterable[tuple[str, str]],
    definition_of,
    max_lookups: int | None = None,
) -> dict[tuple[str, str], str]:
    """Titles of (object key, record id) pairs, cached ones first, then at
    most `max_lookups` reads (MAX_LOOKUPS unless said). `definition_of(object_key)` gives an object's
    definition (the cached one). A record that cannot be read gets no title
    (the caller shows its label or id), and the page still renders."""
    wanted = list(dict.fromkeys((o, r) for o, r in refs if o and r))
    keys = {ref: title_cache_key(workspace_id=workspace_id, object_key=ref[0], record_id=ref[1]) for ref in wanted}
    cached = cache.get_many(list(keys.values()))
    titles = {ref: cached[key] for ref, key in keys.items() if key in cached}
    found: dict[str, str] = {}
    bound = MAX_LOOKUPS if max_lookups is None else max_lookups
    for object_key, record_id in [ref for ref in wanted if ref not in titles][:bound]:
        try:
            definition = definition_of(object_key)
            body = as_dict(client.get(api_path("/v1/objects/{}/records/{}", object_key, record_id)))
        except errors.ApiError as exc:
            if not isinstance(exc, errors.NotFoundError):
                logger.info("No title for %s/%s: %s", object_key, record_id, exc.message)
                continue  # a passing failure: not cached, asked again next time
            body, definition = {}, {}
        title = title_of(body, as_dict(definition))
        titles[(object_key, record_id)] = title
        found[keys[(object_key, record_id)]] = title
    if found:
        cache.set_many(found, TITLE_TTL_SECONDS)
    return titles


def record_url(object_key: str, record_id: str) -> str:
    """Where a linked record opens: its own console page for a built-in
    object that has one, else the record page of this area."""
    page = SYSTEM_PAGES.get(object_key)
    if page:
        try:
            return reverse(page, args=[record_id])
        except NoReverseMatch:
            pass
    return reverse("objects:record", args=[object_key, record_id])
