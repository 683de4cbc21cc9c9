"""The sandbox core: routes, the Request, errors, auth, idempotency, credits,
rate limit, paging, server-sent events and the WSGI application.

Route modules (account.py, objects.py, studio.py, agents.py...)
declare handlers with `@route(...)`; the decorator's schemas feed both request
checking (400 with field details) and the OpenAPI document. See CORE.md.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import inspect
import json
import logging
import math
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from sandbox.clock import Clock
from sandbox.storage import Store
from sandbox.validation import Validator, details_from, first_message

# Route modules imported by every App, in order. Every one must import: a
# missing or broken module raises (load_route_modules), so mistakes are seen.
ROUTE_MODULES = [
    "sandbox.account",
    "sandbox.objects",
    "sandbox.records",
    "sandbox.demo",
    "sandbox.studio",
    "sandbox.content_apps",
    "sandbox.library",
    "sandbox.agents",
    "sandbox.published",
]

KEY_PREFIX = "svc_sk_"
MCP_PATH = "/v1/mcp"  # the MCP server (sandbox/mcp_server.py), beside the REST routes
MCP_CALL = "sandbox.mcp_call"  # environ key of the REST request an MCP tool call stands for
KEY_RE = re.compile(r"^svc_sk_[A-Za-z0-9_\-]{16,200}$")


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------
class ApiError(Exception):
    """Raise from a handler to answer the spec's error body
    `{error: {type, message, details?}, request_id}`."""

    def __init__(self, status: int, type: str, message: str, details: dict | None = None, headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.type = type
        self.message = message
        self.details = details
        self.headers = headers or {}


def invalid(details: dict, message: str | None = None) -> ApiError:
    """400 invalid_request; `details` keyed by field, each a list of messages."""
    if message is None:
        message = _first_detail(details) or "The request is invalid."
    return ApiError(400, "invalid_request", message, details)


def _first_detail(details: Any, path: tuple = ()) -> str | None:
    """`fields.0.options is required for select fields` from nested details."""
    if isinstance(details, list):
        return f"{'.'.join(path) or 'request'} {details[0]}" if details else None
    if isinstance(details, dict):
        for name, value in details.items():
            found = _first_detail(value, path + (str(name),))
            if found:
                return found
    return None


def not_found(what: str = "resource") -> ApiError:
    return ApiError(404, "not_found", f"No such {what} in this workspace.")


def conflict(message: str, details: dict | None = None) -> ApiError:
    return ApiError(409, "conflict", message, details)


def unprocessable(message: str, details: dict | None = None) -> ApiError:
    """422 validation_error (record values, activation issues, not runnable)."""
    return ApiError(422, "validation_error", message, details)


def permission_denied(message: str = "This key may not do this.") -> ApiError:
    return ApiError(403, "permission", message)


def insufficient_credits() -> ApiError:
    return ApiError(402, "insufficient_credits", "The workspace is out of credits; top up in billing settings.")


# --------------------------------------------------------------------------
# Responses
# --------------------------------------------------------------------------
@dataclass
class Response:
    """A JSON answer. `replay` = (hook_name, ref) makes an idempotent replay
    call the registered hook instead of repeating the stored body (see
    `replay_hook`)."""

    body: Any = None
    status: int = 200
    headers: dict = field(default_factory=dict)
    replay: tuple[str, Any] | None = None
    content_type: str = "application/json"


@dataclass
class EventStream:
    """A `text/event-stream` answer: `events` yields (event_name, data) pairs;
    each is sent as `event: name\\ndata: {json}\\n\\n` and flushed at once."""

    events: Iterable[tuple[str, Any]]
    status: int = 200
    headers: dict = field(default_factory=dict)
    replay: tuple[str, Any] | None = None


def accepted(body: dict, *, replay: tuple[str, Any] | None = None, headers: dict | None = None) -> Response:
    """202 Accepted for background work. Pass `replay=("hook", ref)` so a
    repeat of the same request with the same Idempotency-Key re-renders the
    work's *current* state (202 while running, then the final answer)."""
    return Response(body, status=202, headers=headers or {}, replay=replay)


