"""Cursor pages of list endpoints.

The contract names the array inside a page only for some endpoints ("The
name of the array that holds the records within a page: not shown"), so items
are read tolerantly, in this order (docs/design/core-pages.md, "Reading what
the service sends"):

1. `data`, when it is a list;
2. the caller's `item_key`, else the resource's plural name taken from the
   path (`/v1/objects/leads/records` -> `records`, `/v1/studio/apps` -> `apps`);
3. the single list-valued member of the body (several lists and none of the
   above: the one whose members are all objects, if exactly one is).

A body that is itself a list is taken as the items. Anything else gives no
items rather than an exception: the page still renders, and `Page.data` keeps
the raw body for a generic view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_ID_SEGMENT = re.compile(r"^[0-9a-fA-F-]{32,36}$")


@dataclass(frozen=True)
class Page:
    items: list[dict[str, Any]]
    next_cursor: str | None
    data: Any = field(repr=False)
    request_id: str | None = None

    @property
    def has_more(self) -> bool:
        return bool(self.next_cursor)


def resource_name_from_path(path: str) -> str | None:
    """The last path segment that is not an id: the resource's plural name."""
    segments = [segment for segment in path.split("?", 1)[0].strip("/").split("/") if segment]
    for segment in reversed(segments):
        if segment == "v1" or _ID_SEGMENT.match(segment):
            continue
        return segment
    return None


def items_from_body(body: Any, *, path: str = "", item_key: str | None = None) -> list[dict[str, Any]]:
    if isinstance(body, list):
        return body
    if not isinstance(body, dict):
        return []
    if isinstance(body.get("data"), list):
        return body["data"]
    for key in (item_key, resource_name_from_path(path)):
        if key and isinstance(body.get(key), list):
            return body[key]
    lists = {key: value for key, value in body.items() if isinstance(value, list)}
    if len(lists) == 1:
        return next(iter(lists.values()))
    lists_of_objects = [value for value in lists.values() if value and all(isinstance(item, dict) for item in value)]
    if len(lists_of_objects) == 1:
        return lists_of_objects[0]
    return []


def next_cursor_from_body(body: Any) -> str | None:
    if not isinstance(body, dict):
        return None
    cursor = body.get("next_cursor")
    if cursor in (None, "", False):
        return None
    return str(cursor)
