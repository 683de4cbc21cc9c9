"""The plain-text guide at `/v1/llms-full.txt`: the whole guide in one text,
generated from the same route registry as the OpenAPI document and the MCP
tools (every endpoint with its fields, limits, rules and answers; the MCP
tools), plus the contract's prose the registry cannot hold (states and
transitions, events, errors, versioning), kept here beside it.
"""

from __future__ import annotations

import json

from sandbox.core import IDEMPOTENCY_KEY_MAX, REQUEST_ID_MAX, ROUTES, SCHEMAS, Route, load_route_modules

INTRO = """Workspace Studio, Agents and Objects API: the full guide (sandbox)
====================================================================

The service is a JSON-over-HTTP interface to one workspace of a marketing product:
1. Studio: make and edit websites, documents, apps, images and video by sending messages to a
   Studio director (one message is a turn); image and video Content Apps run precise operations.
2. Agents: list, draft, change, activate, pause and talk to the workspace's agents; follow their
   runs and steps; decide the approvals agents request.
3. Objects: the workspace's record systems: objects and fields, records, relationships.
4. Account: which workspace, member and key a request acts as.

Base address: {base_url}/v1 (every path begins with /v1). Web-app addresses: {app_url}.
The same operations: the MCP server at {base_url}/v1/mcp (section MCP server), the OpenAPI 3.1
document at {base_url}/v1/openapi.json, and this guide at {base_url}/v1/llms-full.txt.

This is the sandbox, the local stand-in: its time runs faster (durations below are service
time), and its demo workspace "Acme Marketing" is seeded with objects, records, Studio items,
agents, runs and approvals.
"""

CONVENTIONS = f"""Conventions
-----------
- Authentication: every request carries `Authorization: Bearer svc_sk_<SECRET>`. A key acts as
  the member who created it. Missing, malformed or revoked: 401 `authentication`; an action the
  key may not do (a read-only member writing): 403 `permission`. A key never belongs in a URL,
  a client-side bundle or a log line. `GET /v1/me` checks that a key works.
- Identifiers are UUID strings; timestamps ISO 8601 in UTC.
- Every answer carries `X-Request-Id`; error bodies repeat it as `request_id`. Send your own
  `X-Request-Id` to name a request (its first {REQUEST_ID_MAX} characters are echoed).
- Requests and answers are JSON; POST and PATCH bodies use `Content-Type: application/json`.
- Paging (every list): query `limit` (1-100, default 25) and `cursor`; the answer carries
  `next_cursor` (null on the last page); pass it as `cursor` for the next page. A cursor is
  opaque: anything but a `next_cursor` of the same list answers 400.
- Idempotency: every POST, PATCH and DELETE accepts `Idempotency-Key` (any unique string of at
  most {IDEMPOTENCY_KEY_MAX} characters, a UUID recommended, one per logical write). The same key
  and body replays the first answer (header `Idempotent-Replayed: true`) without repeating the
  work or the charge; the same key with another body or path answers 409. Only successful
  answers are kept, so a refused request can be fixed and resent with the same key. A longer
  key answers 400.
- Long operations (turns, agent runs, content apps) can wait (the server keeps a waiting
  connection open up to 800 s), stream server-sent events (`stream: true`), or run in the
  background (`background: true`, 202) and be polled every 5-10 s, backing off, until final.
- Credits: everything is billed to the workspace in credits; a workspace out of credits
  answers 402. Credits are reserved before a content app run and only what was made is charged.
"""

