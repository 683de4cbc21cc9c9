"""What the Agents area adds to the command palette (dashboard/palette/sources.py):

- agents by name: the agents list, read once a minute per workspace
  (cached), matched here; each agent also offers its runs list;
- a run by id: only for an id-shaped query, one read (`GET /v1/runs/{id}`);
  an unknown id is simply not found;
- approvals waiting, by summary or agent: the inbox's stored items (the
  console's database; the inbox refresh keeps them current), no call;
- "New agent" for people who may write.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.core.cache import cache
from django.urls import reverse

from agents.queue import pending_stored
from agents.reading import read_agent_summary
from agents.run_reading import read_run
from agents.selectors import agent_list, run_get
from dashboard.api import errors
from dashboard.palette.sources import (
    PaletteAction,
    PaletteResult,
    PaletteSource,
    actions_source,
    is_id_shaped,
    ranked,
)

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest

KIND_AGENTS = "Agents"
KIND_RUNS = "Runs"
KIND_APPROVALS = "Approvals"
# The agents list changes rarely (created, renamed): a minute's staleness is
# what a keystroke may cost in exchange for no call at all.
AGENTS_CACHE_SECONDS = 60
# Pages of 100 agents read, at most, into the cache.
AGENT_PAGES = 5


def _agents_cache_key(workspace_id: str) -> str:
    return "palette:agents:" + hashlib.sha256(workspace_id.encode("utf-8", "surrogatepass")).hexdigest()


def agents_cached(*, client, workspace_id: str) -> list[dict]:
    """The workspace's agents (summaries), from the cache when read in the last minute."""
    key = _agents_cache_key(workspace_id)
    agents = cache.get(key)
    if agents is None:
        agents, cursor = [], None
        for _ in range(AGENT_PAGES):
            page = agent_list(client=client, status=None, cursor=cursor, limit=100)
            agents += [summary for summary in map(read_agent_summary, page.items) if summary["id"]]
            cursor = page.next_cursor
            if not cursor:
                break
        cache.set(key, agents, AGENTS_CACHE_SECONDS)
    return agents


def agents_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    workspace = request.workspace
    agents = agents_cached(client=workspace.client, workspace_id=workspace.id)
    candidates, agent_of = [], {}
    for agent in agents:
        url = reverse("agents:detail", args=[agent["id"]])
        agent_of[url] = agent["id"]
        candidates.append(
            (PaletteResult(agent["name"], f"Agent, {agent['status'] or 'status unknown'}", url, KIND_AGENTS), "")
        )
    found = ranked(query, candidates, limit=limit)
    # "Runs by agent": each agent found also opens its runs list.
    runs_url = reverse("agents:runs")
    runs = [
        PaletteResult(
            f"Runs of {result.title}",
            "Newest first",
            f"{runs_url}?{urlencode({'agent': agent_of[result.url]})}",
            KIND_RUNS,
        )
        for result in found
    ]
    return [*found, *runs]


def run_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    if not is_id_shaped(query):
        return []
    workspace = request.workspace
    try:
        run = read_run(run_get(client=workspace.client, run_id=query.strip()))
    except (errors.NotFoundError, errors.InvalidRequestError, errors.UnprocessableError):
        return []  # not a run's id: nothing to show, not a failure
    if not run["id"]:
        return []
    # The agent's name only if the list is cached already: a run by id costs one call, not two.
    names = {agent["id"]: agent["name"] for agent in cache.get(_agents_cache_key(workspace.id)) or []}
    parts = [f"Run, {run['status']}" if run["status"] else "Run"]
    if names.get(run["agent_id"]):
        parts.append(f"of {names[run['agent_id']]}")
    return [PaletteResult(f"Run {run['id']}", " ".join(parts), reverse("agents:run", args=[run["id"]]), KIND_RUNS)]


def approvals_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    workspace_id = request.workspace.id
    url = reverse("agents:approvals")
    candidates = []
    for _, approval in pending_stored(workspace_id=workspace_id):
        name = approval["agent_name"]
        where = f"{url}?{urlencode({'agent': approval['agent_id']})}" if approval["agent_id"] else url
        subtitle = f"Waiting for a decision, asked by {name}" if name else "Waiting for a decision"
        summary = approval["summary"] or "An action waits for a decision"
        candidates.append((PaletteResult(summary, subtitle, where, KIND_APPROVALS), f"approval {approval['risk']}"))
    return ranked(query, candidates, limit=limit)


PALETTE_SOURCES = (
    actions_source(
        "Agent actions", PaletteAction("New agent", "agents:create", "create draft build agent", writes=True)
    ),
    PaletteSource(label="Agents", search=agents_found, remote=True),
    PaletteSource(label="Runs", search=run_found, remote=True),
    PaletteSource(label="Approvals", search=approvals_found),
)
