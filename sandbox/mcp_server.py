"""The MCP server at `/v1/mcp`: the same operations as the REST face, as tools.

Streamable HTTP, stateless, served by the official `mcp` SDK (its session
manager speaks protocol 2026-07-28 and the initialize handshake of 2025-03-26
through 2025-11-25, with version negotiation and the `MCP-Protocol-Version`
header); `sandbox.asgi_bridge` runs it inside the sandbox's WSGI server.

Tools are generated from the route registry (`sandbox.core.ROUTES`), so the
two faces cannot disagree:

- name = the operation id (exactly the seed's 31 tool names, `SEED_TOOLS`);
- arguments = path, query and body fields flattened into one object, its
  JSON Schema (2020-12) built from the same schemas the validators check;
  write tools take `idempotency_key`, which is sent as the `Idempotency-Key`
  header (replay, 409 on another body: the REST behaviour, not a copy of it);
- a call IS a REST request to the same app (same auth, rate limit, checks,
  idempotency and credits), answered as a tool result: the REST body as
  structured content and as text; a service error (4xx, 5xx) is a result with
  `isError` carrying the same message and `request_id`.

Turn tools default to `background: true`. With `background: false` the call
waits; a client that sent a progress token gets the director's events as
progress notifications on that request's stream (the call runs as a streamed
turn inside), and closing the stream cancels the wait, never the turn.

In front of the SDK: a bad `Origin` is refused (403), and a missing or wrong
key answers 401 with `WWW-Authenticate: Bearer` (the JSON error body, as
every other path).
"""

from __future__ import annotations

import copy
import io
import json
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode, urlsplit

from sandbox.asgi_bridge import LoopThread, serve_asgi
from sandbox.core import MCP_CALL, MCP_PATH, ROUTES, ApiError, Request, Route, load_route_modules

__all__ = ["MCP_PATH", "McpEndpoint", "build_tools"]
SERVED_HANDSHAKE_VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE_VERSION = "2025-11-25"

SEED_TOOLS = (
    "account_me",
    "studio_website_turn",
    "studio_document_turn",
    "studio_app_turn",
    "studio_image_turn",
    "studio_video_turn",
    "studio_turn_get",
    "studio_apps_list",
    "studio_app_run",
    "agents_list",
    "agents_create",
    "agents_get",
    "agents_update",
    "agents_activate",
    "agents_pause",
    "agents_runs_list",
    "agents_runs_create",
    "runs_get",
    "approvals_list",
    "approvals_decide",
    "objects_list",
    "objects_create",
    "objects_get",
    "objects_update",
    "objects_records_list",
    "objects_records_create",
    "objects_records_get",
    "objects_records_update",
    "objects_records_delete",
    "objects_relationships_list",
    "objects_relationships_create",
)
TURN_TOOLS = {name for name in SEED_TOOLS if name.startswith("studio_") and name.endswith("_turn")}
IDEMPOTENCY_ARGUMENT = "idempotency_key"
LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]"}


# --------------------------------------------------------------------------
# Tools from the route registry
# --------------------------------------------------------------------------
def tool_routes() -> dict[str, Route]:
    load_route_modules()
    by_id = {r.operation_id: r for r in ROUTES}
    missing = [name for name in SEED_TOOLS if name not in by_id]
    if missing:  # a renamed operation breaks the seed's promise: say so at once
        raise LookupError(f"seed MCP tools without an operation: {', '.join(missing)}")
    return {name: by_id[name] for name in SEED_TOOLS}


def path_names(r: Route) -> list[str]:
    import re

    return re.findall(r"\{([a-z_]+)\}", r.pattern)


def _mentions_stream(rule: dict) -> bool:
    return "stream" in json.dumps(rule)


def _refs(schema: Any, found: set[str]) -> None:
    if isinstance(schema, dict):
        target = schema.get("$ref")
        if isinstance(target, str) and target.startswith("#/components/schemas/"):
            found.add(target.rsplit("/", 1)[-1])
        for value in schema.values():
            _refs(value, found)
    elif isinstance(schema, list):
        for value in schema:
            _refs(value, found)


