"""The token matrix: every route of the console's API (read from its OpenAPI
document, so a new route without a row here fails) with a token of each
scope, for a person of each console role. A refusal says what refuses (the
scope not given, or the role that no longer allows it) and costs no remote
call; what is allowed goes on (a read answers, a write reaches its
Idempotency-Key check, still before any remote call). A workspace key that
only reads is refused by the pages' write guard, in the pages' words, as is a console
role that only reads at a records write (the pages' refusal, not the
token's)."""

from __future__ import annotations

import json
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from dashboard.api import ServiceClient
from dashboard.api.testing import RemoteCallCounter
from dashboard.keys.testing import stored_api_key
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from dashboard.tokens.scopes import (
    AUDIT,
    DECIDE,
    NOTIFICATIONS,
    READ,
    SCOPES,
    WRITE_AGENTS,
    WRITE_OBJECTS,
    WRITE_STUDIO,
)
from objects.models import ObjectJob, TrashedRecord
from tests.agents.support import store_demo_key
from tests.console_api.support import ROUTES, error_of, send, token_for
from tests.write_guard import refusal_of

pytestmark = pytest.mark.django_db

# What each console role allows of the scopes (docs/api.md, dashboard/people/roles.py), written out.
ALLOWS = {
    Role.VIEWER: {READ, NOTIFICATIONS},
    Role.MEMBER: {READ, NOTIFICATIONS, WRITE_STUDIO, WRITE_AGENTS, WRITE_OBJECTS},
    Role.APPROVER: {READ, NOTIFICATIONS, WRITE_STUDIO, WRITE_AGENTS, WRITE_OBJECTS, DECIDE},
    Role.AUDITOR: {READ, NOTIFICATIONS, AUDIT},
    Role.ADMINISTRATOR: set(SCOPES),
}

BODIES = {
    "/api/v1/approvals/{approval_id}/decision": {"decision": "reject"},
    "/api/v1/objects/{object_key}/records": {"values": {"name": "From the matrix"}},
    "/api/v1/objects/{object_key}/records/{record_id}": {"values": {"name": "B"}, "shown": {"name": "A"}},
}


def _documented_routes() -> set[tuple[str, str]]:
    document = json.loads(Client().get("/api/v1/openapi.json").content)
    return {(method.upper(), path) for path, methods in document["paths"].items() for method in methods}


@pytest.fixture
def world(api_sandbox, settings, user):
    settings.SERVICE_BASE_URL = api_sandbox.base_url
    key = store_demo_key(user, api_sandbox)
    service = ServiceClient(api_key=api_sandbox.demo_key)
    suffix = uuid.uuid4().hex[:6]
    obj = service.post(
        "/v1/objects",
        json={
            "singular_name": f"Matrix {suffix}",
            "plural_name": f"Matrices {suffix}",
            "title_field": "name",
            "fields": [{"label": "Name", "key": "name", "type": "text", "required": True}],
        },
    )
    record = service.post(f"/v1/objects/{obj['key']}/records", json={"values": {"name": "A"}})
    agent = service.get("/v1/agents", params={"limit": 1})["data"][0]
    run = service.get(f"/v1/agents/{agent['id']}/runs", params={"limit": 1})["data"][0]
    trashed = TrashedRecord.objects.create(
        workspace_id=key.workspace_id, object_key=obj["key"], record_id="gone-1", title="Gone", values={"name": "Gone"}
    )
    job = ObjectJob.objects.create(
        uid=uuid.uuid4(),
        owner_key=key,
        started_by=user,
        workspace_id=key.workspace_id,
        object_key=obj["key"],
        kind=ObjectJob.KIND_EDIT,
        title="Bulk edit",
        status=ObjectJob.DONE,
        total=1,
        succeeded=1,
    )
    ids = {
        "approval_id": "aaaaaaaa-0000-4000-8000-000000000001",
        "run_id": run["id"],
        "agent_id": agent["id"],
        "object_key": obj["key"],
        "record_id": record["id"],
        "trash_id": str(trashed.pk),
        "job_id": str(job.pk),
    }
    return {"key": key, "ids": ids}


