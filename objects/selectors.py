"""Reads of the Objects area: object definitions (cached per workspace),
records, relationships, and this person's column choices. Each remote read
is one call (`record_iter`: one per page)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.cache import cache
from django.db.models import Q

from dashboard.api import errors
from dashboard.api.paths import api_path
from dashboard.web.reading import as_dict
from objects.filters import FilterPlan, remote_query
from objects.links import link_from
from objects.models import ColumnPreference, ObjectAccessPolicy, RecordChange, SavedView

if TYPE_CHECKING:
    from dashboard.api import Page, ServiceClient

# A definition is read on every records page; caching it per workspace keeps a
# records page at two remote calls. Edits drop it (objects.services), so the
# short lifetime only bounds staleness from edits made outside this console.
OBJECT_DEFINITION_TTL_SECONDS = 60


def object_definition_cache_key(*, workspace_id: str, object_key: str) -> str:
    # Hashed: a key from the URL may hold spaces or be long, which some cache backends refuse.
    digest = hashlib.sha256(f"{workspace_id}\n{object_key}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"objects:definition:{digest}"


def object_definition_get(*, client: ServiceClient, workspace_id: str, object_key: str, fresh: bool = False) -> dict:
    """The object and its fields (`GET /v1/objects/{key}`), from the cache when
    it was read in the last minute. `fresh=True` (the settings editor, which
    diffs against it) always reads the service and refreshes the cache.
    Remote errors (404...) propagate."""
    cache_key = object_definition_cache_key(workspace_id=workspace_id, object_key=object_key)
    definition = None if fresh else cache.get(cache_key)
    if definition is None:
        definition = as_dict(client.get(api_path("/v1/objects/{}", object_key)))
        # The address is the object's key: an answer that leaves it out (or
        # sends an empty one) must not leave pages without a key to link by.
        if not isinstance(definition.get("key"), str) or not definition["key"]:
            definition["key"] = object_key
        cache.set(cache_key, definition, OBJECT_DEFINITION_TTL_SECONDS)
    return definition


# An object's access policy is read on every records read: cached (no query
# per page), dropped when an Administrator saves it (objects/services.py).
ACCESS_POLICY_TTL_SECONDS = 300


def access_policy_cache_key(*, workspace_id: str, object_key: str) -> str:
    return "objects:access:" + object_definition_cache_key(workspace_id=workspace_id, object_key=object_key)


def access_policy_get(*, workspace_id: str, object_key: str) -> ObjectAccessPolicy | None:
    """The object's access policy row (objects/access.py reads its `policy`), or None."""
    return ObjectAccessPolicy.objects.filter(workspace_id=workspace_id, object_key=object_key).first()


def access_policy_stored(*, workspace_id: str, object_key: str) -> dict:
    """The object's access policy as stored ({} when none was set), from the cache."""
    cache_key = access_policy_cache_key(workspace_id=workspace_id, object_key=object_key)
    stored = cache.get(cache_key)
    if not isinstance(stored, dict):
        row = access_policy_get(workspace_id=workspace_id, object_key=object_key)
        stored = row.policy if row is not None and isinstance(row.policy, dict) else {}
        cache.set(cache_key, stored, ACCESS_POLICY_TTL_SECONDS)
    return stored


def object_list(*, client: ServiceClient, kind: str | None, cursor: str | None, limit: int) -> Page:
    """One page of objects (`GET /v1/objects`), each with its fields."""
    params: dict[str, str | int] = {"limit": limit}
    if kind:
        params["kind"] = kind
    if cursor:
        params["cursor"] = cursor
    return client.page("/v1/objects", params=params, item_key="objects")


RECORDS_ITEM_KEY = "records"
RELATIONSHIPS_ITEM_KEY = "relationships"
PICKER_LIMIT = 10


def record_list(
    *,
    client: ServiceClient,
    object_key: str,
    filters: dict | None,
    search: str | None,
    sort: str | None,
    cursor: str | None,
    limit: int,
) -> Page:
    """One page of an object's records (`GET /v1/objects/{key}/records`)."""
    params: dict[str, str | int] = {**remote_query(filters=filters, search=search, sort=sort), "limit": limit}
    if cursor:
        params["cursor"] = cursor
    return client.page(api_path("/v1/objects/{}/records", object_key), params=params, item_key=RECORDS_ITEM_KEY)


# A page the console narrows itself is read from the service 100 records at a time.
SCAN_PAGE_SIZE = 100
SCAN_CURSOR_PREFIX = "scan:"