STATES = """States and transitions
----------------------
Studio turn `status`: `completed`, `needs_input`, `building`, `failed`.
- (none) -> building: a website turn without artifact_id, the request clear or `auto: true`:
  the site is created and a job queued; the answer comes in seconds, the site builds in 2-5 min.
- (none) -> needs_input: the director needs more and `auto` is false (`questions` or `outline`).
- needs_input -> a new turn: a further turn with the same conversation_id or artifact_id; the
  reply goes in `message` (for documents any go-ahead approves the outline).
- building -> completed: the background build finishes (poll GET /v1/turns/{id} or
  GET /v1/websites/{id}); job.status `succeeded`, job.stage `complete`; `public_url` is where the
  site lives once published.
- (none) -> building: a website turn with artifact_id (edit 20-90 s, rebuild 1-3 min).
- (none) -> completed: a question or chat, answered directly.
- any state after the turn is claimed -> failed: `error` is in the turn body.

Agent `status`: `draft` (never turned on), `active` (listening for wake-ups), `paused`, `archived`.
- draft -> active: POST /v1/agents/{id}/activate with a ready plan (plan compiled, wake-ups set
  up, one immutable version published). Not ready: stays draft, 422 with error.details.issues.
- active -> active: activate again publishes a new version from the current draft.
- active -> paused: POST /v1/agents/{id}/pause (wake-ups torn down; runs in flight finish).
- paused -> active: activate. paused -> paused: pause again (harmless). A draft cannot pause (409).
- create or change by message edits the draft; an active agent keeps running its activated
  version until activated again. Archived agents refuse change, activate and runs (409).

Run `status`: `running`, `waiting` (for time, an event or an approval; `waiting_for` says which),
`completed`, `failed`, `cancelled`.
- running -> waiting: the run reaches an action that needs a person's approval.
- waiting -> resumes (then completed): the approval is decided `approve`; the action runs
  exactly as shown and the answer carries the resumed run's `outcome`.
- waiting -> cancelled: the approval is decided `reject`; the action never runs.

Approval status: `pending`, `approved`, `rejected`; `risk` is `write`, `send`, `spend` or
`destructive`; `can_always_allow` says whether `always: true` may go with approve.
- pending -> approved: POST /v1/approvals/{id} with `approve` (with `always: true` where
  `can_always_allow`, the agent may take this kind of action without asking again).
- pending -> rejected: the same with `reject`.
- approved or rejected -> unchanged: deciding again answers 409.

Video content-app shot:
- (none) -> building: a video app run with project_id answers 202 with a `job` (1-3 min).
- building -> complete: repeat the same request with the same Idempotency-Key; when the shot is
  done the body carries `asset` and the shot is at the end of the project's video. The repeat
  never starts or charges a second job.

Objects, fields, records and relationships have no states.
"""

EVENTS = """Events
------
With `stream: true` the answer is `text/event-stream`: each event is one `event: <name>` line and
one `data: <json>` line, then a blank line. The final event is `result` (its data is the body a
waiting call would have answered) or `error` (data `{{message, request_id}}`); the stream closes
after it.
{streams}

Agent wake-ups: a person talking to the agent (chat), a schedule, a webhook, an object being
created or updated, a connected app, or an app call. A webhook deployment has an endpoint;
POSTing JSON to it (no key: the address is the secret) wakes the active agent with a run.
"""

ERRORS = """Errors
------
Every error has one body: {"error": {"type", "message", "details"?}, "request_id"}. For 400,
`details` names the offending fields, nested by property, each with a list of messages
(for example {"fields": {"0": {"label": ["is required"]}}}).

| Status | error.type | When | What to do |
| 400 | invalid_request | a body, query, path parameter or header fails validation | fix the named field; do not retry unchanged |
| 401 | authentication | key missing, malformed or revoked | stop and obtain a valid key |
| 402 | insufficient_credits | the workspace is out of credits | stop; top up in billing settings |
| 403 | permission | the key may not do this | do not retry |
| 404 | not_found | no such path, or no such id in this workspace | re-list |
| 405 | method_not_allowed | a known path with another method (`Allow` lists the methods) | use a listed method |
| 409 | conflict | state changed, an Idempotency-Key reused with another body, a taken object key, an approval already decided | re-read, then retry with a new key |
| 422 | validation_error | record values failing validation (the message names the field); activation of a plan that is not ready (details.issues); a content app that is not runnable (the reason) | fix and resend |
| 429 | rate_limited | too many requests for this key | wait Retry-After seconds, then retry with the same key |
| 5xx | server_error | server failure | retry with backoff and the same Idempotency-Key |

Reads answer 400, 401, 404, 429, 500. Writes and turns also answer 402, 403, 409 and 422.
A turn or agent run answering 202 is not an error.
"""

