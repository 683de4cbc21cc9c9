"""The audit trail's lines for Agents and Approvals writes, in words: the
agent by the name the console keeps (the insights refresh's and the inbox
refresh's, a decision's own), the action, and what was sent where the
console kept it (a chat message is its tracked row, found by the write's
Idempotency-Key). An agent the console knows no name of is "an agent":
never its id."""

from __future__ import annotations

from typing import Any

from agents.decisions import via_words
from agents.inbox import agent_names_known
from agents.live import INVOCATION_KIND
from agents.models import InsightsRefresh
from dashboard.live.models import TrackedOperation

QUOTED = 120  # a message is quoted up to this many characters


def _segments(path: str) -> list[str]:
    return [segment for segment in path.split("?", 1)[0].split("/") if segment and segment != "v1"]


def _quoted(message: str) -> str:
    message = " ".join(message.split())
    return message if len(message) <= QUOTED else message[: QUOTED - 1].rstrip() + "…"


def _names(workspace_id: str) -> dict[str, str]:
    refresh = InsightsRefresh.objects.filter(workspace_id=workspace_id).only("agent_names").first()
    kept = refresh.agent_names if refresh is not None and isinstance(refresh.agent_names, dict) else {}
    return {**{str(k): str(v) for k, v in kept.items() if v}, **agent_names_known(workspace_id=workspace_id)}


def _messages(entries: list[Any], workspace_id: str) -> dict[str, str]:
    """The person's messages, by the Idempotency-Key they were sent with."""
    keys = [entry.idempotency_key for entry in entries if entry.idempotency_key]
    if not keys:
        return {}
    rows = TrackedOperation.objects.filter(
        owner_key__workspace_id=workspace_id, kind=INVOCATION_KIND, remote_id__in=keys
    ).values_list("remote_id", "title")
    return dict(rows)


def _decision(entry: Any, name: str) -> str:
    details = entry.details if isinstance(entry.details, dict) else {}
    agent = str(details.get("agent_name") or name)
    of_agent = f" of {agent}" if agent else ""
    if entry.kind == "approval_decision" and entry.summary:
        # The decision flow's words (agents/decisions.py), the same from every path; the path after them.
        via = via_words(str(details.get("via") or ("bulk" if details.get("bulk") else "")))
        about = "; ".join(part for part in (f"an approval{of_agent}" if agent else "", via) if part)
        return f"{entry.summary} ({about})" if about else entry.summary
    if entry.status == 409:
        return f"Tried to decide an approval{of_agent}: it was already decided"
    return f"Decided an approval{of_agent}"


def audit_words(entries: list[Any], workspace_id: str) -> dict[int, str]:
    """{entry id: its line} for the writes to /v1/agents and /v1/approvals."""
    ours = [entry for entry in entries if _segments(entry.path)[:1] in (["agents"], ["approvals"])]
    if not ours:
        return {}
    names = _names(workspace_id)
    runs = [entry for entry in ours if _segments(entry.path)[2:3] == ["runs"]]
    messages = _messages(runs, workspace_id)
    words: dict[int, str] = {}
    for entry in ours:
        parts = _segments(entry.path)
        if parts[0] == "approvals" or entry.kind == "approval_decision":
            details = entry.details if isinstance(entry.details, dict) else {}
            words[entry.pk] = _decision(entry, names.get(str(details.get("agent_id") or ""), ""))
            continue
        name = names.get(parts[1], "an agent") if len(parts) > 1 else ""
        action = parts[2] if len(parts) > 2 else ""
        if len(parts) == 1 and entry.method == "POST":
            words[entry.pk] = "Asked the builder for a new agent"
        elif len(parts) == 2 and entry.method == "PATCH":
            words[entry.pk] = f"Renamed or changed {name}"
        elif action == "activate":
            words[entry.pk] = f"Activated {name}"
        elif action == "pause":
            words[entry.pk] = f"Paused {name}"
        elif action == "runs" and entry.method == "POST":
            message = messages.get(entry.idempotency_key, "")
            if message.startswith("Event "):
                words[entry.pk] = f"Sent an event to {name}"
            elif message:
                words[entry.pk] = f"Sent a message to {name}: “{_quoted(message)}”"
            else:
                words[entry.pk] = f"Sent a message to {name}"
    return words