@dataclass
class RecordsPage:
    """One page of the records table. When the console narrows the service's
    pages itself (a condition its exact filter cannot say), `pages_read`
    and `records_read` tell how far it looked; `budget_spent` that it
    stopped at the page budget before finding a full page."""

    items: list[dict]
    next_cursor: str | None
    narrowed: bool = False
    pages_read: int = 1
    records_read: int = 0
    budget_spent: bool = False


def scan_cursor(remote_cursor: str | None, skip: int) -> str:
    """The console's cursor of a narrowed page: the service's page it starts
    in and how many of that page's records the page before already took."""
    return f"{SCAN_CURSOR_PREFIX}{skip}:{remote_cursor or ''}"


def scan_position(cursor: str | None) -> tuple[str | None, int]:
    """(the service's cursor, records to skip in it) from a table cursor;
    a cursor of the plain shape is the service's own."""
    if not cursor or not cursor.startswith(SCAN_CURSOR_PREFIX):
        return cursor or None, 0
    skip, _, remote = cursor[len(SCAN_CURSOR_PREFIX) :].partition(":")
    return remote or None, int(skip) if skip.isdigit() and len(skip) < 4 else 0


def filter_page_budget() -> int:
    """How many of the service's pages one narrowed table page may read."""
    return max(1, int(settings.OBJECTS_FILTER_PAGE_BUDGET))


def record_page(
    *,
    client: ServiceClient,
    object_key: str,
    plan: FilterPlan,
    sort: str | None,
    cursor: str | None,
    limit: int,
    page_budget: int | None = None,
    before_checking: Callable[[list[dict]], object] | None = None,
) -> RecordsPage:
    """One page of the records table for a filter plan. When the service
    answers the whole filter, one call. Otherwise the console reads the
    service's pages (100 records each, `page_budget` or `filter_page_budget()`
    at most) and keeps the records that pass its own checks until the page is
    full; the next page starts right after the last record kept.
    `before_checking` sees each page read before its records are checked
    (the computed columns' values: objects/computed_order.py)."""

    def read(remote_cursor: str | None, size: int) -> Page:
        return record_list(
            client=client,
            object_key=object_key,
            filters=plan.remote,
            search=plan.search,
            sort=sort,
            cursor=remote_cursor,
            limit=size,
        )

    remote_cursor, skip = scan_position(cursor)
    if not plan.narrows:
        page = read(remote_cursor, limit)
        items = [plan.shown(record) for record in page.items]
        return RecordsPage(items=items, next_cursor=page.next_cursor, records_read=len(page.items))
    kept: list[dict] = []
    result = RecordsPage(items=kept, next_cursor=None, narrowed=True, pages_read=0)
    for _ in range(page_budget or filter_page_budget()):
        page = read(remote_cursor, SCAN_PAGE_SIZE)
        result.pages_read += 1
        if before_checking is not None:
            before_checking(page.items[skip:])
        for position in range(skip, len(page.items)):
            result.records_read += 1
            record = page.items[position]
            if not plan.matches(record):
                continue
            kept.append(plan.shown(record))
            if len(kept) == limit:
                if position + 1 < len(page.items):
                    result.next_cursor = scan_cursor(remote_cursor, position + 1)
                elif page.next_cursor:
                    result.next_cursor = scan_cursor(page.next_cursor, 0)
                return result
        skip = 0
        if not page.next_cursor or page.next_cursor == remote_cursor:
            return result
        remote_cursor = page.next_cursor
    # The budget ran out before the page filled: the next page reads on from here.
    result.budget_spent = True
    result.next_cursor = scan_cursor(remote_cursor, 0)
    return result


def record_matching_iter(
    *, client: ServiceClient, object_key: str, plan: FilterPlan, sort: str | None
) -> Iterator[dict]:
    """Every record the filter plan keeps, page after page (the export, a
    bulk action over "every record matching the filter")."""
    for record in record_iter(client=client, object_key=object_key, filters=plan.remote, search=plan.search, sort=sort):
        if plan.matches(record):
            yield plan.shown(record)


def record_iter(
    *, client: ServiceClient, object_key: str, filters: dict | None, search: str | None, sort: str | None
) -> Iterator[dict]:
    """Every record of the filtered, sorted view, page after page (100 a page), for the CSV export."""
    params: dict[str, str | int] = {**remote_query(filters=filters, search=search, sort=sort), "limit": 100}
    return client.paginate(api_path("/v1/objects/{}/records", object_key), params=params, item_key=RECORDS_ITEM_KEY)