LIMITS = f"""Limits
------
- `message`: 3800 characters (website, image, video turns); 18000 (document, app turns);
  20000 (agent create, change, run).
- Agent `name`: 120. Object `singular_name`, `plural_name`: 80; `description`: 2000; `icon`: 64;
  `color`: 32. Field `label`: 120. Relationship `label`: 200.
- Content apps: `prompt` 6000, `direction` 2000, `product`/`audience`/`angle`/`hook` 500 each,
  `offer` 2000, `creator` 300, `count` 1-4 (each result charged), `reference_asset_ids` up to 4,
  a source video clip (recast, remake) at most 15 seconds.
- Page size 1-100, default 25. `Idempotency-Key` at most {IDEMPOTENCY_KEY_MAX} characters.
- The server keeps a waiting connection open up to 800 s (turns, content app runs, agent
  create, change, activate and run, approval decide). Poll background work every 5-10 s.
- Typical durations: website new 2-5 min (background build); website edit 20-90 s plus 1-3 min
  rebuild; document 20-60 s; app 45-120 s; image turn 20-60 s; image app 20-90 s; video turn
  10-40 s; video shot 1-3 min; motion 1-4 min; agent draft 10-90 s.
Each endpoint below states its own field limits.
"""

VERSIONING = """Versioning
----------
- The interface version is 1.0.0; every path carries the prefix /v1.
- The machine-readable description is OpenAPI 3.1 at {base_url}/v1/openapi.json.
- The MCP server states protocol version 2026-07-28 and also serves clients of versions
  2025-03-26 through 2025-11-25.
- Object keys never change once created. A published agent version is immutable; activating
  again publishes a new version.
"""

MCP = """MCP server
----------
- Address {base_url}/v1/mcp: Streamable HTTP, stateless (no session id); protocol version
  2026-07-28 (no handshake: each POST carries its version), and the initialize handshake of
  2025-03-26, 2025-06-18 and 2025-11-25 (an older version asked for is answered with 2025-11-25;
  from 2025-06-18 on, requests carry the MCP-Protocol-Version header).
- The same key in the same header: Authorization: Bearer svc_sk_... A missing or wrong key
  answers HTTP 401 with `WWW-Authenticate: Bearer`. A browser page of another site is refused
  (an Origin other than this server's own or a loopback address: 403).
- Tool name = the operation id of the endpoint; arguments = its path, query and body fields
  flattened into one object (each tool's JSON Schema 2020-12 is the endpoint's own). Write tools
  take an optional `idempotency_key`, which means exactly what the Idempotency-Key header means.
- A result carries the REST answer's body as structured content and as text. A service error
  (401, 402, 403, 404, 409, 422, 429...) is a tool result with `isError`, the same message and
  `request_id` (structured content: {{status, error, request_id}}). Protocol faults (bad JSON, an
  unknown method or tool) are JSON-RPC errors.
- Turn tools default to `background: true` (answer at once; poll studio_turn_get). Pass
  `background: false` to wait; a client that sends a progress token receives the director's
  events (turn, plan, each step) as progress notifications on that request's stream. Closing
  the stream cancels the wait, not the turn. agents_runs_create waits by default, and streams
  its events as progress the same way when a progress token is sent.
- To point an MCP client at the sandbox: the URL {base_url}/v1/mcp with the header
  Authorization: Bearer <a demo key> (the MCP clients section of sandbox/README.md).

Tools ({count}):
{tools}
"""


def _resolve(schema: dict) -> dict:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def describe(schema: dict) -> str:
    """`string, uuid, max 120, one of: a, b, default false`."""
    schema = _resolve(schema)
    if "anyOf" in schema and "type" not in schema:
        return " or ".join(describe(alt) for alt in schema["anyOf"])
    kind = schema.get("type", "any")
    words = [" or ".join(kind) if isinstance(kind, list) else kind]
    if kind == "array" and "items" in schema:
        words = [f"list of {describe(schema['items'])}"]
    if schema.get("format"):
        words.append(schema["format"])
    if "enum" in schema:
        words.append("one of: " + ", ".join(str(v) for v in schema["enum"] if v is not None))
    if "const" in schema:
        words.append(f"exactly {json.dumps(schema['const'])}")
    for keyword, word in (
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minimum", "min"),
        ("maximum", "max"),
        ("minItems", "at least"),
        ("maxItems", "at most"),
    ):
        if keyword in schema:
            words.append(f"{word} {schema[keyword]}" + (" items" if keyword.endswith("Items") else ""))
    if "default" in schema:
        words.append(f"default {json.dumps(schema['default'])}")
    return ", ".join(words)


