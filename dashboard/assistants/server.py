"""The console's MCP server (docs/assistants.md): the official `mcp` SDK's
Streamable HTTP server, answering at /api/mcp as the token's person.

How it runs inside the console's WSGI workers (gunicorn, sync): each HTTP
request builds a small SDK `Server` holding just the tools this token may use
now, and its `StreamableHTTPSessionManager` in **stateless, JSON-response**
mode, and drives it for that one request through `asgiref.async_to_sync`:

- stateless: no session lives between requests, so nothing is kept in a
  worker's memory and any worker (or replica) answers any request; every
  request is authenticated and narrowed again, like a page;
- JSON responses: the answer is one JSON body, never a stream a sync worker
  would hold open; the SDK still speaks every protocol era (the initialize
  handshake of 2025 and the 2026-07-28 per-request shape);
- the tools themselves run back in the request's own thread
  (`sync_to_async(thread_sensitive=True)` under `async_to_sync` runs there):
  the Django database connection, the request id and "via token <name>"
  (context variables) are those of the request, exactly as for a page.

Implementing JSON-RPC over the SDK's types by hand was the other way; it
would have copied the SDK's version negotiation and error shapes, which is
what the SDK is for. A long-lived event loop thread (the sandbox's way) is
not needed: nothing streams."""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from asgiref.sync import async_to_sync, sync_to_async
from django.http import HttpRequest, HttpResponse

from dashboard.assistants.answers import ToolOutcome
from dashboard.assistants.registry import tool_named, tools_allowed
from dashboard.assistants.services import MAX_IDEMPOTENCY_KEY, tool_call
from dashboard.assistants.tools import AssistantTool
from dashboard.tokens.scopes import scope_refusal
from dashboard.version import console_version
from dashboard.web.api_answers import api_error

SERVER_NAME = "workspace-console"
INSTRUCTIONS = (
    "The Workspace Console as tools, acting as the token's person in its workspace, under their console role. "
    "Some writes wait for a person (deleting records, spending credits, every write of an 'ask first' token): "
    "the call answers status 'waiting' with a request_id; poll assistant_request_status with it."
)
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer"}


def tool_listing(tool: AssistantTool) -> Any:
    import mcp_types as types

    return types.Tool.model_validate(
        {
            "name": tool.name,
            "title": tool.title,
            "description": tool.description
            + (f"\n\nWaits for a person's approval: {tool.needs_person}" if tool.needs_person else ""),
            "inputSchema": _with_idempotency_key(tool),
            "annotations": {
                "title": tool.title,
                "readOnlyHint": not tool.writes,
                "destructiveHint": tool.destructive,
                "idempotentHint": tool.writes,
                "openWorldHint": False,
            },
        }
    )


def _with_idempotency_key(tool: AssistantTool) -> dict[str, Any]:
    found = json.loads(json.dumps(tool.input_schema))
    if tool.writes:
        found.setdefault("properties", {})["idempotency_key"] = {
            "type": "string",
            "maxLength": MAX_IDEMPOTENCY_KEY,
            "description": "One per logical change, the same on every retry of it: the change is made (or asked "
            "for) once. Without one, each call is a change of its own.",
        }
    return found


def result_of(outcome: ToolOutcome) -> Any:
    import mcp_types as types

    if outcome.refused:
        return types.CallToolResult(content=[types.TextContent(text=outcome.refused)], is_error=True)
    data = outcome.data if isinstance(outcome.data, dict) else {"result": outcome.data}
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(data, default=str))],
        structured_content=json.loads(json.dumps(data, default=str)),
    )