def record_get(*, client: ServiceClient, object_key: str, record_id: str) -> dict:
    """One record with all its values."""
    return client.get(api_path("/v1/objects/{}/records/{}", object_key, record_id))


def record_search(*, client: ServiceClient, object_key: str, text: str) -> list[dict]:
    """The first records of an object matching typed text, for the link picker."""
    params: dict[str, str | int] = {"limit": PICKER_LIMIT}
    if text:
        params["search"] = text
    return client.page(api_path("/v1/objects/{}/records", object_key), params=params, item_key=RECORDS_ITEM_KEY).items


def relationship_list(*, client: ServiceClient, object_key: str, record_id: str, workspace_id: str = "") -> list[dict]:
    """Every link to or from a record (built-in objects' records too). The
    relation keys seen are remembered for the workspace (offered when linking)
    and for the object (offered as its table's linked-record columns)."""
    links = list(
        client.paginate(
            api_path("/v1/objects/{}/records/{}/relationships", object_key, record_id),
            params={"limit": 100},
            item_key=RELATIONSHIPS_ITEM_KEY,
        )
    )
    if workspace_id:
        seen = [link.get("relation_key") for link in links if isinstance(link, dict)]
        keys = [k for k in seen if isinstance(k, str) and k]
        relation_keys_remember(workspace_id=workspace_id, keys=keys)
        relation_keys_remember(workspace_id=workspace_id, keys=keys, object_key=object_key)
        # Which object each kind of link reaches: the filter offers that object's fields.
        ends = [link_from(link, object_key=object_key, record_id=record_id) for link in links if isinstance(link, dict)]
        relation_keys_remember(
            workspace_id=workspace_id,
            keys=[f"{end.relation_key}{TARGET_SEPARATOR}{end.object_key}" for end in ends if end.relation_key],
            object_key=TARGETS_SCOPE + object_key,
        )
    return links


# A relation key and the object it reaches, as one remembered entry.
TARGET_SEPARATOR = "\x1f"
TARGETS_SCOPE = "targets\n"


def relation_targets_in_use(*, workspace_id: str, object_key: str) -> list[tuple[str, str]]:
    """(relation key, object key) of the links seen on this object's records (most recent first kept)."""
    entries = relation_keys_in_use(workspace_id=workspace_id, object_key=TARGETS_SCOPE + object_key)
    return [tuple(e.split(TARGET_SEPARATOR, 1)) for e in entries if TARGET_SEPARATOR in e]  # type: ignore[misc]


# The links of a records page's rows: the contract lists links one record at
# a time (no batch read, no filter by id), so a page showing a linked-record
# column costs at most one read per row when cold; each record's list is
# cached for a short while and dropped when the console links or deletes it.
RECORD_LINKS_TTL_SECONDS = 120