def field_lines(schema: dict, indent: str = "  ", depth: int = 0) -> list[str]:
    schema = _resolve(schema)
    required = set(schema.get("required", []))
    lines = []
    for name, prop in schema.get("properties", {}).items():
        text = f"{indent}- {name} ({describe(prop)}{', required' if name in required else ''})"
        note = _resolve(prop).get("description")
        lines.append(text + (f": {note}" if note else ""))
        inner = _resolve(prop)
        if inner.get("type") == "array":
            inner = _resolve(inner.get("items", {}))
        if depth < 2 and inner.get("properties"):
            lines += field_lines(inner, indent + "    ", depth + 1)
            if inner.get("x-error"):
                lines.append(f"{indent}    - rule (on {inner['x-error']['at']}): {inner['x-error']['message']}")
    if schema.get("additionalProperties") is False and depth == 0:
        lines.append(f"{indent}(no other fields are accepted)")
    return lines


def rule_lines(schema: dict) -> list[str]:
    schema = _resolve(schema)
    rules = [schema] + list(schema.get("allOf", []))
    out = []
    for rule in rules:
        named = rule.get("x-error")
        if named:
            out.append(f"  - rule (on {named['at']}): {named['message']}")
    return out


def endpoint_text(r: Route) -> str:
    lines = [f"### {r.method} {r.pattern}  ({r.operation_id})", r.summary]
    if r.description:
        lines.append(r.description)
    lines.append(
        "Key: " + ("required" if r.auth else "none") + ("; a write (Idempotency-Key accepted)" if r.write else "")
    )
    params = []
    for name in r.regex.groupindex:
        params.append(f"  - {name} (path, {describe(r.path_params.get(name, {'type': 'string'}))})")
    for name, schema in r.query.items():
        required = ", required" if name in r.required_query else ""
        note = schema.get("description")
        params.append(f"  - {name} (query, {describe(schema)}{required})" + (f": {note}" if note else ""))
    if params:
        lines += ["Parameters:", *params]
    if r.body is not None:
        lines.append("Body" + (" (JSON, required):" if r.body_required else " (JSON, optional):"))
        lines += field_lines(r.body) + rule_lines(r.body)
    answers = ", ".join(str(status) for status in r.responses)
    lines.append(f"Answers: {answers}" + ("; `stream: true`: events " + ", ".join(r.stream_events) if r.stream else ""))
    return "\n".join(lines)


def build_guide(base_url: str, app_url: str) -> str:
    from sandbox.mcp_server import build_tools

    load_route_modules()
    groups: dict[str, list[Route]] = {}
    for r in ROUTES:
        groups.setdefault((r.tags or ["Other"])[0], []).append(r)
    endpoints = ["Endpoints", "---------"]
    for tag, routes in groups.items():
        endpoints.append(f"\n## {tag}\n")
        endpoints += [endpoint_text(r) + "\n" for r in routes]
    streams = "\n".join(f"- {r.method} {r.pattern}: " + ", ".join(r.stream_events) for r in ROUTES if r.stream)
    tools = build_tools()
    tool_lines = "\n".join(
        f"- {t['name']}: {t['title']}"
        + (" (read-only)" if t["annotations"]["readOnlyHint"] else "")
        + (" (destructive)" if t["annotations"]["destructiveHint"] else "")
        + f"; arguments: {', '.join(t['inputSchema']['properties']) or 'none'}"
        for t in tools
    )
    parts = [
        INTRO.format(base_url=base_url, app_url=app_url),
        CONVENTIONS,
        "\n".join(endpoints),
        STATES,
        EVENTS.format(streams=streams),
        ERRORS,
        LIMITS,
        VERSIONING.format(base_url=base_url),
        MCP.format(base_url=base_url, count=len(tools), tools=tool_lines),
    ]
    return "\n\n".join(part.strip("\n") for part in parts) + "\n"