def build_server(request: HttpRequest) -> Any:
    """An SDK server for this request: the token's tools now, each call run in the request's thread."""
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    token = request.access_token  # type: ignore[attr-defined]
    allowed = {tool.name: tool for tool in tools_allowed(user=request.user, token=token)}
    listing = [tool_listing(tool) for tool in allowed.values()]

    def call_sync(name: str, arguments: dict[str, Any]) -> ToolOutcome:
        tool = allowed.get(name)
        if tool is None:
            known = tool_named(name)
            if known is None:
                raise LookupError(name)
            refusal = scope_refusal(
                user=request.user, granted=list(token.scopes), needed=known.scope, workspace_id=token.workspace_id
            )
            return ToolOutcome(refused=f"“{name}” is not one of this token's tools. {refusal}")
        return tool_call(tool=tool, token=token, workspace=request.workspace, arguments=arguments)  # type: ignore[attr-defined]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listing)

    async def call_tool(ctx: Any, params: Any) -> Any:
        try:
            outcome = await sync_to_async(call_sync, thread_sensitive=True)(params.name, dict(params.arguments or {}))
        except LookupError as exc:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}") from exc
        return result_of(outcome)

    return Server(
        SERVER_NAME,
        version=console_version(),
        title="Workspace Console",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


@dataclass
class Answer:
    status: int = 500
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytearray = field(default_factory=bytearray)


def asgi_scope(request: HttpRequest, body: bytes) -> dict[str, Any]:
    headers = [(b"content-type", str(request.META.get("CONTENT_TYPE") or "").encode("latin-1"))]
    headers.append((b"content-length", str(len(body)).encode()))
    for name, value in request.META.items():
        if name.startswith("HTTP_") and name != "HTTP_CONTENT_LENGTH":
            headers.append((name[5:].replace("_", "-").lower().encode("latin-1"), str(value).encode("latin-1")))
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method or "GET",
        "scheme": request.scheme or "http",
        "path": request.path,
        "raw_path": request.path.encode("utf-8"),
        "root_path": "",
        "query_string": str(request.META.get("QUERY_STRING") or "").encode("latin-1"),
        "headers": headers,
        "server": (request.get_host().rsplit(":", 1)[0], int(request.get_port() or 0)),
        "client": (str(request.META.get("REMOTE_ADDR") or ""), 0),
    }


async def _exchange(server: Any, scope: dict[str, Any], body: bytes) -> Answer:
    """One HTTP exchange of the SDK's stateless JSON-response transport, collected."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    manager = StreamableHTTPSessionManager(
        app=server,
        stateless=True,
        json_response=True,
        # Host is checked by Django (ALLOWED_HOSTS) and Origin in front (origin_refusal).
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    answer = Answer()
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer.status = int(message["status"])
            answer.headers = [
                (k.decode("latin-1"), v.decode("latin-1"))
                for k, v in message.get("headers", [])
                if k.decode("latin-1").lower() not in HOP_BY_HOP
            ]
        elif message["type"] == "http.response.body":
            answer.body += message.get("body", b"")

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    return answer


def origin_refusal(request: HttpRequest) -> str:
    """A browser page of another site may not drive a person's assistant tools:
    an Origin, when sent, must be this console's own."""
    origin = str(request.headers.get("Origin") or "")
    if not origin:
        return ""
    if urlsplit(origin).netloc == request.get_host():
        return ""
    return f"Origin {origin} may not use this console's MCP server."


def mcp_exchange(request: HttpRequest) -> HttpResponse:
    """The view's work: one MCP request (the token middleware authenticated it)."""
    refusal = origin_refusal(request)
    if refusal:
        return api_error(403, "origin_refused", refusal)
    if request.method != "POST":
        # Stateless: no stream to open (GET) and no session to end (DELETE). The protocol's answer is 405.
        return api_error(
            405, "method_not_allowed", "This MCP server is stateless: send each message as a POST.", Allow="POST"
        )
    body = request.body
    answer = async_to_sync(_exchange)(build_server(request), asgi_scope(request, body), body)
    response = HttpResponse(bytes(answer.body), status=answer.status)
    for name, value in answer.headers:
        if name.lower() != "content-length":
            response[name] = value
    return response
