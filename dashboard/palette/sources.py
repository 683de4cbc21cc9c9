"""The command palette's seam: what an area contributes to it.

An area lists its sources in the `Area` it registers (`palette_sources`,
dashboard/frame/areas.py)::

    PaletteSource(
        label="Records",           # what it searches, as the failure line names it
        search=records_found,      # (request, query, limit) -> [PaletteResult]
        remote=True,               # calls the service: run in a thread, within the palette's budget
    )

`search` gets the person's request (`request.workspace`, `request.user`),
the query as typed (trimmed, at most QUERY_MAX characters, never empty for a
remote source) and how many results it may return; it answers
`PaletteResult`s, whose `kind` is the group they are shown in ("Records",
"Agents"). It never writes. A source that raises is named on a line of its
own ("Records could not be searched (the service is slow)"); the others'
results are shown as usual.

Local sources (the console's database and cache) run in the request's thread,
one after another; remote ones run at once, each in a thread of its own with
a short read budget of its own (`dashboard.palette.search`). A remote source
must therefore not touch the database: what it needs from the request
(`request.workspace.client`, `.id`, `.can_write`) is read before it starts.

Matching is shared so every area ranks alike: `score()` (every typed word
found, the title's start first), `ranked()`, `is_id_shaped()`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.urls import NoReverseMatch, reverse

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest

# How many characters of a query are read: a title is never longer in practice,
# and a pasted page of text must not become a dozen remote searches of it.
QUERY_MAX = 100

# The groups of the core's results, in the person's words.
KIND_PAGES = "Pages"
KIND_ACTIONS = "Actions"


@dataclass(frozen=True)
class PaletteResult:
    title: str
    subtitle: str
    url: str
    kind: str  # the group it is shown in ("Pages", "Records", "Agents")


Search = Callable[["ConsoleRequest", str, int], Sequence[PaletteResult]]


@dataclass(frozen=True)
class PaletteSource:
    label: str  # what it searches: "Records" -> "Records could not be searched (...)"
    search: Search
    # Calls the remote service: runs in a thread of its own within the
    # palette's read budget, and only once a few characters are typed.
    remote: bool = False
    # Reads the workspace: skipped while the person has no working key (the
    # core's pages are still found, so "API keys" is one Ctrl-K away).
    needs_key: bool = True


@dataclass(frozen=True)
class PaletteAction:
    """A page that starts something ("New agent"), found by its label and
    keywords. `writes`: shown only to people who may write here, as the
    page's own button is; `permission`: only to people who have it."""

    label: str
    url_name: str
    keywords: str = ""
    writes: bool = False
    permission: str = ""


def actions_source(label: str, *actions: PaletteAction) -> PaletteSource:
    """A local source of an area's actions (no query, no call): what the
    person may do is filtered as the pages themselves filter it."""

    def search(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
        found = []
        for action in actions:
            if action.permission and not may(request.user, action.permission):
                continue
            if action.writes and not request.workspace.can_write:
                continue
            try:
                url = reverse(action.url_name)
            except NoReverseMatch:
                continue
            found.append((PaletteResult(action.label, action.keywords, url, KIND_ACTIONS), action.keywords))
        return ranked(query, found, limit=limit)

    return PaletteSource(label=label, search=search, needs_key=False)


def may(user: Any, permission: str) -> bool:
    """Whether the person has a console permission (as the pages' own guards ask)."""
    from django.contrib.auth.models import PermissionsMixin

    return isinstance(user, PermissionsMixin) and user.has_perm(permission)


def fold(value: str) -> str:
    """Text as the palette compares it: case and accents folded ("Café" finds "cafe")."""
    decomposed = unicodedata.normalize("NFKD", value)
    return "".join(char for char in decomposed if not unicodedata.combining(char)).casefold()


def words(query: str) -> list[str]:
    return fold(query).split()


def score(query: str, title: str, *more: str) -> int | None:
    """How well `title` (and `more`, e.g. a description) answers the query:
    None when a typed word is found in none of them; else lower is better:
    0 the title starts with the query, 1 a word of the title does, 2 every
    word is somewhere. An empty query matches everything (score 2)."""
    typed = words(query)
    if not typed:
        return 2
    folded_title = fold(title)
    haystack = " ".join([folded_title, *(fold(text) for text in more)])
    if not all(word in haystack for word in typed):
        return None
    phrase = " ".join(typed)
    if folded_title.startswith(phrase):
        return 0
    if re.search(r"(^|\W)" + re.escape(phrase), folded_title):
        return 1
    return 2


def ranked(query: str, candidates: Iterable[tuple[PaletteResult, str]], *, limit: int) -> list[PaletteResult]:
    """The candidates (a result and more text it is found by) that match,
    best first, then in the order given; at most `limit`."""
    scored = []
    for position, (result, more) in enumerate(candidates):
        value = score(query, result.title, result.subtitle, more)
        if value is not None:
            scored.append((value, position, result))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [result for _, _, result in scored[:limit]]


# A UUID (with or without its hyphens) or a prefixed token ("run_8f3a2c91"):
# what the service's ids look like, and nothing a person types as words.
_UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.IGNORECASE)
_TOKEN = re.compile(r"^[a-z]{2,12}_[A-Za-z0-9]{6,64}$")


def is_id_shaped(query: str) -> bool:
    """Whether the query looks like an id the service gives (so a read by id is worth one call)."""
    value = query.strip()
    return bool(_UUID.match(value) or (_TOKEN.match(value) and any(char.isdigit() for char in value)))
