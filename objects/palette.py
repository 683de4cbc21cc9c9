"""What the Objects area adds to the command palette (dashboard/palette/sources.py):

- objects by name: the workspace's object definitions (`GET /v1/objects`,
  every page, fields included), read once a minute per workspace (cached)
  and matched here; a custom object also offers "New <record>" to people
  who may write;
- records by title, through the service's own search (`search` on
  `GET /v1/objects/{key}/records`: text anywhere in the values): bounded, at
  most RECORD_OBJECTS custom objects are searched, RECORDS_PER_OBJECT records
  each, one after another within the palette's read budget (a slow service
  stops the source, never the palette);
- "New object" for people who may write.

Which objects' records are searched: those whose name the query matches
first (the person may be typing "Deals acme"), then the newest others (the
objects list comes in the order they were made, as the service's lists do:
the last made are the ones being filled now), up to RECORD_OBJECTS. Built-in objects' records belong to
their own features (agents are found by the Agents area), so only custom
objects are searched.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from django.core.cache import cache
from django.urls import NoReverseMatch, reverse
from django.utils.timesince import timesince
from django.utils.translation import ngettext

from dashboard.api.paths import api_path
from dashboard.palette.sources import (
    KIND_ACTIONS,
    PaletteAction,
    PaletteResult,
    PaletteSource,
    actions_source,
    quoted,
    ranked,
    score,
    why_matched,
    words,
)
from dashboard.web.reading import as_dict, as_list, text, when
from objects.access_reads import records_seen
from objects.names import title_of
from objects.selectors import RECORDS_ITEM_KEY, object_list_all

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest

KIND_OBJECTS = "Objects"
KIND_RECORDS = "Records"
# Definitions change rarely and edits elsewhere show within a minute, as on the records pages.
DEFINITIONS_CACHE_SECONDS = 60
RECORD_OBJECTS = 5
RECORDS_PER_OBJECT = 5


def _definitions_key(workspace_id: str) -> str:
    return "palette:objects:" + hashlib.sha256(workspace_id.encode("utf-8", "surrogatepass")).hexdigest()


def definitions_cached(*, client, workspace_id: str) -> list[dict]:
    key = _definitions_key(workspace_id)
    definitions = cache.get(key)
    if definitions is None:
        definitions = [as_dict(item) for item in object_list_all(client=client) if text(as_dict(item).get("key"))]
        cache.set(key, definitions, DEFINITIONS_CACHE_SECONDS)
    return definitions


def _url(name: str, *args: str) -> str:
    """An address of the area, or "" for a key or id no address can hold."""
    try:
        return reverse(name, args=list(args))
    except NoReverseMatch:
        return ""


def _names(definition: dict) -> tuple[str, str]:
    plural = text(definition.get("plural_name")) or text(definition.get("key"))
    singular = text(definition.get("singular_name")) or plural
    return plural, singular


def objects_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    workspace = request.workspace
    definitions = definitions_cached(client=workspace.client, workspace_id=workspace.id)
    candidates = []
    for definition in definitions:
        plural, singular = _names(definition)
        key = text(definition.get("key"))
        fields = len(as_list(definition.get("fields")))
        if definition.get("kind") == "system":
            subtitle = ngettext("Built-in object, %(count)s field", "Built-in object, %(count)s fields", fields)
        else:
            subtitle = ngettext("Object, %(count)s field", "Object, %(count)s fields", fields)
        subtitle %= {"count": fields}
        more = f"{singular} {key} {text(definition.get('description'))}"
        url = _url("objects:records", key)
        if url:
            candidates.append((PaletteResult(plural, subtitle, url, KIND_OBJECTS), more))
    found = ranked(query, candidates, limit=limit)
    if not workspace.can_write:
        return found
    # A new record of an object found, as its records page's own button offers it.
    by_url = {_url("objects:records", text(d.get("key"))): d for d in definitions}
    actions = []
    for result in found:
        definition = by_url[result.url]
        if definition.get("kind") == "system":
            continue
        _, singular = _names(definition)
        url = _url("objects:record_new", text(definition.get("key")))
        if url:
            actions.append(PaletteResult(f"New {singular.lower()}", f"A record of {result.title}", url, KIND_ACTIONS))
    return [*found, *actions]


def _searched(definitions: list[dict], query: str) -> list[dict]:
    custom = [
        d for d in definitions if d.get("kind", "custom") != "system" and _url("objects:records", text(d.get("key")))
    ]
    named = [d for d in custom if score(query, *_names(d)) is not None]
    rest = [d for d in reversed(custom) if d not in named]
    return [*named, *rest][:RECORD_OBJECTS]


def _search_text(query: str, definition: dict) -> str:
    """What to send to the service: the query without the object's own name
    when the person typed it ("deals acme" searches Deals for "acme")."""
    plural, singular = _names(definition)
    own = set(words(plural)) | set(words(singular))
    kept = [word for word in query.split() if word.casefold() not in own]
    return " ".join(kept) or query


def records_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    workspace = request.workspace
    client = workspace.client
    definitions = definitions_cached(client=client, workspace_id=workspace.id)
    found: list[PaletteResult] = []
    for definition in _searched(definitions, query):
        key = text(definition.get("key"))
        _, singular = _names(definition)
        page = client.page(
            api_path("/v1/objects/{}/records", key),
            params={"search": _search_text(query, definition), "limit": RECORDS_PER_OBJECT},
            item_key=RECORDS_ITEM_KEY,
        )
        # The object's access policy, as on its pages (objects/records.py).
        for record in records_seen(workspace=workspace, object_key=key, records=page.items):
            url = _url("objects:record", key, text(record.get("id")))
            if url:
                title = title_of(record, definition) or "Untitled"
                found.append(
                    PaletteResult(title, _record_line(singular, record), url, KIND_RECORDS, why=_why(query, title))
                )
        if len(found) >= limit:
            break
    # The service found them (anywhere in the values): the title's own match comes first.
    exact = [r for r in found if score(query, r.title) is not None]
    return [*exact, *(r for r in found if r not in exact)][:limit]


def _record_line(singular: str, record: dict) -> str:
    """A record's second line: its object and when it last changed (two
    records of one title told apart by it)."""
    changed = when(record.get("updated_at") or record.get("created_at"))
    return f"{singular}, changed {timesince(changed, depth=1)} ago" if changed else singular


def _why(query: str, title: str) -> str:
    # The service's search looks in every value: a title that holds the words says so, else the values do.
    return why_matched(query, title) if score(query, title) is not None else f"{quoted(query)} in its values"


PALETTE_SOURCES = (
    actions_source(
        "Object actions", PaletteAction("New object", "objects:new", "create schema record system", writes=True)
    ),
    PaletteSource(label="Objects", search=objects_found, remote=True),
    PaletteSource(label="Records", search=records_found, remote=True),
)
