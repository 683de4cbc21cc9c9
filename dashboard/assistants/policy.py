"""What workspace policy does to an assistant's write (docs/assistants.md):
some writes are never done at once, they wait for a person.

- a write whose tool says so (`AssistantTool.needs_person`): deleting a
  record, anything that spends credits (a Studio turn, a Content App run);
- every write of a token made with "Ask first" (AccessToken.ask_first).

Reads are never held. The rule is the console's, the same for every
workspace, so an assistant and a person reading docs/assistants.md know it
before the first call."""

from __future__ import annotations

from typing import Any

from dashboard.assistants.tools import AssistantTool


def approval_reason(*, tool: AssistantTool, token: Any) -> str:
    """Why this call waits for an Approver ("" when it may go on at once)."""
    if not tool.writes:
        return ""
    if tool.needs_person:
        return tool.needs_person
    if token.ask_first:
        return f"The token “{token.name}” asks first: every write it makes waits for an Approver."
    return ""
