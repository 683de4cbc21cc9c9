"""The audit trail's lines for Agents and Approvals writes, in words: the
agent by the name the console keeps (the insights refresh's and the inbox
refresh's, a decision's own), the action, and what was sent where the
console kept it (a chat message is its tracked row, found by the write's
Idempotency-Key). An agent the console knows no name of is "an agent":
never its id.

The lines are made when the trail is shown (nothing stored changes), so they
are in the reader's language; names, messages and a decision's stored
summary are as they were kept."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, pgettext

from agents.decisions import VIA_WORDS
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


def _via(via: str) -> str:
    """The path of a decision in the reader's words (agents/decisions.py keeps them in English)."""
    if via.startswith("token "):
        return gettext("via %(token)s") % {"token": via}  # a personal access token, by its name
    return gettext(VIA_WORDS[via]) if via in VIA_WORDS else ""


def _decision(entry: Any, name: str) -> str:
    details = entry.details if isinstance(entry.details, dict) else {}
    agent = str(details.get("agent_name") or name)
    if entry.kind == "approval_decision" and entry.summary:
        # The decision flow's words (agents/decisions.py), the same from every path; the path after them.
        via = _via(str(details.get("via") or ("bulk" if details.get("bulk") else "")))
        of_agent = gettext("an approval of %(agent)s") % {"agent": agent} if agent else ""
        about = "; ".join(part for part in (of_agent, via) if part)
        return f"{entry.summary} ({about})" if about else entry.summary
    if entry.status == 409:
        if agent:
            return gettext("Tried to decide an approval of %(agent)s: it was already decided") % {"agent": agent}
        return gettext("Tried to decide an approval: it was already decided")
    return gettext("Decided an approval of %(agent)s") % {"agent": agent} if agent else gettext("Decided an approval")


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
        unnamed = pgettext("an agent the console knows no name of", "an agent")
        name = names.get(parts[1], unnamed) if len(parts) > 1 else ""
        action = parts[2] if len(parts) > 2 else ""
        if len(parts) == 1 and entry.method == "POST":
            words[entry.pk] = gettext("Asked the builder for a new agent")
        elif len(parts) == 2 and entry.method == "PATCH":
            words[entry.pk] = gettext("Renamed or changed %(agent)s") % {"agent": name}
        elif action == "activate":
            words[entry.pk] = gettext("Activated %(agent)s") % {"agent": name}
        elif action == "pause":
            words[entry.pk] = gettext("Paused %(agent)s") % {"agent": name}
        elif action == "runs" and entry.method == "POST":
            message = messages.get(entry.idempotency_key, "")
            if message.startswith("Event "):
                words[entry.pk] = gettext("Sent an event to %(agent)s") % {"agent": name}
            elif message:
                words[entry.pk] = gettext("Sent a message to %(agent)s: “%(message)s”") % {
                    "agent": name,
                    "message": _quoted(message),
                }
            else:
                words[entry.pk] = gettext("Sent a message to %(agent)s") % {"agent": name}
    return words
