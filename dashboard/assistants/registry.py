"""Every tool of the console's MCP server: the core's own (core_tools.py)
and each area's (`Area(mcp_tools=...)`), and those a token may use now."""

from __future__ import annotations

from typing import Any

from dashboard.assistants.core_tools import CORE_TOOLS
from dashboard.assistants.tools import AssistantTool
from dashboard.frame.areas import assistant_tools
from dashboard.tokens.scopes import scopes_in_force


def tools_all() -> list[AssistantTool]:
    return [*CORE_TOOLS, *assistant_tools()]


def tool_named(name: str) -> AssistantTool | None:
    return next((tool for tool in tools_all() if tool.name == name), None)


def tools_allowed(*, user: Any, token: Any) -> list[AssistantTool]:
    """The tools whose scope the token was given and the person's role allows at this moment."""
    scopes = scopes_in_force(user=user, granted=list(token.scopes), workspace_id=token.workspace_id)
    return [tool for tool in tools_all() if tool.scope in scopes]