def event_stream(events: Iterable[tuple[str, Any]], *, replay: tuple[str, Any] | None = None) -> EventStream:
    return EventStream(events, replay=replay)


def sse_frame(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


# --------------------------------------------------------------------------
# Routes and schemas
# --------------------------------------------------------------------------
SCHEMAS: dict[str, dict] = {}
VALIDATOR = Validator(SCHEMAS)


def register_schema(name: str, schema: dict) -> dict:
    """Add a named schema to `components.schemas`; returns a `$ref` to it."""
    SCHEMAS[name] = schema
    return ref(name)


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def page_of(item_schema: dict) -> dict:
    """Response schema of a list endpoint: `{data: [item], next_cursor}`."""
    return {
        "type": "object",
        "required": ["data", "next_cursor"],
        "properties": {"data": {"type": "array", "items": item_schema}, "next_cursor": {"type": ["string", "null"]}},
    }


PAGE_QUERY = {
    "limit": {
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
        "default": 25,
        "description": "Page size, 1-100 (default 25).",
    },
    "cursor": {"type": "string", "description": "`next_cursor` of the previous page."},
}

UUID = {"type": "string", "format": "uuid"}


def one_of_fields(*names: str, message: str) -> dict:
    """A rule of a body schema: at least one of `names` is sent (its error filed under the first)."""
    return {"anyOf": [{"required": [name]} for name in names], "x-error": {"at": names[0], "message": message}}


def not_both_true(first: str, second: str, *, message: str) -> dict:
    """A rule of a body schema: `first` and `second` are not both true (its error filed under `second`)."""
    return {
        "not": {
            "required": [first, second],
            "properties": {first: {"const": True}, second: {"const": True}},
        },
        "x-error": {"at": second, "message": message},
    }


@dataclass
class Route:
    method: str
    pattern: str
    handler: Callable
    regex: re.Pattern
    operation_id: str
    summary: str = ""
    description: str = ""
    tags: list[str] = field(default_factory=list)
    auth: bool = True
    write: bool = False
    body: dict | None = None
    body_required: bool = True
    query: dict = field(default_factory=dict)
    required_query: list[str] = field(default_factory=list)
    path_params: dict = field(default_factory=dict)
    responses: dict = field(default_factory=dict)
    stream: bool = False
    slow: bool = False
    idempotent: bool = True
    stream_events: list[str] = field(default_factory=list)


ROUTES: list[Route] = []


def _compile(pattern: str) -> re.Pattern:
    out = "^"
    for part in re.split(r"(\{[a-z_]+\})", pattern):
        if part.startswith("{"):
            out += f"(?P<{part[1:-1]}>[^/]+)"
        else:
            out += re.escape(part)
    return re.compile(out + "$")


def route(
    method: str,
    pattern: str,
    *,
    operation_id: str,
    summary: str = "",
    description: str = "",
    tags: list[str] | None = None,
    auth: bool = True,
    write: bool | None = None,
    body: dict | None = None,
    body_required: bool = True,
    query: dict | None = None,
    required_query: list[str] | None = None,
    path_params: dict | None = None,
    responses: dict | None = None,
    stream: bool | list[str] = False,
    slow: bool = False,
    idempotent: bool = True,
):
    """Register a handler `fn(req: Request) -> dict | Response | EventStream`.

    - `body`: JSON Schema of the request body; checked before the handler runs
      (400 with details keyed by field). `req.body` is the parsed dict.
    - `query`: {name: schema}; checked and converted (integers, booleans);
      `req.params` holds them with their `default`s filled in.
    - `path_params`: {name: schema} for `{name}` parts (default: string).
    - `responses`: {status: schema or None}; error responses are added to the
      OpenAPI document automatically.
    - `stream`: the names of the server-sent events a `stream: true` body answers (in order, the
      last ones `result` and `error`); the OpenAPI document lists them.
    - `write`: defaults to True for POST/PATCH/DELETE: a read-only key gets 403.
    - `auth=False` for public paths (openapi.json, webhooks).
    """
    method = method.upper()

    def decorator(fn):
        ROUTES.append(
            Route(
                method=method,
                pattern=pattern,
                handler=fn,
                regex=_compile(pattern),
                operation_id=operation_id,
                summary=summary,
                description=description or inspect.cleandoc(fn.__doc__ or ""),
                tags=tags or [],
                auth=auth,
                write=(method in ("POST", "PATCH", "DELETE")) if write is None else write,
                body=body,
                body_required=body_required,
                query=query or {},
                required_query=required_query or [],
                path_params=path_params or {},
                responses=responses or {200: None},
                stream=bool(stream),
                slow=slow,
                idempotent=idempotent,
                stream_events=list(stream) if isinstance(stream, list) else ["result", "error"],
            )
        )
        return fn

    return decorator


REPLAY_HOOKS: dict[str, Callable] = {}


def replay_hook(name: str):
    """Register `fn(req, ref) -> Response | EventStream | dict` used when a
    request is repeated with the same Idempotency-Key and the stored answer
    was marked `replay=(name, ref)`. `ref` is whatever JSON the handler put
    there (e.g. {"shot_id": ...}); the hook renders the entity's current state."""

    def decorator(fn):
        REPLAY_HOOKS[name] = fn
        return fn

    return decorator


def load_route_modules() -> None:
    # Every module must load: a missing one is a broken sandbox, not a smaller one.
    for name in ROUTE_MODULES:
        importlib.import_module(name)


# --------------------------------------------------------------------------
# Paging
# --------------------------------------------------------------------------
def encode_cursor(position: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(position, separators=(",", ":")).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> Any:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        return json.loads(base64.urlsafe_b64decode(padded.encode()).decode())
    except Exception:
        raise invalid({"cursor": ["is not a cursor this list gave out"]})


def sort_value(value: Any) -> list:
    """A JSON-safe, totally ordered key for any value: numbers < text < lists;
    None is handled by the caller (always last)."""
    if isinstance(value, bool):
        return [0, float(value)]
    if isinstance(value, (int, float)):
        return [0, float(value)]
    if isinstance(value, str):
        return [1, value.lower()]
    return [2, json.dumps(value, sort_keys=True)]


def paginate(
    req: Request,
    items: list[dict],
    *,
    key: Callable[[dict], Any] | None = None,
    descending: bool = False,
    render: Callable[[dict], Any] | None = None,
) -> dict:
    """One page of `items` as `{data, next_cursor}` with a keyset cursor.

    `key(item)` must be unique and JSON-serialisable (default: `_seq`, the
    storage insert order, so paging is stable under inserts: no duplicates,
    no gaps). For other orders return a list ending in `item["_seq"]`.
    `render(item)` turns a stored document into its public body.
    """
    return paginate_keyed(req, keyed_order(items, key=key, descending=descending), descending=descending, render=render)


def keyed_order(
    items: list[dict], *, key: Callable[[dict], Any] | None = None, descending: bool = False
) -> list[tuple[Any, dict]]:
    """`items` as (key, item) in the list's order: each key computed once,
    for the sort and for the cursor's place."""
    key = key or (lambda d: d["_seq"])
    return sorted(((key(d), d) for d in items), key=lambda pair: pair[0], reverse=descending)


def paginate_keyed(
    req: Request,
    keyed: list[tuple[Any, dict]],
    *,
    descending: bool = False,
    render: Callable[[dict], Any] | None = None,
) -> dict:
    """`paginate` of items already in order (`keyed_order`), which a list
    may keep between pages while nothing changes (`Store.remembered`)."""
    limit = req.params.get("limit", 25)
    cursor = req.params.get("cursor")
    start = 0
    if cursor:
        after = decode_cursor(cursor)
        if not isinstance(after, dict) or "k" not in after:
            raise invalid({"cursor": ["is not a cursor this list gave out"]})
        try:
            start = _first_after(keyed, after["k"], descending=descending)
        except TypeError:
            raise invalid({"cursor": ["does not belong to this list or sort"]})
    page = [d for _, d in keyed[start : start + limit]]
    next_cursor = encode_cursor({"k": keyed[start + limit - 1][0]}) if len(keyed) > start + limit else None
    render = render or (lambda d: d)
    return {"data": [render(d) for d in page], "next_cursor": next_cursor}


def _first_after(keyed: list[tuple[Any, dict]], last: Any, *, descending: bool) -> int:
    """The index of the first item past the cursor's key `last` in `keyed`
    (sorted by key, descending or not): a binary search, keys being unique."""
    low, high = 0, len(keyed)
    while low < high:
        middle = (low + high) // 2
        k = keyed[middle][0]
        if (k >= last) if descending else (k <= last):
            low = middle + 1
        else:
            high = middle
    return low


# --------------------------------------------------------------------------
# Request
# --------------------------------------------------------------------------
class Headers(dict):
    def get(self, name: str, default=None):  # case-insensitive
        return super().get(name.lower(), default)


@dataclass
class Config:
    time_scale: float = 0.055
    rate_limit_per_minute: int | None = None
    app_url: str | None = None  # SANDBOX_APP_URL; default {base_url}/app
    seed: int = 20261122


class Request:
    """What a handler gets.

    Attributes: `method`, `path`, `path_params`, `params` (checked query with
    defaults), `query` (raw: name -> list of strings), `headers`, `body`
    (checked JSON dict, or None), `raw_body`, `request_id`,
    `idempotency_key` (header value or None), `store`, `clock`, `config`,
    `app` and, on authenticated routes, `api_key`, `workspace`, `member`,
    `workspace_id`.
    """

    def __init__(self, app: App, environ: dict):
        self.app = app
        self.store: Store = app.store
        self.clock: Clock = app.clock
        self.config: Config = app.config
        self.environ = environ
        self.method = environ["REQUEST_METHOD"].upper()
        self.path = environ.get("PATH_INFO", "") or "/"
        self.query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        self.headers = Headers()
        for k, v in environ.items():
            if k.startswith("HTTP_"):
                self.headers[k[5:].replace("_", "-").lower()] = v
        if environ.get("CONTENT_TYPE"):
            self.headers["content-type"] = environ["CONTENT_TYPE"]
        client_id = (self.headers.get("x-request-id") or "").strip()
        self.request_id = client_id[:REQUEST_ID_MAX] if client_id else f"req_{uuid.uuid4().hex}"
        self.idempotency_key: str | None = (self.headers.get("idempotency-key") or "").strip() or None
        self.minted_idempotency_key = False
        self.path_params: dict[str, str] = {}
        self.params: dict[str, Any] = {}
        self.body: Any = None
        self.raw_body = b""
        self.api_key: dict | None = None
        self.workspace: dict | None = None
        self.member: dict | None = None
        self.workspace_id: str | None = None

    # -- things handlers use --------------------------------------------------
    @property
    def base_url(self) -> str:
        host = self.headers.get("host") or f"{self.environ.get('SERVER_NAME')}:{self.environ.get('SERVER_PORT')}"
        return f"http://{host}"

    @property
    def app_url(self) -> str:
        return (self.config.app_url or f"{self.base_url}/app").rstrip("/")

    def ensure_idempotency_key(self) -> str:
        """The request's Idempotency-Key, minting one when none was sent (the
        answer is then stored under the minted key, so the client can repeat
        the request with it to poll, e.g. agent background runs)."""
        if not self.idempotency_key:
            self.idempotency_key = str(uuid.uuid4())
            self.minted_idempotency_key = True
        return self.idempotency_key

    def check_credits(self, amount: float) -> None:
        """402 unless the workspace has at least `amount` credits (reserve check)."""
        ws = self.store.get("workspace", self.workspace_id)
        if ws is None or ws.get("credits", 0) < amount or ws.get("credits", 0) <= 0:
            raise insufficient_credits()

    def charge(self, amount: float) -> float:
        """Debit `amount` credits atomically; 402 when the workspace has too
        few. Returns the remaining balance."""
        with self.store.lock:
            ws = self.store.get("workspace", self.workspace_id)
            balance = ws.get("credits", 0) if ws else 0
            if balance <= 0 or balance < amount:
                raise insufficient_credits()
            ws["credits"] = balance - amount
            self.store.save("workspace", ws, touch=False)
            return ws["credits"]


# --------------------------------------------------------------------------
# The application
# --------------------------------------------------------------------------
# One line per request: method, path (never the query), status, the request id
# (the client's X-Request-Id when it sent one: the contract lets a client name
# its own, and the console sends the id of the page or task behind the call),
# and the time to the answer's first byte. `python -m sandbox` prints it
# (SANDBOX_ACCESS_LOG=0 turns it off); in tests it is a logger like any other.
access_log = logging.getLogger("sandbox.access")


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


STATUS_TEXT = {
    200: "OK",
    201: "Created",
    202: "Accepted",
    204: "No Content",
    400: "Bad Request",
    401: "Unauthorized",
    402: "Payment Required",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Payload Too Large",
    501: "Not Implemented",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
}

MAX_BODY = 5 * 1024 * 1024
IDEMPOTENCY_KEY_MAX = 255
# A client's own X-Request-Id is echoed up to this many characters (the document says so).
REQUEST_ID_MAX = 200


def _strip_seq(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_seq(v) for k, v in value.items() if k != "_seq"}
    if isinstance(value, list):
        return [_strip_seq(v) for v in value]
    return value


class App:
    """The WSGI application. `App(store, clock, config)`; call `seed()` once."""

    def __init__(self, store: Store, clock: Clock, config: Config):
        self.store = store
        self.clock = clock
        self.config = config
        store.clock = clock
        load_route_modules()
        self._rate: dict[str, deque] = {}
        self._rate_lock = threading.Lock()
        self._idem_locks: dict[tuple[str, str], threading.Lock] = {}
        self._idem_guard = threading.Lock()
        self._mcp: Any = None  # sandbox.mcp_server.McpEndpoint, made on first use

    def seed(self) -> None:
        from sandbox.seed import run_seed

        run_seed(self.store, self.clock, self.config)

    # -- WSGI ---------------------------------------------------------------
    def __call__(self, environ, start_response):
        started = time.monotonic()
        req = Request(self, environ)
        if req.path == MCP_PATH:
            return self.serve_mcp(req, environ, start_response, started)
        try:
            result = self.dispatch(req)
        except ApiError as exc:
            result = self.error_response(exc)
        except Exception:  # a bug: answer the spec's 500 body, never a traceback
            import traceback

            traceback.print_exc()
            result = self.error_response(ApiError(500, "server_error", "The sandbox failed; this is a bug."))
        answer = self.send(req, result, start_response)
        elapsed_ms = (time.monotonic() - started) * 1000
        access_log.info(
            "%s %s %s request_id=%s %.1fms",
            req.method,
            req.path,
            result.status,
            req.request_id,
            elapsed_ms,
            extra={"method": req.method, "path": req.path, "status": result.status, "request_id": req.request_id},
        )
        return answer

    def serve_mcp(self, req: Request, environ: dict, start_response, started: float):
        """`/v1/mcp` (sandbox/mcp_server.py): the SDK's Streamable HTTP server behind the
        same key, rate limit and request id; refusals in front of it are the JSON error body."""
        status_seen: list[int] = []

        def start(status: str, headers: list, exc_info=None):
            status_seen.append(int(status.split(" ", 1)[0]))
            headers = [(k, v) for k, v in headers if k.lower() != "x-request-id"] + [("X-Request-Id", req.request_id)]
            return start_response(status, headers, exc_info)

        try:
            try:
                from sandbox.mcp_server import McpEndpoint
            except ImportError:  # the `mcp` package is the `sandbox` extra
                raise ApiError(
                    501,
                    "server_error",
                    "This sandbox has no MCP server: install the sandbox extra (pip install 'workspace-console[sandbox]').",
                )
            answer = self.mcp_endpoint(McpEndpoint)(req, environ, start)
        except ApiError as exc:
            if exc.status == 401:
                # RFC 6750: a client (an IDE, a desktop assistant) learns it needs a bearer key.
                exc.headers["WWW-Authenticate"] = 'Bearer realm="workspace-sandbox"' + (
                    ', error="invalid_token"' if req.headers.get("authorization") else ""
                )
            answer = self.send(req, self.error_response(exc), start)
        access_log.info(
            "%s %s %s request_id=%s %.1fms",
            req.method,
            req.path,
            status_seen[0] if status_seen else "-",
            req.request_id,
            (time.monotonic() - started) * 1000,
            extra={"method": req.method, "path": req.path, "request_id": req.request_id},
        )
        return answer

    def mcp_endpoint(self, factory):
        with self._idem_guard:
            if self._mcp is None:
                self._mcp = factory(self)
            return self._mcp

    def warm_mcp(self) -> None:
        """Start the MCP server now (importing the SDK takes seconds), so a client's first
        request does not wait for it. `python -m sandbox` calls it in a thread."""
        try:
            from sandbox.mcp_server import McpEndpoint
        except ImportError:
            return
        self.mcp_endpoint(McpEndpoint).start()

    def error_response(self, exc: ApiError) -> Response:
        error = {"type": exc.type, "message": exc.message}
        if exc.details is not None:
            error["details"] = exc.details
        return Response({"error": error}, status=exc.status, headers=dict(exc.headers))

    def send(self, req: Request, result, start_response):
        headers = {"X-Request-Id": req.request_id}
        if isinstance(result, EventStream):
            headers.update({"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
            headers.update(result.headers)
            start_response(f"{result.status} {STATUS_TEXT.get(result.status, '')}", list(headers.items()))

            def frames():
                try:
                    for event, data in result.events:
                        yield sse_frame(event, _strip_seq(data))
                except ApiError as exc:
                    yield sse_frame("error", {"message": exc.message, "request_id": req.request_id})
                except Exception:
                    import traceback

                    traceback.print_exc()
                    yield sse_frame(
                        "error", {"message": "The sandbox failed; this is a bug.", "request_id": req.request_id}
                    )

            return frames()
        body = result.body
        if isinstance(body, dict) and "error" in body and result.status >= 400:
            body = {**body, "request_id": req.request_id}
        headers.update(result.headers)
        if body is None:
            payload = b""
        elif result.content_type == "application/json":
            payload = json.dumps(_strip_seq(body), separators=(",", ":")).encode()
        else:
            payload = body if isinstance(body, bytes) else str(body).encode()
        if payload or result.status != 204:
            headers.setdefault("Content-Type", result.content_type)
        headers["Content-Length"] = str(len(payload))
        start_response(f"{result.status} {STATUS_TEXT.get(result.status, '')}", list(headers.items()))
        return [b""] if req.method == "HEAD" else [payload]

    # -- dispatch -------------------------------------------------------------
    def match(self, req: Request) -> Route:
        allowed = []
        for r in ROUTES:
            m = r.regex.match(req.path)
            if m:
                if r.method == req.method or (req.method == "HEAD" and r.method == "GET"):
                    req.path_params = m.groupdict()
                    return r
                allowed.append(r.method)
        if allowed:
            raise ApiError(
                405,
                "method_not_allowed",
                f"{req.method} is not allowed on {req.path}.",
                headers={"Allow": ", ".join(sorted(set(allowed)))},
            )
        raise ApiError(404, "not_found", f"No such path: {req.path}")

    def dispatch(self, req: Request):
        r = self.match(req)
        if r.auth:
            self.authenticate(req)
            if not req.environ.get(MCP_CALL):  # a tool call was counted once, at /v1/mcp
                self.rate_limit(req)
            if r.write and req.member.get("role") == "viewer":
                raise permission_denied("This key belongs to a read-only member and may not write.")
        self.check_headers(req, r)
        self.check_path(req, r)
        self.check_query(req, r)
        self.read_body(req, r)
        if r.write and r.idempotent and r.auth:
            return self.idempotent_call(req, r)
        return self.call(req, r)

    def call(self, req: Request, r: Route):
        result = r.handler(req)
        if isinstance(result, (Response, EventStream)):
            return result
        return Response(result)

    # -- auth and rate limit -------------------------------------------------
    def authenticate(self, req: Request) -> None:
        header = req.headers.get("authorization") or ""
        if not header:
            raise ApiError(401, "authentication", "Missing API key: send Authorization: Bearer svc_sk_...")
        scheme, _, secret = header.partition(" ")
        secret = secret.strip()
        if scheme.lower() != "bearer" or not KEY_RE.match(secret):
            raise ApiError(401, "authentication", "Malformed API key: expected Authorization: Bearer svc_sk_...")
        key = self.store.api_key_by_hash(hash_secret(secret))
        if key is None:
            raise ApiError(401, "authentication", "Unknown API key.")
        if key["revoked"]:
            raise ApiError(401, "authentication", "This API key was revoked.")
        req.api_key = key
        req.workspace_id = key["workspace_id"]
        req.workspace = self.store.get("workspace", key["workspace_id"])
        req.member = self.store.get("member", key["member_id"])
        if req.workspace is None or req.member is None:
            raise ApiError(401, "authentication", "This API key no longer reaches a workspace.")

    def rate_limit(self, req: Request) -> None:
        limit = self.config.rate_limit_per_minute
        if not limit:
            return
        now = time.monotonic()
        with self._rate_lock:
            window = self._rate.setdefault(req.api_key["id"], deque())
            while window and now - window[0] >= 60:
                window.popleft()
            if len(window) >= limit:
                retry_after = max(1, math.ceil(60 - (now - window[0])))
                raise ApiError(
                    429,
                    "rate_limited",
                    f"Too many requests: {limit} per minute per key.",
                    headers={"Retry-After": str(retry_after)},
                )
            window.append(now)

    # -- checking inputs -------------------------------------------------------
    def check_headers(self, req: Request, r: Route) -> None:
        # The document's `Idempotency-Key` is at most 255 characters: a longer one is refused,
        # never cut (two different long keys cut alike would replay each other's answers).
        if r.write and req.idempotency_key and len(req.idempotency_key) > IDEMPOTENCY_KEY_MAX:
            raise invalid(
                {"Idempotency-Key": [f"must be at most {IDEMPOTENCY_KEY_MAX} characters"]},
                f"The Idempotency-Key header must be at most {IDEMPOTENCY_KEY_MAX} characters.",
            )

    def check_path(self, req: Request, r: Route) -> None:
        errors = []
        for name, value in req.path_params.items():
            schema = r.path_params.get(name)
            if schema:
                errors += VALIDATOR.errors(value, schema, (name,))
        if errors:
            raise invalid(details_from(errors), first_message(errors))

    def check_query(self, req: Request, r: Route) -> None:
        errors = []
        params: dict[str, Any] = {}
        for name, schema in r.query.items():
            values = req.query.get(name)
            if not values:
                if name in r.required_query:
                    errors.append(((name,), "is required"))
                elif "default" in schema:
                    params[name] = schema["default"]
                continue
            raw = values[-1]
            resolved = VALIDATOR.resolve(schema)
            kind = resolved.get("type")
            value: Any = raw
            if kind == "integer":
                if re.fullmatch(r"-?\d{1,18}", raw.strip()):
                    value = int(raw)
                else:
                    errors.append(((name,), "must be an integer"))
                    continue
            elif kind == "boolean":
                if raw.lower() in ("true", "1"):
                    value = True
                elif raw.lower() in ("false", "0"):
                    value = False
                else:
                    errors.append(((name,), "must be true or false"))
                    continue
            errors += VALIDATOR.errors(value, schema, (name,))
            params[name] = value
        if errors:
            raise invalid(details_from(errors), first_message(errors))
        req.params = params

    def read_body(self, req: Request, r: Route) -> None:
        try:
            length = int(req.environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > MAX_BODY:
            raise invalid({"body": ["is too large"]})
        req.raw_body = req.environ["wsgi.input"].read(length) if length > 0 else b""
        if r.body is None:
            return
        if not req.raw_body.strip():
            if r.body_required:
                raise invalid({"body": ["is required (a JSON object)"]}, "A JSON body is required.")
            req.body = {}
        else:
            try:
                req.body = json.loads(req.raw_body)
            except (ValueError, UnicodeDecodeError):
                raise invalid({"body": ["is not valid JSON"]}, "The body is not valid JSON.")
        errors = VALIDATOR.errors(req.body, r.body)
        if errors:
            raise invalid(details_from(errors), first_message(errors))

    # -- idempotency -----------------------------------------------------------
    def fingerprint(self, req: Request) -> str:
        if req.body is not None:
            canonical = json.dumps(req.body, sort_keys=True, separators=(",", ":")).encode()
        else:
            canonical = req.raw_body
        return hashlib.sha256(req.method.encode() + b" " + req.path.encode() + b"\n" + canonical).hexdigest()

    def _idem_lock(self, workspace_id: str, key: str) -> threading.Lock:
        with self._idem_guard:
            return self._idem_locks.setdefault((workspace_id, key), threading.Lock())

    def idempotent_call(self, req: Request, r: Route):
        """Same key + same body: replay the first answer (or its replay hook);
        same key + another body: 409. Only successful (2xx) answers are kept,
        so a refused request (400/402/422...) can be fixed and resent."""
        if not req.idempotency_key:
            result = self.call(req, r)
            if req.minted_idempotency_key:
                self.remember(req, result)
            return result
        with self._idem_lock(req.workspace_id, req.idempotency_key):
            stored = self.store.idempotency_get(req.workspace_id, req.idempotency_key)
            fingerprint = self.fingerprint(req)
            if stored is not None:
                if stored["fingerprint"] != fingerprint:
                    raise conflict(
                        "This Idempotency-Key was already used with a different request.",
                        {"idempotency_key": ["was used with a different body or path"]},
                    )
                return self.replay(req, stored)
            result = self.call(req, r)
            self.remember(req, result)
            return result

    def remember(self, req: Request, result) -> None:
        if not (200 <= result.status < 300):
            return
        if isinstance(result, EventStream) and result.replay is None:
            return  # a stream without a replay hook cannot be stored
        body = None if isinstance(result, EventStream) else result.body
        self.store.idempotency_put(
            req.workspace_id,
            req.idempotency_key,
            fingerprint=self.fingerprint(req),
            status=result.status,
            body=_strip_seq(body),
            headers=dict(result.headers),
            replay=result.replay,
        )

    def replay(self, req: Request, stored: dict):
        hook = stored.get("replay")
        if hook:
            name, ref_value = hook
            result = REPLAY_HOOKS[name](req, ref_value)
            if not isinstance(result, (Response, EventStream)):
                result = Response(result)
        else:
            result = Response(stored["body"], status=stored["status"], headers=dict(stored["headers"]))
        result.headers["Idempotent-Replayed"] = "true"
        return result
