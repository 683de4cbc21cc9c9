"""One cursor pager for every list, and the tabs that filter one.

Cursors are opaque and only go forward, so the way back is carried in the
URL: `cursor` is the page shown and `back` (repeated, oldest first; an empty
value is the first page) the cursors of the pages before it. Links can be
shared and the browser's Back button works. Every list uses this format and
the one include, `includes/pager.html`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import QueryDict

# Bounds on what a hand-made URL can ask for: a trail longer than this many
# pages is cut (its oldest pages are forgotten, the page itself still loads).
MAX_TRAIL = 200
MAX_CURSOR_LENGTH = 2048

Pairs = list[tuple[str, str]]


def _pairs(base: Mapping[str, str] | Iterable[tuple[str, str]] | None) -> Pairs:
    """Query pairs without empty values (a filter left at "any" is not in the URL)."""
    items = base.items() if isinstance(base, Mapping) else (base or [])
    return [(str(name), str(value)) for name, value in items if value not in (None, "")]


@dataclass(frozen=True)
class PageLinks:
    """What `includes/pager.html` shows: each link as a plain `href` and,
    when a region is named, the htmx address that swaps only that region."""

    previous: str | None
    next: str | None
    hx_previous: str | None
    hx_next: str | None
    page_number: int


@dataclass(frozen=True)
class CursorPager:
    cursor: str = ""
    back: tuple[str, ...] = ()

    @classmethod
    def from_query(cls, query: QueryDict | Mapping[str, str]) -> CursorPager:
        cursor = str(query.get("cursor") or "")[:MAX_CURSOR_LENGTH]
        if not cursor:
            return cls()
        trail = query.getlist("back") if isinstance(query, QueryDict) else []
        back = tuple(value[:MAX_CURSOR_LENGTH] for value in trail[-MAX_TRAIL:])
        return cls(cursor=cursor, back=back)

    @property
    def page_number(self) -> int:
        return len(self.back) + 1 if self.cursor else 1

    @property
    def remote_cursor(self) -> str | None:
        """The cursor to ask the service for (None: the first page)."""
        return self.cursor or None

    def pairs(self) -> Pairs:
        """The query pairs of this very page."""
        if not self.cursor:
            return []
        return [*(("back", value) for value in self.back), ("cursor", self.cursor)]

    def next_pairs(self, next_cursor: str) -> Pairs:
        return [*(("back", value) for value in (*self.back, self.cursor)), ("cursor", next_cursor)]

    def previous_pairs(self) -> Pairs | None:
        """The page before this one (None on the first page)."""
        if not self.cursor:
            return None
        *trail, previous = self.back or ("",)
        if not previous:
            return []
        return [*(("back", value) for value in trail), ("cursor", previous)]

    def links(
        self,
        base: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        next_cursor: str | None = None,
        *,
        path: str = "",
        region: str | None = None,
    ) -> PageLinks:
        """Links to the pages before and after this one, keeping `base` (the
        list's filters). `path` prefixes them (default: the page itself);
        `region` adds `region=<name>` to the htmx addresses."""
        kept = _pairs(base)
        previous = self.previous_pairs()
        previous_url = _url(path, kept + previous) if previous is not None else None
        next_url = _url(path, kept + self.next_pairs(next_cursor)) if next_cursor else None
        return PageLinks(
            previous=previous_url,
            next=next_url,
            hx_previous=_with_region(previous_url, region),
            hx_next=_with_region(next_url, region),
            page_number=self.page_number,
        )


def _url(path: str, pairs: Pairs) -> str:
    return f"{path}?{urlencode(pairs)}" if pairs else (path or "?")


def _with_region(url: str | None, region: str | None) -> str | None:
    if url is None or not region:
        return url
    separator = "&" if "?" in url and not url.endswith("?") else ("" if url.endswith("?") else "?")
    return f"{url}{separator}{urlencode({'region': region})}"


@dataclass(frozen=True)
class Tab:
    label: str
    url: str
    hx_url: str
    active: bool


def tabs(
    choices: Iterable[tuple[str, str]],
    current: str,
    base: Mapping[str, str] | None = None,
    *,
    param: str = "status",
    region: str | None = None,
) -> list[Tab]:
    """Tabs that filter a list by `param` (one per (value, label) choice),
    keeping `base` (the other filters) and starting from the first page;
    for `includes/tabs.html`."""
    result = []
    for value, label in choices:
        url = _url("", _pairs({**(base or {}), param: value}))
        result.append(Tab(label=label, url=url, hx_url=_with_region(url, region) or url, active=value == current))
    return result


def choice(value: str | None, choices: Iterable[tuple[str, Any]], default: str) -> str:
    """`value` when it is one of the choices' values, else `default`."""
    return value if value is not None and value in dict(choices) else default
