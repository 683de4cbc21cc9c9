"""The seam between the console's MCP server (dashboard/assistants/server.py)
and the areas: an area describes each of its tools as an `AssistantTool` and
registers them through `Area(mcp_tools=...)`, as it adds pages or API routers.
The core never names an area; an area never speaks the protocol.

A tool is a plain function of a `ToolCall` (the token's person in the token's
workspace, the arguments, the Idempotency-Key of this logical write) that
returns what the assistant is told (JSON-able). It calls the area's own
services and selectors, the same as its page, so a read costs what the page
costs and a write goes through the same one place (record_delete_to_trash,
the decision flow, ...)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dashboard.frame.workspace import Workspace


class ToolRefusal(Exception):
    """A tool's refusal in words (bad arguments, nothing found): the assistant
    gets an error result saying so; nothing was written."""


@dataclass(frozen=True)
class ToolCall:
    workspace: Workspace  # the token's person, acting in the token's workspace
    arguments: dict[str, Any]
    # One per logical write, kept with an approval and reused by every retry of its carry-out.
    idempotency_key: str = ""
    via: str = ""  # "token <name>": how the audit trail names the path

    @property
    def user(self) -> Any:
        return self.workspace.user

    def text(self, name: str, *, required: bool = True, limit: int = 200) -> str:
        """A string argument, trimmed; a missing required one refused in words."""
        value = self.arguments.get(name)
        if value is None or value == "":
            if required:
                raise ToolRefusal(f"“{name}” is needed.")
            return ""
        if not isinstance(value, str | int):
            raise ToolRefusal(f"“{name}” must be text.")
        value = str(value).strip()
        if len(value) > limit or any(ord(ch) < 32 for ch in value):
            raise ToolRefusal(f"“{name}” is not a valid value (at most {limit} characters, one line).")
        return value

    def number(self, name: str, *, default: int, least: int = 1, most: int = 100) -> int:
        value = self.arguments.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ToolRefusal(f"“{name}” must be a whole number.")
        return max(least, min(int(value), most))

    def mapping(self, name: str) -> dict[str, Any]:
        value = self.arguments.get(name)
        if not isinstance(value, dict) or not value:
            raise ToolRefusal(f"“{name}” must be an object of field keys and values.")
        return value


@dataclass(frozen=True)
class AssistantTool:
    name: str
    title: str
    description: str
    # The token scope it needs (dashboard/tokens/scopes.py), narrowed by the person's role at this use.
    scope: str
    run: Callable[[ToolCall], Any]
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    writes: bool = False
    # For the write guard's refusal: what the page says a read-only person should do.
    write_explanation: str = ""
    # Workspace policy: why this write always waits for a person ("" when it does not), e.g.
    # "It deletes a record." or "It spends credits." (dashboard/assistants/policy.py adds "ask first").
    needs_person: str = ""
    destructive: bool = False
    # It spends credits (a Studio turn): approving it, like a destructive one, needs a fresh second factor.
    spends: bool = False
    # Describes the exact change for the approval's card ("Delete record rec_1 of Companies").
    describe: Callable[[dict[str, Any]], str] | None = None


def tool_risk(tool: AssistantTool | None) -> str:
    """The approvals' risk word of a tool's write ("destructive", "spend" or ""):
    what the step-up (dashboard/accounts/step_up.py, STEP_UP_RISKS) asks of the Approver."""
    if tool is None:
        return ""
    return "destructive" if tool.destructive else "spend" if tool.spends else ""


def schema(properties: dict[str, dict[str, Any]], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A tool's arguments as a JSON Schema object (no other keys allowed)."""
    found: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        found["required"] = list(required)
    return found


def text_argument(description: str, *, limit: int = 200) -> dict[str, Any]:
    return {"type": "string", "maxLength": limit, "description": description}