def _to_defs(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {
            k: (v.replace("#/components/schemas/", "#/$defs/") if k == "$ref" and isinstance(v, str) else _to_defs(v))
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_to_defs(v) for v in schema]
    return schema


def input_schema(r: Route, components: dict[str, dict]) -> dict:
    """The tool's arguments: path, query and body fields in one object (JSON Schema 2020-12)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    rules: dict[str, Any] = {}
    for name in path_names(r):
        properties[name] = {**r.path_params.get(name, {"type": "string"}), "description": f"`{name}` in the path."}
        required.append(name)
    for name, schema in r.query.items():
        properties[name] = copy.deepcopy(schema)
        if name in r.required_query:
            required.append(name)
    body = r.body
    while body is not None and "$ref" in body:
        body = components[body["$ref"].rsplit("/", 1)[-1]]
    additional: Any = True
    if body is not None:
        for name, schema in body.get("properties", {}).items():
            if name == "stream":  # the MCP face streams through progress notifications instead
                continue
            properties[name] = copy.deepcopy(schema)
        required += [name for name in body.get("required", []) if name != "stream"]
        additional = body.get("additionalProperties", True)
        for keyword in ("anyOf", "not", "if", "then", "x-error"):
            if keyword in body:
                rules[keyword] = copy.deepcopy(body[keyword])
        if "not" in rules and _mentions_stream(rules["not"]):  # stream with background: no stream here
            del rules["not"]
            rules.pop("x-error", None)
        all_of = [rule for rule in body.get("allOf", []) if not _mentions_stream(rule)]
        if all_of:
            rules["allOf"] = copy.deepcopy(all_of)
    if r.operation_id in TURN_TOOLS:
        properties["background"] = {
            "type": "boolean",
            "default": True,
            "description": "Default true: answer at once with the turn (`status: building`; poll studio_turn_get). "
            "false: wait for the finished turn (a progress token gets the director's events as progress).",
        }
    if r.write:
        properties[IDEMPOTENCY_ARGUMENT] = {
            "type": "string",
            "maxLength": 255,
            "description": "Means exactly what the Idempotency-Key header means: the same key and arguments "
            "replay the first answer; the same key with other arguments is an error (409).",
        }
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        **rules,
    }
    if required:
        schema["required"] = required
    if additional is False:
        schema["additionalProperties"] = False
    names: set[str] = set()
    _refs(schema, names)
    pending = list(names)
    while pending:  # the components a schema reaches, transitively
        found: set[str] = set()
        _refs(components[pending.pop()], found)
        pending += [n for n in found if n not in names]
        names |= found
    schema = _to_defs(schema)
    if names:
        schema["$defs"] = {name: _to_defs(copy.deepcopy(components[name])) for name in sorted(names)}
    return schema


def tool_descriptions(r: Route) -> tuple[str, str]:
    """(title, description) from the route's summary and description."""
    title = r.summary or r.operation_id.replace("_", " ")
    description = r.description or title
    return title, f"{description}\n\nREST: {r.method} {r.pattern}."


def build_tools() -> list[dict]:
    """The tools as plain JSON (the SDK's `Tool` model is made from these)."""
    from sandbox.core import SCHEMAS

    tools = []
    for name, r in tool_routes().items():
        title, description = tool_descriptions(r)
        tools.append(
            {
                "name": name,
                "title": title,
                "description": description,
                "inputSchema": input_schema(r, SCHEMAS),
                "annotations": {
                    "title": title,
                    "readOnlyHint": not r.write,
                    "destructiveHint": r.method == "DELETE",
                    "idempotentHint": r.write,
                    "openWorldHint": False,
                },
            }
        )
    return tools


# --------------------------------------------------------------------------
# A tool call is a REST request to the same app
# --------------------------------------------------------------------------
def rest_environ(outer: dict, r: Route, arguments: dict) -> dict:
    """The WSGI environ of the REST request a tool call stands for."""
    args = dict(arguments)
    key = args.pop(IDEMPOTENCY_ARGUMENT, None)
    path = r.pattern
    for name in path_names(r):
        path = path.replace("{" + name + "}", str(args.pop(name, "")))
    query = {}
    for name in list(args):
        if name in r.query:
            value = args.pop(name)
            query[name] = ("true" if value else "false") if isinstance(value, bool) else value
    payload = b""
    if r.body is not None:
        payload = json.dumps(args).encode()
    elif args:
        raise ApiError(
            400, "invalid_request", f"{r.operation_id} takes no argument {sorted(args)[0]!r}.", {sorted(args)[0]: []}
        )
    environ = {
        "REQUEST_METHOD": r.method,
        "PATH_INFO": path,
        "QUERY_STRING": urlencode(query, doseq=True),
        "SERVER_NAME": outer.get("SERVER_NAME", "127.0.0.1"),
        "SERVER_PORT": outer.get("SERVER_PORT", "0"),
        "HTTP_HOST": outer.get("HTTP_HOST", ""),
        "HTTP_AUTHORIZATION": outer.get("HTTP_AUTHORIZATION", ""),
        "wsgi.input": io.BytesIO(payload),
        "wsgi.url_scheme": outer.get("wsgi.url_scheme", "http"),
        MCP_CALL: True,
    }
    if payload:
        environ.update({"CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(payload))})
    if key:
        environ["HTTP_IDEMPOTENCY_KEY"] = str(key)
    return environ


def call_rest(app, environ: dict) -> tuple[int, dict, Iterator[bytes]]:
    answer: dict = {}

    def start_response(status, headers, exc_info=None):
        answer["status"] = int(status.split(" ", 1)[0])
        answer["headers"] = {k.lower(): v for k, v in headers}

    chunks = iter(app(environ, start_response))
    return answer["status"], answer["headers"], chunks


def sse_events(chunks: Iterator[bytes], cancelled: threading.Event) -> Iterator[tuple[str, Any]]:
    """(event, data) pairs of a `text/event-stream` answer, as they arrive."""
    buffer = b""
    for chunk in chunks:
        if cancelled.is_set():
            return
        buffer += chunk
        while b"\n\n" in buffer:
            frame, buffer = buffer.split(b"\n\n", 1)
            event, data = "message", ""
            for line in frame.decode().split("\n"):
                if line.startswith("event: "):
                    event = line[len("event: ") :]
                elif line.startswith("data: "):
                    data += line[len("data: ") :]
            yield event, json.loads(data) if data else None


def progress_message(event: str, data: Any) -> str:
    """Words for one streamed event. The first names the turn (or run), so a client that stops
    waiting can still poll it (studio_turn_get, runs_get)."""
    if isinstance(data, dict):
        if event == "turn" and data.get("id"):
            return f"Turn {data['id']} ({data.get('studio')}): {data.get('status')}"
        if event == "started" and data.get("run_id"):
            return f"Run {data['run_id']} started (thread {data.get('thread_id')})"
        if event == "plan" and isinstance(data.get("steps"), list):
            return "Plan: " + ", ".join(str(s) for s in data["steps"])
        if data.get("message"):
            return str(data["message"])
        if data.get("status"):
            return f"{event}: {data['status']}"
    return event


# --------------------------------------------------------------------------
# The SDK server
# --------------------------------------------------------------------------
class McpEndpoint:
    """`/v1/mcp` of one sandbox App: the SDK's stateless Streamable HTTP server on
    a loop of its own, started on first use."""

    def __init__(self, app):
        self.app = app
        self._lock = threading.Lock()
        self._loop: LoopThread | None = None
        self._asgi = None

    def _start(self) -> None:
        import anyio
        import mcp_types as types
        from mcp.server.lowlevel import Server
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
        from mcp.server.transport_security import TransportSecuritySettings

        from sandbox.openapi import API_VERSION

        tools = [types.Tool.model_validate(tool) for tool in build_tools()]
        routes = tool_routes()
        endpoint = self

        async def list_tools(ctx, params):
            return types.ListToolsResult(tools=tools)

        async def call_tool(ctx, params):
            r = routes.get(params.name)
            if r is None:
                from mcp.shared.exceptions import MCPError

                raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
            arguments = dict(params.arguments or {})
            if r.operation_id in TURN_TOOLS:
                arguments.setdefault("background", True)
            meta = ctx.meta or {}
            token = meta.get("progress_token", meta.get("progressToken")) if isinstance(meta, dict) else None
            streams = r.stream and token is not None and not arguments.get("background")
            if streams:
                arguments["stream"] = True
            outer = ctx_environ(ctx)
            cancelled = threading.Event()

            def run() -> dict:
                try:
                    environ = rest_environ(outer, r, arguments)
                except ApiError as exc:
                    return error_result(exc.status, {"error": {"type": exc.type, "message": exc.message}})
                status, headers, chunks = call_rest(endpoint.app, environ)
                try:
                    if headers.get("content-type", "").startswith("text/event-stream"):
                        return streamed_result(chunks)
                    raw = b"".join(chunks)
                finally:
                    close = getattr(chunks, "close", None)
                    if close:
                        close()
                body = json.loads(raw) if raw else {}
                if status >= 400:
                    return error_result(status, body)
                return ok_result(body)

            def streamed_result(chunks) -> dict:
                for sent, (event, data) in enumerate(sse_events(chunks, cancelled), start=1):
                    if event == "result":
                        return ok_result(data)
                    if event == "error":
                        return error_result(500, {"error": {"type": "stream_error", **(data or {})}})
                    anyio.from_thread.run(ctx.session.report_progress, float(sent), None, progress_message(event, data))
                return error_result(499, {"error": {"type": "cancelled", "message": "The wait was cancelled."}})

            try:
                result = await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
            finally:
                cancelled.set()  # a closed stream ends the wait; the turn itself goes on
            return types.CallToolResult.model_validate(result)

        server = Server(
            "workspace-sandbox",
            version=API_VERSION,
            title="Workspace Studio, Agents and Objects API (sandbox)",
            instructions="The sandbox's operations as tools: names are the REST operation ids; "
            "the full guide is at /v1/llms-full.txt.",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
        )
        manager = StreamableHTTPSessionManager(
            app=server,
            stateless=True,
            # Origin and Host are checked in front (check_origin): the sandbox's host and port vary.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        loop = LoopThread("sandbox-mcp")
        started = threading.Event()

        async def serve_forever() -> None:
            async with manager.run():
                started.set()
                await anyio.sleep_forever()

        loop.submit(serve_forever())
        started.wait(10)

        async def asgi(scope, receive, send):
            await manager.handle_request(scope, receive, send)

        self._loop, self._asgi = loop, asgi

    def start(self) -> None:
        with self._lock:
            if self._asgi is None:
                self._start()

    def __call__(self, req: Request, environ: dict, start_response):
        check_origin(req)
        self.app.authenticate(req)
        self.app.rate_limit(req)
        self.start()
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        body = environ["wsgi.input"].read(length) if length > 0 else b""
        body = negotiate(body)
        environ = {**environ, "CONTENT_LENGTH": str(len(body)), "sandbox.environ": environ}
        return serve_asgi(self._loop, self._asgi, environ, start_response, body)


def ctx_environ(ctx) -> dict:
    """The outer request's address and key, for the REST request a call stands for."""
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None) or {}
    scope = getattr(request, "scope", None) or {}
    server = scope.get("server") or ("127.0.0.1", 0)
    return {
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1]),
        "HTTP_HOST": headers.get("host", ""),
        "HTTP_AUTHORIZATION": headers.get("authorization", ""),
    }


def ok_result(body: Any) -> dict:
    structured = body if isinstance(body, dict) else {"result": body}
    return {"content": [{"type": "text", "text": json.dumps(body)}], "structuredContent": structured}


def error_result(status: int, body: dict) -> dict:
    error = body.get("error") or {}
    request_id = body.get("request_id")
    text = f"{status} {error.get('type', 'error')}: {error.get('message', '')}"
    if request_id:
        text += f" (request_id {request_id})"
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"status": status, **body},
        "isError": True,
    }


def check_origin(req: Request) -> None:
    """A browser page of another site may not drive the workspace (DNS rebinding):
    an `Origin` must be this server's own or a loopback address."""
    origin = req.headers.get("origin")
    if not origin:
        return
    parts = urlsplit(origin)
    host = req.headers.get("host") or ""
    if parts.scheme in ("http", "https") and (parts.netloc == host or (parts.hostname or "") in LOOPBACK_HOSTS):
        return
    raise ApiError(403, "permission", f"Origin {origin} may not use this MCP server.")


def negotiate(body: bytes) -> bytes:
    """An `initialize` asking for a version older than the seed serves is answered with the
    newest handshake version (version negotiation: the client then decides)."""
    try:
        message = json.loads(body)
    except ValueError:
        return body
    if isinstance(message, dict) and message.get("method") == "initialize":
        params = message.get("params")
        if isinstance(params, dict) and params.get("protocolVersion") not in SERVED_HANDSHAKE_VERSIONS:
            params["protocolVersion"] = LATEST_HANDSHAKE_VERSION
            return json.dumps(message).encode()
    return body
