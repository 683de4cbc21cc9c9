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
    description="Checks that the key works and says what it reaches: the workspace (id, name, IANA time zone), the member the key acts as (id, role) and the key itself (id, name, prefix, created_at). The secret is never returned. A missing, malformed or revoked key answers 401 `authentication`.",
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
    description="This document: every operation with its parameters, bodies, answers and error statuses, built from the same schemas that check requests. No key needed.",
    tags=["Meta"],
    auth=False,
    responses={200: {"type": "object"}},
)
def openapi_document(req):
    from sandbox.openapi import build_document

    return build_document(req.base_url)


@route(
    "GET",
    "/v1/llms-full.txt",
    operation_id="llms_guide",
    summary="The whole guide in plain text",
    description="The whole guide in plain text for a language model or a person: every endpoint with its fields, states and transitions, events, errors, limits, versioning and the MCP server. Generated from the same route registry as this document. No key needed.",
    tags=["Meta"],
    auth=False,
    responses={200: ("text/plain", {"type": "string"})},
)
def llms_guide(req):
    from sandbox.guide import build_guide

    return Response(build_guide(req.base_url, req.app_url), content_type="text/plain; charset=utf-8")
