"""Helpers the Agents views share."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from agents.reading import (
    read_agent,
)

# --- helpers ----------------------------------------------------------------------


def agent_at(body: Any, agent_id: str) -> dict[str, Any]:
    """The agent read from `body`, under the id the page asked for when the
    body names none (its links are built from it)."""
    agent = read_agent(body)
    agent["id"] = agent["id"] or agent_id
    return agent


def uuid_or_empty(value: str | None) -> str:
    try:
        return str(UUID(str(value))) if value else ""
    except ValueError:
        return ""
