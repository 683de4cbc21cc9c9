"""The SCIM client of the directory tests: the Django test client speaking
application/scim+json with a directory token, no cookie."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.test import Client

BASE = "/scim/v2/"


@dataclass
class Scim:
    """A directory's client: each call answers (status, parsed body or None, response)."""

    token: str
    client: Client

    def call(self, method: str, path: str, body: Any = None, token: str | None = None, **query: str):
        headers = {"Authorization": f"Bearer {self.token if token is None else token}"}
        response = self.client.generic(
            method,
            BASE + path + (f"?{urlencode(query)}" if query else ""),
            data=json.dumps(body) if body is not None else "",
            content_type="application/scim+json",
            headers=headers,
        )
        parsed = json.loads(response.content) if response.content else None
        return response.status_code, parsed, response


def new_user(user_name: str = "dana@example.com", **more: Any) -> dict[str, Any]:
    return {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": user_name,
        "externalId": "00u-dana",
        "name": {"givenName": "Dana", "familyName": "Scully"},
        "emails": [{"value": user_name, "type": "work", "primary": True}],
        "active": True,
        **more,
    }


def patch(*operations: dict[str, Any]) -> dict[str, Any]:
    return {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": list(operations)}
