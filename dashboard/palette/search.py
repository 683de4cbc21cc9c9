"""Running the palette's sources for one query: the core's first, then every
area's in the registry's order; results grouped by kind, at most GROUP_LIMIT
a group; a source that fails or runs out of time named on a line; results of
a group with the same title and second line told apart by their ids' starts.

Time: the remote sources start together, each in a thread of its own (the
request's context copied, so its request id goes with every call) under a
read budget of its own (`separate_read_budget`, PALETTE_READ_SECONDS); the
local ones run meanwhile in this thread. The answer waits at most
PALETTE_WAIT_SECONDS for the remote ones: one still reading by then is
named as slow and left to end within its own budget, unread. So a hung
service costs the person under two seconds and never an error page, and the
quick sources are shown whatever the slow one does.
"""

from __future__ import annotations

import contextvars
import logging
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from django.db import connections
from django.utils.translation import get_language, gettext, gettext_lazy, ngettext

from dashboard.api import errors
from dashboard.api.attempts import separate_read_budget
from dashboard.frame.areas import areas
from dashboard.palette.core import CORE_SOURCES
from dashboard.palette.sources import QUERY_MAX, PaletteResult, PaletteSource, fold

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest

logger = logging.getLogger("dashboard.palette")

GROUP_LIMIT = 8
# Remote sources only once this much is typed: one letter matches every record
# of every object, and costs a search per object for nothing a person reads.
MIN_REMOTE_CHARS = 2
# Each remote source's own read budget, and how long the answer waits for
# them all (a little more, so a source that used its whole budget still
# reports its own timeout rather than being cut off a moment before).
PALETTE_READ_SECONDS = 1.2
PALETTE_WAIT_SECONDS = 1.5
# What the palette says instead of the workspace's results while the key is refused.
KEY_REFUSED_NOTE = gettext_lazy(
    "The service refused your API key, so nothing of this workspace is searched. "
    "Check it or add another on the API keys page."
)
# Threads per query: one per remote source (the areas have a handful).
MAX_THREADS = 8


@dataclass(frozen=True)
class PaletteGroup:
    kind: str
    results: list[PaletteResult]


@dataclass
class PaletteAnswer:
    query: str
    groups: list[PaletteGroup] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # "Records could not be searched (the service is slow)"
    # Why only some sources were asked ("Type 2 characters or more to search records and agents").
    notes: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(len(group.results) for group in self.groups)


def clean_query(raw: str | None) -> str:
    """The query as the sources see it: control characters and lone
    surrogates dropped, white space folded, at most QUERY_MAX characters."""
    value = "".join(
        char
        for char in (raw or "")[: QUERY_MAX * 4]
        if char.isprintable() or char == " "
        if not 0xD800 <= ord(char) <= 0xDFFF
    )
    return " ".join(value.split())[:QUERY_MAX].strip()


def palette_sources() -> list[PaletteSource]:
    """The core's sources, then every area's, in the registry's order."""
    return [*CORE_SOURCES, *(source for area in areas() for source in area.palette_sources)]


def _reason(exc: BaseException) -> str:
    """Why a source found nothing, in a few words (the line's parenthesis)."""
    if isinstance(exc, errors.ApiTimeoutError):
        return "the service is slow"
    if isinstance(exc, errors.RateLimitedError):
        return gettext("the service asks the console to slow down")
    if isinstance(exc, errors.ApiConnectionError):
        return gettext("the service could not be reached")
    if isinstance(exc, errors.ServerError):
        return gettext("the service had an error")
    if isinstance(exc, (errors.PermissionDeniedError, errors.AuthenticationError)):
        return gettext("your key may not read them")
    if isinstance(exc, errors.ApiError):
        return gettext("the service refused the search")
    return gettext("something went wrong")


def _failure(source: PaletteSource, exc: BaseException) -> str:
    if not isinstance(exc, errors.ApiError):
        # A bug, not the service: logged with its traceback, never shown.
        logger.error("palette source %s failed", source.label, exc_info=exc)
    return _not_searched(source, _reason(exc))


def _in_a_sentence(label: str) -> str:
    """A source's label inside a sentence: lower case where the language writes nouns so."""
    return label if (get_language() or "").startswith("de") else label.lower()


def _not_searched(source: PaletteSource, reason: str) -> str:
    """ "Records could not be searched (the service is slow)": the source's
    label (an area's English, translated when the catalog has it) and why."""
    return gettext("%(source)s could not be searched (%(reason)s)") % {
        "source": gettext(source.label),
        "reason": reason,
    }


