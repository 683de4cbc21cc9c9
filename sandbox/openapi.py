"""The OpenAPI 3.1 document, built from the registered routes and schemas.

Every `@route(...)` contributes its path, parameters, request body and
responses; `register_schema(name, schema)` contributes `components.schemas`.
Error responses (the one error body) are added to every operation.
"""

from __future__ import annotations

import copy

from sandbox.core import ROUTES, SCHEMAS, register_schema

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


def _error_responses(write: bool, auth: bool) -> dict:
    codes = [400, 404, 405, 500]
    if auth:
        codes += [401, 429]
    if write:
        codes += [402, 403, 409, 422]
    out = {}
    for code in sorted(codes):
        resp = {"description": ERROR_TEXT[code], "content": {"application/json": {"schema": ERROR}}}
        if code == 429:
            resp["headers"] = {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds to wait"}}
        out[str(code)] = resp
    return out


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
            op["parameters"].append(
                {
                    "name": "Idempotency-Key",
                    "in": "header",
                    "required": False,
                    "description": "One per logical write; a retry with the same key and body replays the first answer.",
                    "schema": {"type": "string", "maxLength": 255},
                }
            )
        if r.body is not None:
            op["requestBody"] = {"required": r.body_required, "content": {"application/json": {"schema": r.body}}}
        for status, schema in r.responses.items():
            content_type = "application/json"
            if isinstance(schema, tuple):  # (content type, schema)
                content_type, schema = schema
            resp: dict = {"description": {200: "OK", 201: "Created", 202: "Accepted"}.get(int(status), "OK")}
            if schema is not None:
                resp["content"] = {content_type: {"schema": schema}}
                if r.stream and content_type == "application/json":
                    resp["content"]["text/event-stream"] = {"schema": {"type": "string"}}
            op["responses"][str(status)] = resp
        op["responses"].update(_error_responses(r.write, r.auth))
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
