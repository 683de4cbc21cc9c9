"""Account identity (`GET /v1/me`), the OpenAPI document and the text guide."""

from __future__ import annotations

from sandbox.core import Response, ref, register_schema, route

register_schema(
    "Me",
    {
        "type": "object",
        "required": ["workspace", "member", "key"],
        "properties": {
            "workspace": {
                "type": "object",
                "required": ["id", "name", "timezone"],
                "properties": {
                    "id": {"type": "string", "format": "uuid"},
                    "name": {"type": "string"},
                    "timezone": {"type": "string"},
                },
            },
            "member": {
                "type": "object",
                "required": ["id", "role"],
                "properties": {"id": {"type": "string", "format": "uuid"}, "role": {"type": "string"}},
            },
            "key": {
                "type": "object",
                "required": ["id", "name", "prefix", "created_at"],
                "properties": {
                    "id": {"type": "string", "format": "uuid"},
                    "name": {"type": "string"},
                    "prefix": {"type": "string"},
                    "created_at": {"type": "string"},
                },
            },
        },
    },
)


@route(
    "GET",
    "/v1/me",
    operation_id="account_me",
    summary="Which workspace, member and key this request acts as",
    tags=["Account"],
    responses={200: ref("Me")},
)
def account_me(req):
    key = req.api_key
    return {
        "workspace": {"id": req.workspace["id"], "name": req.workspace["name"], "timezone": req.workspace["timezone"]},
        "member": {"id": req.member["id"], "role": req.member["role"]},
        "key": {"id": key["id"], "name": key["name"], "prefix": key["prefix"], "created_at": key["created_at"]},
    }


@route(
    "GET",
    "/v1/openapi.json",
    operation_id="openapi_document",
    summary="The OpenAPI 3.1 document",
    tags=["Meta"],
    auth=False,
    responses={200: {"type": "object"}},
)
def openapi_document(req):
    from sandbox.openapi import build_document

    return build_document(req.base_url)


GUIDE = """Workspace Studio, Agents and Objects API: sandbox guide
=========================================================

Base address: {base_url}/v1. Every request carries Authorization: Bearer svc_sk_...
Requests and answers are JSON. Every answer has an X-Request-Id header; errors
answer {{"error": {{"type", "message", "details"?}}, "request_id"}}.

Writes (POST, PATCH, DELETE) accept an Idempotency-Key header: the same key and
body replays the first answer; the same key with another body answers 409.

Lists take limit (1-100, default 25) and cursor; the answer carries data and
next_cursor (null on the last page).

The OpenAPI 3.1 description of every endpoint: {base_url}/v1/openapi.json

Endpoints:
{endpoints}
"""


@route(
    "GET",
    "/v1/llms-full.txt",
    operation_id="llms_guide",
    summary="A short plain-text guide",
    tags=["Meta"],
    auth=False,
    responses={200: ("text/plain", {"type": "string"})},
)
def llms_guide(req):
    from sandbox.core import ROUTES

    lines = [f"- {r.method} {r.pattern}: {r.summary or r.operation_id}" for r in ROUTES]
    text = GUIDE.format(base_url=req.base_url, endpoints="\n".join(lines))
    return Response(text, content_type="text/plain; charset=utf-8")
