"""Every agent's runs in one list, newest first.

The service lists runs per agent only (`GET /v1/agents/{id}/runs`, newest
first), so the list merges the agents' own pages: each page of the merged
list reads one page of each agent still in play and takes the newest
`PAGE_SIZE` of them all. Where each agent stands (its remote cursor and how
many of that remote page were already shown) is the merged list's cursor,
compressed and opaque, so the one CursorPager pages it like any other.
A run without a start time sorts last (it cannot be placed).
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from agents import selectors
from agents.run_reading import read_run

if TYPE_CHECKING:
    from dashboard.api import ServiceClient

PAGE_SIZE = 25
# Agents whose runs one merged page reads (one remote call each): beyond
# them, the page offers the filter by agent.
MAX_AGENTS = 30
OLDEST = datetime.min.replace(tzinfo=UTC)


@dataclass
class Position:
    """Where one agent's runs stand: the remote page (its cursor) and how many
    of it are already shown."""

    index: int  # the agent's place in the agents list (short, unlike its id)
    cursor: str | None = None
    skip: int = 0


def encode_positions(positions: list[Position]) -> str:
    raw = json.dumps([[p.index, p.cursor, p.skip] for p in positions], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def decode_positions(value: str | None, *, agents: int) -> list[Position] | None:
    """The positions a cursor names, or None for the first page (and for any
    cursor that is not one of ours: a tampered one starts over)."""
    if not value:
        return None
    try:
        raw = zlib.decompressobj().decompress(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)), 65536)
        items = json.loads(raw)
    except (ValueError, binascii.Error, zlib.error):
        return None
    positions = []
    for item in items if isinstance(items, list) else []:
        if (
            isinstance(item, list)
            and len(item) == 3
            and isinstance(item[0], int)
            and 0 <= item[0] < agents
            and (item[1] is None or isinstance(item[1], str))
            and isinstance(item[2], int)
            and 0 <= item[2] <= 100
        ):
            positions.append(Position(item[0], item[1], item[2]))
    return positions or None


def _aware(moment: datetime | None) -> datetime:
    if moment is None:
        return OLDEST
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def runs_across(
    *,
    client: ServiceClient,
    agents: list[dict[str, Any]],
    status: str | None,
    cursor: str | None,
    page_size: int | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """One merged page of runs (read, each with its agent's name) and the
    cursor of the next page (None at the end)."""
    page_size = page_size or PAGE_SIZE
    agents = agents[:MAX_AGENTS]
    positions = decode_positions(cursor, agents=len(agents)) or [Position(index) for index in range(len(agents))]
    candidates: list[tuple[datetime, int, int, dict]] = []
    fetched: dict[int, tuple[int, str | None]] = {}  # index -> (items on the remote page, its next cursor)
    for position in positions:
        agent = agents[position.index]
        page = selectors.run_list(
            client=client, agent_id=agent["id"], status=status, cursor=position.cursor, limit=page_size
        )
        items = [{**read_run(item), "raw": item} for item in page.items][position.skip :]
        fetched[position.index] = (len(page.items), page.next_cursor)
        for order, run in enumerate(items):
            run["agent_id"] = run["agent_id"] or agent["id"]
            run["agent_name"] = agent["name"]
            candidates.append((_aware(run["created_at"]), -position.index, -order, run))
    candidates.sort(key=lambda item: (item[0], item[1], item[2]), reverse=True)
    chosen = candidates[:page_size]
    taken: dict[int, int] = {}
    for _, minus_index, _, _ in chosen:
        taken[-minus_index] = taken.get(-minus_index, 0) + 1
    after = []
    for position in positions:
        count, next_cursor = fetched[position.index]
        shown = position.skip + taken.get(position.index, 0)
        if shown < count:
            after.append(Position(position.index, position.cursor, shown))
        elif next_cursor:
            after.append(Position(position.index, next_cursor, 0))
    return [run for *_, run in chosen], (encode_positions(after) if after else None)
