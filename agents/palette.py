"""What the Agents area adds to the command palette (dashboard/palette/sources.py):

- agents by name: the agents list as the Agents page reads it (cached a
  minute per workspace, agents/agent_list.py), matched here; each agent also offers its runs list;
- a run by id: only for an id-shaped query, one read (`GET /v1/runs/{id}`);
  an unknown id is simply not found;
- runs by the start of their id (8 characters or more, as a log or a
  message quotes them): the service reads runs by whole id only, so the runs
  the console has read (the insights' facts, the runs it follows) are
  matched in its database, newest first, no call;
- approvals waiting, by summary or agent: the inbox's stored items (the
  console's database; the inbox refresh keeps them current), no call;
- "New agent" for people who may write.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.timesince import timesince

from agents.agent_list import agents_kept, agents_read
from agents.live import RUN_KIND
from agents.models import RunFact
from agents.queue import pending_stored
from agents.run_reading import read_run
from agents.selectors import run_get
from agents.tell_apart import tell_apart
from dashboard.api import errors
from dashboard.palette.sources import (
    PaletteAction,
    PaletteResult,
    PaletteSource,
    actions_source,
    id_prefix,
    is_id_shaped,
    quoted,
    ranked,
)

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest

KIND_AGENTS = "Agents"
KIND_RUNS = "Runs"
KIND_APPROVALS = "Approvals"
# Runs a prefix finds at most (an 8-character prefix is one run in practice).
PREFIX_RUNS = 5


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
    line = _run_line(run["status"], names.get(run["agent_id"], ""), run["created_at"])
    url = reverse("agents:run", args=[run["id"]])
    return [PaletteResult(f"Run {run['id']}", line, url, KIND_RUNS, why="Its whole id")]


def _run_line(status: str, agent: str, started_at) -> str:
    """A run's second line: its status, agent and start, which tell two runs apart."""
    parts = [f"Run, {status}" if status else "Run"]
    if agent:
        parts.append(f"of {agent}")
    line = " ".join(parts)
    return f"{line}, started {timesince(started_at, depth=1)} ago" if started_at else line


def runs_by_prefix(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    prefix = id_prefix(query)
    if not prefix:
        return []
    from dashboard.live.models import TrackedOperation

    workspace_id = request.workspace.id
    facts = list(
        RunFact.objects.filter(workspace_id=workspace_id, run_id__startswith=prefix)
        .order_by("-started_at", "-id")
        .values_list("run_id", "agent_id", "status", "started_at")[: min(limit, PREFIX_RUNS)]
    )
    followed = list(
        TrackedOperation.objects.filter(
            owner_key__workspace_id=workspace_id, kind=RUN_KIND, remote_id__startswith=prefix
        )
        .order_by("-created_at", "-id")
        .values_list("remote_id", "context", "status")[: min(limit, PREFIX_RUNS)]
    )
    runs: dict[str, tuple[str, str, object]] = {}
    for run_id, agent_id, status, started_at in facts:
        runs.setdefault(run_id, (agent_id, status, started_at))
    for run_id, context, status in followed:
        # Its start is the service's, not when the console began following it: unsaid here.
        agent_id = str(context.get("agent_id") or "") if isinstance(context, dict) else ""
        runs.setdefault(run_id, (agent_id, status, None))
    names = {agent["id"]: agent["name"] for agent in agents_kept(workspace_id=workspace_id)}
    why = f"Its id starts with {quoted(prefix)}"
    return [
        PaletteResult(
            f"Run {run_id}",
            _run_line(status, names.get(agent_id, ""), started_at),
            reverse("agents:run", args=[run_id]),
            KIND_RUNS,
            why=why,
        )
        for run_id, (agent_id, status, started_at) in list(runs.items())[: min(limit, PREFIX_RUNS)]
    ]


def approvals_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    workspace_id = request.workspace.id
    url = reverse("agents:approvals")
    pending = [approval for _, approval in pending_stored(workspace_id=workspace_id)]
    # Twins ("Send the email" six times) are told apart by what differs in their input.
    twins = tell_apart(pending)
    candidates = []
    for approval in pending:
        name = approval["agent_name"]
        where = f"{url}?{urlencode({'agent': approval['agent_id']})}" if approval["agent_id"] else url
        parts = [f"Waiting for a decision, asked by {name}" if name else "Waiting for a decision"]
        if isinstance(approval.get("requested_at"), datetime):
            parts.append(f"{timesince(approval['requested_at'], depth=1)} ago")
        if twins.get(approval["id"]):
            parts.append(twins[approval["id"]])
        summary = approval["summary"] or "An action waits for a decision"
        more = f"approval {approval['risk']}"
        candidates.append((PaletteResult(summary, ", ".join(parts), where, KIND_APPROVALS), more))
    return ranked(query, candidates, limit=limit, more_is="its risk")


PALETTE_SOURCES = (
    actions_source(
        "Agent actions", PaletteAction("New agent", "agents:create", "create draft build agent", writes=True)
    ),
    PaletteSource(label="Agents", search=agents_found, remote=True),
    PaletteSource(label="Runs", search=run_found, remote=True),
    PaletteSource(label="Runs by the start of their id", search=runs_by_prefix),
    PaletteSource(label="Approvals", search=approvals_found),
)
