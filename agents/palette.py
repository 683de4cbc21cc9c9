"""What the Agents area adds to the command palette (dashboard/palette/sources.py):

- agents by name: the agents list as the Agents page reads it (cached a
  minute per workspace, agents/agent_list.py), matched here; each agent also offers its runs list;
- a run by id: only for an id-shaped query, one read (`GET /v1/runs/{id}`);
  an unknown id is simply not found;
- approvals waiting, by summary or agent: the inbox's stored items (the
  console's database; the inbox refresh keeps them current), no call;
- "New agent" for people who may write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.urls import reverse

from agents.agent_list import agents_kept, agents_read
from agents.queue import pending_stored
from agents.run_reading import read_run
from agents.selectors import run_get
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


def agents_cached(*, client, workspace_id: str) -> list[dict]:
    """The workspace's agents (summaries), as the agents list reads them: from
    the cache when read in the last minute (agents/agent_list.py)."""
    return agents_read(client=client, workspace_id=workspace_id).agents


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
    names = {agent["id"]: agent["name"] for agent in agents_kept(workspace_id=workspace.id)}
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
