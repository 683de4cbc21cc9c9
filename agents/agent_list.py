"""The agents list as people want it: a total, newest first by default,
sorted by name or status, searched by name.

The service gives none of that: `GET /v1/agents` lists oldest first, pages
by cursor and has no search or sort (api-spec.md, Agents). So the console
reads the workspace's agents in pages of 100 (the contract's largest), at
most AGENT_LIST_MAX_PAGES of them, keeps what it read in the shared cache
for a minute per workspace (the palette reads the same), and sorts, searches
and pages that in memory. A page view costs at most AGENT_LIST_MAX_PAGES
calls when the minute is over and none within it; a write made here forgets
the workspace's list, so a new agent is on the first page at once. When the
budget ends before the service's last page the list is the oldest agents
only, and the page says so (`AgentsRead.complete`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.cache import cache

from agents.reading import read_agent_summary
from agents.selectors import agent_list
from dashboard.api import errors

if TYPE_CHECKING:
    from dashboard.api import ServiceClient

# Agents per page read (the contract's largest) and pages read at most.
AGENT_LIST_PAGE = 100
AGENT_LIST_MAX_PAGES = 20
# The agents list changes rarely (created, renamed, activated): a minute's
# staleness for writes made elsewhere, in exchange for no call at all.
AGENTS_CACHE_SECONDS = 60
# Rows on one page of the console's list.
LIST_PAGE_SIZE = 25

SORTS = [("newest", "Newest first"), ("oldest", "Oldest first"), ("name", "Name"), ("status", "Status")]
# Sorting by status: the ones running first, then those waiting to be turned on.
STATUS_ORDER = {"active": 0, "paused": 1, "draft": 2, "archived": 3}


@dataclass(frozen=True)
class AgentsRead:
    """The agents read, in the service's order (oldest first)."""

    agents: list[dict[str, Any]]
    # The service's last page was reached: nothing older or newer is missing.
    complete: bool
    pages: int
    # A later page failed (not cached: the next view reads again).
    failed: bool = False


def _cache_key(workspace_id: str, archived: bool) -> str:
    digest = hashlib.sha256(workspace_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"agents:list:{'archived' if archived else 'current'}:{digest}"


def agents_read(*, client: ServiceClient, workspace_id: str, archived: bool = False) -> AgentsRead:
    """The workspace's agents (summaries; `archived` those only, as the
    service lists them apart), from the cache when read in the last minute.
    A failure on the first page is raised (the page says why); a failure on
    a later one keeps what was read, as not complete, and is not cached."""
    key = _cache_key(workspace_id, archived)
    kept = cache.get(key)
    if isinstance(kept, AgentsRead):
        return kept
    agents: list[dict[str, Any]] = []
    seen: set[str] = set()
    cursor, pages, complete, failed = None, 0, False, False
    while pages < AGENT_LIST_MAX_PAGES:
        try:
            page = agent_list(
                client=client, status="archived" if archived else None, cursor=cursor, limit=AGENT_LIST_PAGE
            )
        except errors.ApiError:
            if not pages:
                raise
            failed = True
            break
        pages += 1
        for summary in map(read_agent_summary, page.items):
            if summary["id"] and summary["id"] not in seen:  # a page read twice lists nobody twice
                seen.add(summary["id"])
                agents.append(summary)
        if not page.next_cursor or page.next_cursor == cursor:
            complete = True
            break
        cursor = page.next_cursor
    read = AgentsRead(agents=agents, complete=complete, pages=pages, failed=failed)
    if not failed:
        cache.set(key, read, AGENTS_CACHE_SECONDS)
    return read


def agents_kept(*, workspace_id: str) -> list[dict[str, Any]]:
    """The agents read in the last minute, or none: no call."""
    kept = cache.get(_cache_key(workspace_id, False))
    return kept.agents if isinstance(kept, AgentsRead) else []


def agents_read_forget(*, workspace_id: str) -> None:
    """A write changed the workspace's agents: the next list reads them again."""
    cache.delete_many([_cache_key(workspace_id, False), _cache_key(workspace_id, True)])


def agents_sorted(agents: list[dict[str, Any]], *, sort: str) -> list[dict[str, Any]]:
    """`agents` in the service's order (oldest first) sorted as asked. Newest
    first is the service's order reversed: it holds where timestamps are
    missing or equal, and sorts by name and status break ties newest first."""
    newest = list(reversed(agents))
    if sort == "oldest":
        return list(agents)
    if sort == "name":
        return sorted(newest, key=lambda agent: agent["name"].casefold())
    if sort == "status":
        return sorted(newest, key=lambda agent: STATUS_ORDER.get(agent["status"], len(STATUS_ORDER)))
    return newest


def agents_matching(agents: list[dict[str, Any]], *, status: str, query: str) -> list[dict[str, Any]]:
    """The agents of a status (archived ones are read apart) whose name holds
    every word of `query`, in any case."""
    words = query.casefold().split()
    return [
        agent
        for agent in agents
        if (not status or status == "archived" or agent["status"] == status)
        and all(word in agent["name"].casefold() for word in words)
    ]


@dataclass(frozen=True)
class AgentListing:
    rows: list[dict[str, Any]]
    # Agents of the status tab read, and those of them the search matched.
    total: int
    matching: int
    first: int  # 1-based position of the first row shown (0: none)
    last: int
    page: int
    pages: int
    complete: bool
    failed: bool


def agents_listing(read: AgentsRead, *, status: str, query: str, sort: str, page: int) -> AgentListing:
    """One page of the list: the tab's agents, searched, sorted, cut."""
    of_status = agents_matching(read.agents, status=status, query="")
    found = agents_sorted(agents_matching(of_status, status="", query=query), sort=sort)
    pages = max(1, -(-len(found) // LIST_PAGE_SIZE))
    page = min(max(page, 1), pages)
    start = (page - 1) * LIST_PAGE_SIZE
    rows = found[start : start + LIST_PAGE_SIZE]
    return AgentListing(
        rows=rows,
        total=len(of_status),
        matching=len(found),
        first=start + 1 if rows else 0,
        last=start + len(rows),
        page=page,
        pages=pages,
        complete=read.complete,
        failed=read.failed,
    )