def test_every_route_with_each_scope_and_each_role_refuses_in_words_with_no_remote_call(
    world, user, client, logged_in_client
):
    assert {(method, path) for method, path, _, _ in ROUTES} == _documented_routes()
    workspace_id, ids = world["key"].workspace_id, world["ids"]
    tokens = {scope: token_for(user, workspace_id, (scope,), name=f"Only {scope}") for scope in SCOPES}
    checked = refused = 0
    for role in Role:
        person_role_set(user=user, role=role)
        # What the records pages tell this role at a write address ("" when it may write).
        page = logged_in_client.post(reverse("objects:record_new", args=[ids["object_key"]]), {})
        page_words = refusal_of(page.content) if page.status_code == 403 else ""
        assert bool(page_words) == (WRITE_OBJECTS not in ALLOWS[role]), role
        for scope, token in tokens.items():
            for method, template, needed, allowed_status in ROUTES:
                path = template.format(**ids)
                with RemoteCallCounter() as calls:
                    answer = send(client, method, path, token, BODIES.get(template))
                where = f"{role} with “{scope}”: {method} {path}"
                checked += 1
                if needed is None or (scope == needed and needed in ALLOWS[role]):
                    assert answer.status_code == allowed_status, (where, answer.content)
                    if allowed_status == 400:
                        assert error_of(answer)["code"] == "idempotency_key_required", where
                        assert calls.count == 0, (where, calls.paths)
                    continue
                refused += 1
                assert answer.status_code == 403, (where, answer.content)
                error = error_of(answer)
                assert calls.count == 0, (where, calls.paths)
                if needed == WRITE_OBJECTS and page_words:
                    # A role that only reads: the records pages' own refusal, word for word, whatever the scope.
                    assert (error["code"], error["message"]) == ("write_refused", page_words), where
                    continue
                assert error["code"] == "scope_refused", where
                if scope != needed:
                    assert error["message"] == f"This token was not given the scope “{needed}” ({SCOPES[needed]}).", (
                        where
                    )
                else:
                    assert error["message"].startswith(f"Your role no longer allows “{needed}”"), where
                assert calls.count == 0, (where, calls.paths)
    assert checked == len(Role) * len(SCOPES) * len(ROUTES)
    # Most of the matrix is refusals: each scope opens only its own routes.
    assert refused > checked // 2


def test_a_workspace_key_that_only_reads_is_refused_every_write_in_the_pages_words_with_no_remote_call(
    settings, user, logged_in_client, client
):
    settings.SERVICE_BASE_URL = "http://service.invalid"
    key = stored_api_key(user=user, secret="svc_sk_viewer_0000000000000000", member_role="viewer")
    token = token_for(user, key.workspace_id, (READ, WRITE_OBJECTS, DECIDE))
    person_role_set(user=user, role=Role.ADMINISTRATOR)
    # What the records pages say to the same person (the "Not allowed" page of a write address).
    page = logged_in_client.post(reverse("objects:record_new", args=["deals"]), {})
    assert page.status_code == 403
    words = refusal_of(page.content)
    assert words.startswith("Your role in this workspace (viewer) can only read.")
    job = ObjectJob.objects.create(
        uid=uuid.uuid4(),
        owner_key=key,
        started_by=user,
        workspace_id=key.workspace_id,
        object_key="deals",
        kind=ObjectJob.KIND_EDIT,
        title="Bulk edit",
        status=ObjectJob.DONE,
        succeeded=1,
    )
    ids = {"object_key": "deals", "record_id": "rec-1", "trash_id": "1", "job_id": str(job.pk)}
    writes = [(m, t) for m, t, needed, _ in ROUTES if needed == WRITE_OBJECTS]
    for method, template in writes:
        with RemoteCallCounter() as calls:
            answer = send(
                client, method, template.format(**ids), token, BODIES.get(template), HTTP_IDEMPOTENCY_KEY="k1"
            )
        assert answer.status_code == 403, (template, answer.content)
        assert error_of(answer) | {"request_id": ""} == {"code": "write_refused", "message": words, "request_id": ""}
        assert calls.count == 0, (template, calls.paths)

    # Deciding: the queue's own note for this person, before any call.
    with RemoteCallCounter() as calls:
        decided = send(
            client,
            "POST",
            "/api/v1/approvals/aaaaaaaa-0000-4000-8000-000000000001/decision",
            token,
            {"decision": "approve"},
            HTTP_IDEMPOTENCY_KEY="k2",
        )
    assert error_of(decided)["code"] == "decide_refused"
    assert error_of(decided)["message"] == "Your role in this workspace is viewer: you can see the queue, not decide."
    assert calls.count == 0