def record_links_cache_key(*, workspace_id: str, object_key: str, record_id: str) -> str:
    digest = hashlib.sha256(f"{workspace_id}\n{object_key}\n{record_id}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"objects:links:{digest}"


def record_links_cached(*, workspace_id: str, object_key: str, record_id: str) -> list[dict] | None:
    found = cache.get(record_links_cache_key(workspace_id=workspace_id, object_key=object_key, record_id=record_id))
    return found if isinstance(found, list) else None


def record_links_many(
    *, client: ServiceClient, workspace_id: str, object_key: str, record_ids: list[str]
) -> tuple[dict[str, list[dict]], list[errors.ApiError]]:
    """Each record's links (both directions): cached ones in one `get_many`,
    the others one read each. A record whose links cannot be read is left
    out (and not cached); its error is returned for the page to name."""
    keys = {
        record_id: record_links_cache_key(workspace_id=workspace_id, object_key=object_key, record_id=record_id)
        for record_id in dict.fromkeys(r for r in record_ids if r)
    }
    cached = cache.get_many(list(keys.values()))
    found = {record_id: cached[key] for record_id, key in keys.items() if isinstance(cached.get(key), list)}
    fresh: dict[str, list[dict]] = {}
    failures: list[errors.ApiError] = []
    for record_id in [r for r in keys if r not in found]:
        try:
            links = relationship_list(
                client=client, object_key=object_key, record_id=record_id, workspace_id=workspace_id
            )
        except errors.ApiError as exc:
            failures.append(exc)
            if not isinstance(exc, errors.NotFoundError):
                break  # an outage, a refused key, a rate limit: the other rows would fail alike
            continue
        found[record_id] = fresh[keys[record_id]] = [link for link in links if isinstance(link, dict)]
    if fresh:
        cache.set_many(fresh, RECORD_LINKS_TTL_SECONDS)
    return found, failures


# The contract has no list of relation keys: the console remembers the ones it
# has seen in this workspace (listed or created), most recent first, bounded.
RELATION_KEYS_KEPT = 50
RELATION_KEYS_TTL_SECONDS = 7 * 24 * 3600


def relation_keys_cache_key(*, workspace_id: str, object_key: str = "") -> str:
    """The workspace's relation keys, or (`object_key`) those seen on one object's records."""
    scope = f"{workspace_id}\n{object_key}" if object_key else workspace_id
    digest = hashlib.sha256(scope.encode("utf-8", "surrogatepass")).hexdigest()
    return f"objects:relation-keys:{digest}"


def relation_keys_in_use(*, workspace_id: str, object_key: str = "") -> list[str]:
    keys = cache.get(relation_keys_cache_key(workspace_id=workspace_id, object_key=object_key))
    return sorted(k for k in keys if isinstance(k, str)) if isinstance(keys, list) else []


def relation_keys_remember(*, workspace_id: str, keys: list[str], object_key: str = "") -> None:
    if not keys:
        return
    cache_key = relation_keys_cache_key(workspace_id=workspace_id, object_key=object_key)
    known = cache.get(cache_key)
    known = known if isinstance(known, list) else []
    merged = list(dict.fromkeys([*keys, *known]))[:RELATION_KEYS_KEPT]
    if merged != known:
        cache.set(cache_key, merged, RELATION_KEYS_TTL_SECONDS)


def column_hidden_fields(*, user, workspace_id: str, object_key: str) -> list[str]:
    """The field keys this person hides in this object's table (a local read)."""
    preference = ColumnPreference.objects.filter(user=user, workspace_id=workspace_id, object_key=object_key).first()
    return list(preference.hidden_fields) if preference else []


def object_list_all(*, client: ServiceClient) -> list[dict]:
    """Every object (custom and built-in), every page: what a record can link to."""
    return list(client.paginate("/v1/objects", params={"limit": 100}, item_key="objects"))


def _visible_views(*, user, workspace_id: str, object_key: str):
    return SavedView.objects.filter(workspace_id=workspace_id, object_key=object_key).filter(
        Q(owner=user) | Q(shared=True)
    )


def saved_views(*, user, workspace_id: str, object_key: str) -> list[SavedView]:
    """This person's views of an object and the ones shared in the workspace."""
    return list(_visible_views(user=user, workspace_id=workspace_id, object_key=object_key).select_related("owner"))


def saved_view_get(*, user, workspace_id: str, object_key: str, pk: int) -> SavedView | None:
    """One view this person may open (theirs or shared), or None."""
    return _visible_views(user=user, workspace_id=workspace_id, object_key=object_key).filter(pk=pk).first()


def column_preference(*, user, workspace_id: str, object_key: str) -> ColumnPreference | None:
    return ColumnPreference.objects.filter(user=user, workspace_id=workspace_id, object_key=object_key).first()


HISTORY_SHOWN = 50


def record_history(*, workspace_id: str, object_key: str, record_id: str) -> list[RecordChange]:
    """The latest changes made to a record through the console, newest first."""
    return list(
        RecordChange.objects.filter(workspace_id=workspace_id, object_key=object_key, record_id=record_id)[
            :HISTORY_SHOWN
        ]
    )


# The entries after one that the record's past is rebuilt through
# (objects/revert.py): more than this and the page says its view is partial.
NEWER_CHANGES_READ = 500


def record_changes_after(*, change: RecordChange) -> tuple[list[RecordChange], bool]:
    """The record's entries newer than `change`, newest first, and whether
    there were more than were read."""
    newer = list(
        RecordChange.objects.filter(
            workspace_id=change.workspace_id,
            object_key=change.object_key,
            record_id=change.record_id,
            pk__gt=change.pk,
        ).order_by("-pk")[: NEWER_CHANGES_READ + 1]
    )
    return newer[:NEWER_CHANGES_READ], len(newer) > NEWER_CHANGES_READ


def record_change_get(*, workspace_id: str, object_key: str, record_id: str, pk: int) -> RecordChange | None:
    return RecordChange.objects.filter(
        pk=pk, workspace_id=workspace_id, object_key=object_key, record_id=record_id
    ).first()
