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
found, the title's start first), `ranked()` (which also says why each result
matched, `why_matched()`), `is_id_shaped()`, `id_prefix()`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext, gettext_noop

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest

# How many characters of a query are read: a title is never longer in practice,
# and a pasted page of text must not become a dozen remote searches of it.
QUERY_MAX = 100

# The groups of the core's results, in the person's words: English here (a
# group's key), translated where the groups are made (search.palette_search).
KIND_PAGES = gettext_noop("Pages")
KIND_ACTIONS = gettext_noop("Actions")


@dataclass(frozen=True)
class PaletteResult:
    title: str
    subtitle: str
    url: str
    kind: str  # the group it is shown in ("Pages", "Records", "Agents")
    # Why it answers the query, in words ("Starts with “quo”", "“acme” in its
    # values"): the second line says it beside the subtitle. `ranked()` fills
    # it from where the typed words were found; a source may say it itself.
    why: str = ""


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
            found.append((PaletteResult(gettext(action.label), action.keywords, url, KIND_ACTIONS), action.keywords))
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


def quoted(value: str, most: int = 40) -> str:
    value = value if len(value) <= most else value[: most - 1] + "…"
    return f"“{value}”"


def why_matched(query: str, title: str, subtitle: str = "", more: str = "", *, more_is: str = "its keywords") -> str:
    """Why a result answers the query, in a few words: where the typed words
    were found (the title first, then the subtitle, then `more`, which
    `more_is` names). "" for an empty query (everything is offered)."""
    typed = words(query)
    if not typed:
        return ""
    folded_title = fold(title)
    phrase = " ".join(typed)
    if folded_title.startswith(phrase):
        return f"Starts with {quoted(query.strip())}"
    if all(word in folded_title for word in typed):
        return f"{quoted(query.strip())} in the title"
    folded_subtitle = fold(subtitle)
    elsewhere = [word for word in typed if word not in folded_title]
    where = "the description" if all(word in folded_subtitle for word in elsewhere) else more_is
    return f"{quoted(' '.join(elsewhere))} in {where}"


def ranked(
    query: str, candidates: Iterable[tuple[PaletteResult, str]], *, limit: int, more_is: str = "its keywords"
) -> list[PaletteResult]:
    """The candidates (a result and more text it is found by, which `more_is`
    names) that match, best first, then in the order given; at most `limit`;
    each says why it matched (unless its source said so already)."""
    scored = []
    for position, (result, more) in enumerate(candidates):
        value = score(query, result.title, result.subtitle, more)
        if value is not None:
            if not result.why:
                why = why_matched(query, result.title, result.subtitle, more, more_is=more_is)
                result = replace(result, why=why)
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


# The start of a service id a person copied from a log or a page: 8 or more
# hexadecimal characters of a UUID (its hyphens kept or left out), short of a whole one.
_HEX = re.compile(r"^[0-9a-f]+$", re.IGNORECASE)
ID_PREFIX_MIN = 8


def _hyphenated(hexits: str) -> str:
    return "-".join(part for part in (hexits[:8], hexits[8:12], hexits[12:16], hexits[16:20], hexits[20:]) if part)


def id_prefix(query: str) -> str:
    """The start of an id the query is (lower case, hyphens where a UUID has
    them: "1A2B3C4D5E" -> "1a2b3c4d-5e"), or "" when it is a word, a whole
    id (`is_id_shaped`) or shorter than ID_PREFIX_MIN hexadecimal characters."""
    value = query.strip().lower()
    hexits = value.replace("-", "")
    if not ID_PREFIX_MIN <= len(hexits) < 32 or not _HEX.match(hexits):
        return ""
    shaped = _hyphenated(hexits)
    if value not in (hexits, shaped, shaped + "-"):
        return ""
    return shaped
