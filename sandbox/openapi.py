"""The OpenAPI 3.1 document, built from the registered routes and schemas.

Every `@route(...)` contributes its path, parameters, request body and
responses; `register_schema(name, schema)` contributes `components.schemas`.
Error responses (the one error body) are added to every operation.
"""

from __future__ import annotations

import copy

from sandbox.core import IDEMPOTENCY_KEY_MAX, REQUEST_ID_MAX, ROUTES, SCHEMAS, register_schema

ERROR = register_schema(
    "Error",
    {
        "type": "object",
        "required": ["error", "request_id"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["type", "message"],
                "properties": {
                    "type": {"type": "string"},
                    "message": {"type": "string"},
                    "details": {"type": "object"},
                },
            },
            "request_id": {"type": "string"},
        },
    },
)

ERROR_TEXT = {
    400: "Invalid request: `error.details` names the fields",
    401: "Missing, malformed or revoked key",
    402: "The workspace is out of credits",
    403: "The key may not do this",
    404: "No such path or id in this workspace",
    405: "Method not allowed",
    409: "Conflict: state changed, Idempotency-Key reused with another body, or a taken key",
    422: "Validation failed (the message names the field)",
    429: "Rate limited; wait Retry-After seconds",
    500: "Server error",
}

API_VERSION = "1.0.0"


# Every answer, errors included, carries the request id (the client's own, when it sent one).
REQUEST_ID_HEADER = {
    "X-Request-Id": {
        "required": True,
        "schema": {"type": "string", "minLength": 1},
        "description": "The request id; error bodies repeat it as `request_id`.",
    }
}
REQUEST_ID_PARAM = {
    "name": "X-Request-Id",
    "in": "header",
    "required": False,
    "description": f"Your own request id, echoed in the `X-Request-Id` answer header and error bodies "
    f"(its first {REQUEST_ID_MAX} characters); without one the server makes one.",
    "schema": {"type": "string"},
}
IDEMPOTENCY_KEY_PARAM = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "One per logical write (a UUID is recommended); a retry with the same key and body "
    f"replays the first answer, the same key with another body answers 409. At most {IDEMPOTENCY_KEY_MAX} "
    "characters (a longer one answers 400); an empty one is no key.",
    "schema": {"type": "string", "maxLength": IDEMPOTENCY_KEY_MAX},
}


def _error_responses(write: bool, auth: bool, *, html: bool = False) -> dict:
    """`html`: a page route (sandbox/published.py) also answers its 404 as an HTML page to a browser."""
    codes = [400, 404, 405, 500]
    if auth:
        codes += [401, 429]
    if write:
        codes += [402, 403, 409, 422]
    out = {}
    for code in sorted(codes):
        resp = {
            "description": ERROR_TEXT[code],
            "headers": dict(REQUEST_ID_HEADER),
            "content": {"application/json": {"schema": ERROR}},
        }
        if code == 404 and html:
            resp["description"] += "; a browser (Accept: text/html) gets a Not found page"
            resp["content"]["text/html"] = {"schema": {"type": "string"}}
        if code == 429:
            resp["headers"]["Retry-After"] = {"schema": {"type": "integer"}, "description": "seconds to wait"}
        out[str(code)] = resp
    return out


def stream_event_schema(events: list[str]) -> dict:
    """One server-sent event (OpenAPI 3.1: the `text/event-stream` schema describes each event):
    its name and its `data`, one line of JSON."""
    return {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": {"type": "string", "enum": events},
            "data": {"type": "string", "contentMediaType": "application/json"},
        },
    }


def _param_schema(schema: dict) -> dict:
    schema = copy.deepcopy(schema)
    schema.pop("description", None)
    return schema


def build_document(base_url: str | None = None) -> dict:
    paths: dict = {}
    for r in ROUTES:
        op: dict = {
            "operationId": r.operation_id,
            "summary": r.summary or r.operation_id.replace("_", " "),
            "tags": r.tags,
            "parameters": [],
            "responses": {},
        }
        if r.description:
            op["description"] = r.description
        if not r.auth:
            op["security"] = []
        for name in _path_names(r.pattern):
            op["parameters"].append(
                {
                    "name": name,
                    "in": "path",
                    "required": True,
                    "schema": _param_schema(r.path_params.get(name, {"type": "string"})),
                }
            )
        for name, schema in r.query.items():
            param = {"name": name, "in": "query", "required": name in r.required_query, "schema": _param_schema(schema)}
            if schema.get("description"):
                param["description"] = schema["description"]
            op["parameters"].append(param)
        if r.write:
            op["parameters"].append(dict(IDEMPOTENCY_KEY_PARAM))
        op["parameters"].append(dict(REQUEST_ID_PARAM))
        if r.body is not None:
            op["requestBody"] = {"required": r.body_required, "content": {"application/json": {"schema": r.body}}}
        html = False
        for status, schema in r.responses.items():
            content_type = "application/json"
            if isinstance(schema, tuple):  # (content type, schema)
                content_type, schema = schema
            html = html or content_type.startswith("text/html")
            resp: dict = {
                "description": {200: "OK", 201: "Created", 202: "Accepted"}.get(int(status), "OK"),
                "headers": dict(REQUEST_ID_HEADER),
            }
            if schema is not None:
                resp["content"] = {content_type: {"schema": schema}}
                if r.stream and content_type == "application/json" and int(status) == 200:
                    resp["content"]["text/event-stream"] = {"schema": stream_event_schema(r.stream_events)}
            op["responses"][str(status)] = resp
        op["responses"].update(_error_responses(r.write, r.auth, html=html))
        if r.slow:
            op["x-slow"] = True
        if not op["parameters"]:
            del op["parameters"]
        paths.setdefault(r.pattern, {})[r.method.lower()] = op
    doc = {
        "openapi": "3.1.0",
        "info": {
            "title": "Workspace Studio, Agents and Objects API (sandbox)",
            "version": API_VERSION,
            "description": "Local stand-in for the remote service. Every error answers "
            "`{error: {type, message, details?}, request_id}`.",
        },
        "servers": [{"url": base_url or "/"}],
        "security": [{"bearerAuth": []}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearerAuth": {"type": "http", "scheme": "bearer", "description": "svc_sk_... API key"}
            },
            "schemas": copy.deepcopy(SCHEMAS),
        },
    }
    return doc


def _path_names(pattern: str) -> list[str]:
    import re

    return re.findall(r"\{([a-z_]+)\}", pattern)
