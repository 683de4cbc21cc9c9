"""Hostile values (tests/fuzz's list) in every path parameter, query
parameter and JSON body of the API's routes, sent with a working token of
every scope against a real sandbox: never a 500 or a traceback, always the
one error body when refused, even where a malformed id makes the address
no route at all. (tests/fuzz drives the same addresses without a token:
refused at the door.)"""

from __future__ import annotations

import json
import re
import uuid
from urllib.parse import quote

import pytest

from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from dashboard.tokens.scopes import SCOPES
from tests.agents.support import store_demo_key
from tests.console_api.support import ROUTES, bearer, token_for
from tests.fuzz.support import HOSTILE_TEXT

pytestmark = pytest.mark.django_db

# Every fifth hostile value, and the ones that broke things before: enough to cross every reader.
VALUES = sorted(set(HOSTILE_TEXT[::5]) | {"\x00", "\ud800", "1" * 5000, "-1", "NaN", "[" * 3000 + "]" * 3000})
QUERY_NAMES = ("status", "agent", "thread", "cursor", "days", "q", "sort", "limit", "after")
BODIES = [
    {"values": "not an object"},
    {"values": {"name": "\x00"}, "shown": {"name": None}},
    {"values": {"x" * 300: 1}, "shown": {}},
    {"decision": "maybe"},
    {"cadence": "\ud800", "time_zone": "1e999", "quiet_from": "25:99", "away_until": "NaN"},
    {"approval_risks": [{"deep": ["[" * 50]}], "delegate": "\x00"},
]


def _encoded(value: str) -> str:
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


def test_no_route_answers_a_500_whatever_is_sent(api_sandbox, settings, user, client):
    settings.SERVICE_BASE_URL = api_sandbox.base_url
    key = store_demo_key(user, api_sandbox)
    token = token_for(user, key.workspace_id, tuple(SCOPES), name="Hostile")
    person_role_set(user=user, role=Role.ADMINISTRATOR)
    sent = 0
    for method, template, _, _ in ROUTES:
        for value in VALUES:
            path = re.sub(r"\{[a-z_]+\}", _encoded(value), template)
            query = "&".join(f"{name}={_encoded(value)}" for name in QUERY_NAMES)
            headers = {**bearer(token), "HTTP_IDEMPOTENCY_KEY": f"hostile-{uuid.uuid4()}"}
            bodies = BODIES if method in ("POST", "PUT", "PATCH") else [None]
            for body in bodies:
                data = json.dumps(body) if body is not None else ""
                answer = client.generic(method, f"{path}?{query}", data, content_type="application/json", **headers)
                sent += 1
                where = f"{method} {template} with {value[:40]!r} {data[:80]}"
                assert answer.status_code < 500, (where, answer.content[:300])
                assert b"Traceback" not in answer.content, where
                if answer.status_code >= 400:
                    assert answer["Content-Type"] == "application/json", (
                        where,
                        answer.status_code,
                        answer.content[:300],
                    )
                    error = json.loads(answer.content)["error"]
                    assert set(error) == {"code", "message", "request_id"} and error["request_id"], where
    assert sent > 300
