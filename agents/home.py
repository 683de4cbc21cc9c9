"""What the Agents area adds to the home page (dashboard/frame/home.py):
runs that failed or wait, of the last 24 hours, and the "Chat with an agent"
quick action. The console's database only:

- the workspace's runs the inbox's refresh stored (`WaitingItem` rows of
  this area's inbox source: whatever woke them, a webhook or a schedule);
- the person's own chat messages (a run a list tracked is not theirs).

Every age and the window are the service's times of the run (its
`created_at`, `completed_at`), never when the console began following it.

Agents are named from what the same refresh stored (its names row); the
picker offers the agents the person chatted with lately first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.urls import NoReverseMatch, reverse

from agents.inbox import NAMES_KIND, SOURCE
from agents.live import INVOCATION_KIND
from agents.run_reading import read_run
from dashboard.frame.home import HomeAction, HomeChoice, HomeSection, HomeViewer, waited_words
from dashboard.inbox.selectors import stored_items
from dashboard.inbox.sources import KIND_FAILED, KIND_WAITING
from dashboard.live.models import TrackedOperation
from dashboard.web.reading import as_dict, text

# The window of the section: older failures have been seen; a run still
# waiting for a person after that stays in the inbox ("What needs you").
WINDOW = timedelta(hours=24)
RUNS_SHOWN = 6
# Agents offered by the chat picker.
AGENTS_OFFERED = 6
FAILED_STATUSES = ("failed", TrackedOperation.STATUS_STOPPED)


@dataclass(frozen=True)
class RunRow:
    run_id: str
    status: str  # "failed" or "waiting"
    agent_name: str
    what: str  # the error, or what it waits for
    at: datetime | None
    ago: str
    url: str

    @property
    def status_label(self) -> str:
        return "Failed" if self.status == KIND_FAILED else "Waiting"


def _address(url_name: str, remote_id: str) -> str:
    """A page of a remote id, or "" for an id no path of the console can
    carry (the row is then left out, never a broken home page)."""
    try:
        return reverse(url_name, args=[remote_id])
    except NoReverseMatch:
        return ""


def _waits_for(run: dict) -> str:
    kind = (run["waiting_for"] or {}).get("kind") or ""
    return f"waits for {'an ' if kind == 'approval' else ''}{kind or 'something'}"


def _stored_rows(rows, names: dict[str, str], since: datetime, now: datetime) -> list[RunRow]:
    found = []
    for row in rows:
        if row.kind not in (KIND_WAITING, KIND_FAILED):
            continue
        at = row.since or row.refreshed_at
        if at is None or at < since:
            continue
        data = as_dict(row.data)
        run = read_run(as_dict(data.get("run")))
        if not run["id"]:
            continue
        agent_id = text(data.get("agent_id")) or run["agent_id"]
        found.append(
            RunRow(
                run_id=run["id"],
                status=row.kind,
                agent_name=text(data.get("agent_name")) or names.get(agent_id, ""),
                what=run["error_message"] if row.kind == KIND_FAILED else _waits_for(run),
                at=at,
                ago=waited_words(at, now),
                url=_address("agents:run", run["id"]),
            )
        )
    return found


def _own_rows(ops: list[TrackedOperation], names: dict[str, str], now: datetime) -> list[RunRow]:
    """The person's own messages whose runs failed or wait, at the run's own
    times (the service's `created_at`, `completed_at`), never the row's."""
    found = []
    for op in ops:
        if op.kind != INVOCATION_KIND:
            continue  # a run a list or its page tracked is the workspace's: the stored rows tell it
        snapshot = as_dict(op.snapshot)
        run = read_run(snapshot)
        if op.is_final and op.status in FAILED_STATUSES:
            status, at = KIND_FAILED, run["completed_at"] or op.updated_at
        elif not op.is_final and op.status == "waiting":
            status, at = KIND_WAITING, run["created_at"] or op.created_at
        else:
            continue
        context = as_dict(op.context)
        run_id = run["id"] or text(context.get("run_id"))
        if not run_id:
            continue  # a message that failed before its run began: its chat page says so
        agent_id = text(context.get("agent_id")) or run["agent_id"]
        found.append(
            RunRow(
                run_id=run_id,
                status=status,
                agent_name=names.get(agent_id, ""),
                what=(run["error_message"] or op.last_error) if status == KIND_FAILED else _waits_for(run),
                at=at,
                ago=waited_words(at, now),
                url=_address("agents:run", run_id),
            )
        )
    return found


def _chat_picker(viewer: HomeViewer, names: dict[str, str]) -> HomeAction:
    """Chat with an agent: those the person wrote to lately first, then by name."""
    everything = reverse("agents:index")
    if not names:
        # The refresh has not named the agents yet: the agents list is where to pick one.
        return HomeAction("Chat with an agent", everything)
    chatted = [text(as_dict(op.context).get("agent_id")) for op in viewer.operations if op.kind == INVOCATION_KIND]
    order = list(dict.fromkeys([agent_id for agent_id in chatted if agent_id in names]))
    order += sorted((agent_id for agent_id in names if agent_id not in order), key=lambda a: names[a].lower())
    linked = [(agent_id, _address("agents:chat", agent_id)) for agent_id in order]
    choices = tuple(HomeChoice(names[agent_id] or "(unnamed agent)", url) for agent_id, url in linked if url)
    return HomeAction("Chat with an agent", everything, choices=choices[:AGENTS_OFFERED], more_label="All agents")


def runs_failed_or_waiting(viewer: HomeViewer) -> HomeSection | None:
    """Runs of the workspace that failed or wait, newest first: one query of
    the stored rows besides the person's tracked work, which the page reads once."""
    since = viewer.now - WINDOW
    rows = stored_items(workspace_id=viewer.workspace_id, source=SOURCE)
    names_row = next((row for row in rows if row.kind == NAMES_KIND), None)
    names = {text(k): text(v) for k, v in as_dict(as_dict(names_row.data if names_row else {}).get("names")).items()}
    # The person's latest tracked work (the query the inbox's items share).
    ops = [op for op in viewer.operations if op.kind == INVOCATION_KIND and op.updated_at >= since]
    runs: dict[str, RunRow] = {}
    # The service's rows first: they name the agent and say what woke the run.
    for row in [*_stored_rows(rows, names, since, viewer.now), *_own_rows(ops, names, viewer.now)]:
        if row.url:
            runs.setdefault(row.run_id, row)
    # The window is the runs' own times: a run that waits since five days is not of the last 24 hours.
    inside = [row for row in runs.values() if row.at is not None and row.at >= since]
    newest = sorted(inside, key=lambda row: row.at or since, reverse=True)[:RUNS_SHOWN]
    return HomeSection(
        title="Runs that failed or wait (last 24 hours)",
        template="agents/home_section.html",
        context={"runs": newest},
        has_items=bool(newest),
        empty="Agent runs of this workspace that fail, or wait for an approval, a time or an event, appear here.",
        more=("All runs", reverse("agents:runs")),
        actions=(_chat_picker(viewer, names),) if viewer.can_write else (),
    )
