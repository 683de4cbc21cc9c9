"""Tokens and calls of the console API's tests: a token of one scope for a
person of one role, its bearer header, the one error body."""

from __future__ import annotations

import json
from typing import Any

from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from dashboard.tokens.scopes import AUDIT, DECIDE, NOTIFICATIONS, READ, WRITE_OBJECTS
from dashboard.tokens.services import token_create


def bearer(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def token_for(user, workspace_id: str, scopes: tuple[str, ...], *, name: str = "Script") -> str:
    """A token with these scopes, made while the person is an Administrator (every scope on offer);
    the caller then sets the role the test is about (a demotion narrows the token at once)."""
    person_role_set(user=user, role=Role.ADMINISTRATOR)
    return token_create(
        user=user, workspace_id=workspace_id, name=name, scopes=list(scopes), days=30, allowed_from=[]
    ).token


def error_of(response) -> dict[str, Any]:
    body = json.loads(response.content)
    assert set(body["error"]) == {"code", "message", "request_id"}, body
    assert body["error"]["request_id"].startswith("req_"), body
    return body["error"]


def send(client, method: str, path: str, token: str, body: Any = None, **headers: str):
    call = getattr(client, method.lower())
    if method in ("GET", "DELETE"):
        return call(path, **bearer(token), **headers)
    return call(
        path, json.dumps(body if body is not None else {}), content_type="application/json", **bearer(token), **headers
    )


# (method, address in the document, the scope it needs (None: any token), what an allowed call answers).
# A write's allowed answer is its Idempotency-Key refusal: it got past every guard without a remote call.
ROUTES = [
    ("GET", "/api/v1/me", None, 200),
    ("GET", "/api/v1/inbox", READ, 200),
    ("GET", "/api/v1/audit", AUDIT, 200),
    ("GET", "/api/v1/approvals", READ, 200),
    ("POST", "/api/v1/approvals/{approval_id}/decision", DECIDE, 400),
    ("GET", "/api/v1/runs", READ, 200),
    ("GET", "/api/v1/runs/{run_id}", READ, 200),
    ("GET", "/api/v1/insights", READ, 200),
    ("GET", "/api/v1/agents/{agent_id}/insights", READ, 200),
    ("GET", "/api/v1/objects/{object_key}/records", READ, 200),
    ("POST", "/api/v1/objects/{object_key}/records", WRITE_OBJECTS, 400),
    ("GET", "/api/v1/objects/{object_key}/records/{record_id}", READ, 200),
    ("PATCH", "/api/v1/objects/{object_key}/records/{record_id}", WRITE_OBJECTS, 400),
    ("DELETE", "/api/v1/objects/{object_key}/records/{record_id}", WRITE_OBJECTS, 400),
    ("GET", "/api/v1/objects/{object_key}/trash", READ, 200),
    ("POST", "/api/v1/objects/{object_key}/trash/{trash_id}/restore", WRITE_OBJECTS, 400),
    ("GET", "/api/v1/objects/jobs/{job_id}", READ, 200),
    ("POST", "/api/v1/objects/jobs/{job_id}/undo", WRITE_OBJECTS, 400),
    ("GET", "/api/v1/notifications/preferences", NOTIFICATIONS, 200),
    ("PUT", "/api/v1/notifications/preferences", NOTIFICATIONS, 200),
]