def _run_remote(source: PaletteSource, request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    try:
        with separate_read_budget(PALETTE_READ_SECONDS):
            return list(source.search(request, query, limit))
    finally:
        # A source that touched the database anyway leaves no connection behind in this thread.
        connections.close_all()


def palette_search(*, request: ConsoleRequest, raw_query: str | None) -> PaletteAnswer:
    query = clean_query(raw_query)
    answer = PaletteAnswer(query=query)
    workspace = request.workspace
    has_key = bool(workspace.working_id)
    if workspace.refused:
        answer.notes.append(str(KEY_REFUSED_NOTE))
    sources = [source for source in palette_sources() if has_key or not source.needs_key]
    remote = [source for source in sources if source.remote]
    local = [source for source in sources if not source.remote]
    found: dict[int, list[PaletteResult]] = {}

    futures: dict[Future[list[PaletteResult]], tuple[int, PaletteSource]] = {}
    pool: ThreadPoolExecutor | None = None
    if remote and len(query) >= MIN_REMOTE_CHARS:
        # Read in this thread, once: the threads share the person's key, client
        # and role (cached on the workspace), and never query the database for them.
        workspace.client  # noqa: B018
        workspace.can_write  # noqa: B018
        pool = ThreadPoolExecutor(max_workers=min(MAX_THREADS, len(remote)), thread_name_prefix="palette")
        for source in remote:
            context = contextvars.copy_context()
            future = pool.submit(context.run, _run_remote, source, request, query, GROUP_LIMIT)
            futures[future] = (sources.index(source), source)
    elif remote:
        # Lower case in English ("records, agents"); German keeps its nouns' capitals.
        labels = ", ".join(_in_a_sentence(gettext(source.label)) for source in remote)
        answer.notes.append(
            ngettext(
                "Type %(count)s character or more to search %(labels)s too.",
                "Type %(count)s characters or more to search %(labels)s too.",
                MIN_REMOTE_CHARS,
            )
            % {"count": MIN_REMOTE_CHARS, "labels": labels}
        )

    for source in local:
        try:
            found[sources.index(source)] = list(source.search(request, query, GROUP_LIMIT))
        except Exception as exc:
            answer.failures.append(_failure(source, exc))

    if pool is not None:
        done, _ = wait(futures, timeout=PALETTE_WAIT_SECONDS)
        for future, (position, source) in futures.items():
            if future not in done:
                answer.failures.append(_not_searched(source, gettext("the service is slow")))
                continue
            error = future.exception()
            if error is not None:
                answer.failures.append(_failure(source, error))
            else:
                found[position] = future.result()
        # A late source ends within its own budget; nobody waits for it.
        pool.shutdown(wait=False, cancel_futures=True)

    groups: dict[str, list[PaletteResult]] = {}
    seen: set[tuple[str, str, str]] = set()
    for position in sorted(found):
        for result in found[position]:
            if (result.kind, result.url, result.title) in seen:
                continue  # the same thing twice (two sources, or two names of one page) is one result
            seen.add((result.kind, result.url, result.title))
            group = groups.setdefault(result.kind, [])
            if len(group) < GROUP_LIMIT:
                group.append(result)
    # A group's kind is its English key ("Records"); the heading is in the person's language.
    answer.groups = [PaletteGroup(gettext(kind), told_apart(results)) for kind, results in groups.items()]
    return answer


def _address_tail(url: str) -> str:
    """The last part of a result's address (a record's or run's id), short."""
    tail = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    return tail[:8]


def told_apart(results: list[PaletteResult]) -> list[PaletteResult]:
    """A group's results where two share their title and their second line
    (three records "Untitled", of one object): each such line also names the
    start of its own id, so the person sees which is which before opening it."""
    lines: dict[tuple[str, str], int] = {}
    for result in results:
        lines[(fold(result.title), result.subtitle)] = lines.get((fold(result.title), result.subtitle), 0) + 1
    told = []
    for result in results:
        tail = _address_tail(result.url)
        if lines[(fold(result.title), result.subtitle)] > 1 and tail:
            subtitle = (
                gettext("%(subtitle)s, id %(id)s…") % {"subtitle": result.subtitle, "id": tail}
                if result.subtitle
                else gettext("Id %(id)s…") % {"id": tail}
            )
            result = replace(result, subtitle=subtitle)
        told.append(result)
    return told
