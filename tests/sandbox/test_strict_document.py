"""The sandbox is as strict as its document, and its document states every rule
it enforces: header lengths, the contract's limits, rules between fields
(a PATCH that changes nothing, a run with neither message nor payload),
and the one JSON error body."""

from __future__ import annotations

import httpx
import jsonschema
import pytest

from sandbox.core import load_route_modules
from sandbox.openapi import build_document
from tests.sandbox.support import make_object

load_route_modules()
DOC = build_document("http://127.0.0.1")


def operation(operation_id: str) -> dict:
    for item in DOC["paths"].values():
        for op in item.values():
            if op["operationId"] == operation_id:
                return op
    raise LookupError(operation_id)


def body_schema(operation_id: str) -> dict:
    schema = operation(operation_id)["requestBody"]["content"]["application/json"]["schema"]
    if "$ref" in schema:
        schema = DOC["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def document_validator(schema: dict) -> jsonschema.Draft202012Validator:
    """The document's own schema, with its components, as any client would read it."""
    return jsonschema.Draft202012Validator({**schema, "components": DOC["components"]})


def test_an_idempotency_key_longer_than_the_document_allows_is_refused_not_cut(api):
    param = next(p for p in operation("objects_create")["parameters"] if p["name"] == "Idempotency-Key")
    assert param["schema"]["maxLength"] == 255
    obj = make_object(api, fields=[{"label": "Name"}])
    path = f"/v1/objects/{obj['key']}/records"
    refused = api.post(path, json={"values": {"name": "x"}}, headers={"Idempotency-Key": "k" * 256})
    assert refused.status_code == 400
    body = refused.json()
    assert body["error"]["type"] == "invalid_request"
    assert body["error"]["details"] == {"Idempotency-Key": ["must be at most 255 characters"]}
    assert body["request_id"] == refused.headers["x-request-id"]
    # 255 is taken, and two keys sharing their first 255 characters are two keys.
    first = api.post(path, json={"values": {"name": "a"}}, headers={"Idempotency-Key": "k" * 255})
    assert first.status_code == 201
    other = api.post(path, json={"values": {"name": "b"}}, headers={"Idempotency-Key": "k" * 254 + "j"})
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]


def test_a_clients_request_id_is_echoed_as_the_document_says(api):
    param = next(p for p in operation("account_me")["parameters"] if p["name"] == "X-Request-Id")
    assert "200 characters" in param["description"]
    response = api.get("/v1/me", headers={"X-Request-Id": "r" * 250})
    assert response.headers["x-request-id"] == "r" * 200
    for responses in (operation("account_me")["responses"], operation("objects_create")["responses"]):
        assert all(answer["headers"]["X-Request-Id"]["required"] for answer in responses.values())


# The contract's Limits table (api-spec.md, "Limits"), each as the document states it.
LIMITS = [
    ("studio_website_turn", "message", "maxLength", 3800),
    ("studio_image_turn", "message", "maxLength", 3800),
    ("studio_video_turn", "message", "maxLength", 3800),
    ("studio_document_turn", "message", "maxLength", 18000),
    ("studio_app_turn", "message", "maxLength", 18000),
    ("agents_create", "message", "maxLength", 20000),
    ("agents_update", "message", "maxLength", 20000),
    ("agents_runs_create", "message", "maxLength", 20000),
    ("agents_create", "name", "maxLength", 120),
    ("agents_update", "name", "maxLength", 120),
    ("objects_create", "singular_name", "maxLength", 80),
    ("objects_create", "plural_name", "maxLength", 80),
    ("objects_update", "singular_name", "maxLength", 80),
    ("objects_create", "description", "maxLength", 2000),
    ("objects_create", "icon", "maxLength", 64),
    ("objects_create", "color", "maxLength", 32),
    ("objects_relationships_create", "label", "maxLength", 200),
]


@pytest.mark.parametrize(("operation_id", "field", "keyword", "value"), LIMITS)
def test_the_contracts_limits_are_in_the_document(operation_id, field, keyword, value):
    assert body_schema(operation_id)["properties"][field][keyword] == value


def test_page_size_and_field_labels_are_bounded_as_the_contract_says():
    for item in DOC["paths"].values():
        for op in item.values():
            limit = next((p for p in op.get("parameters", []) if p["name"] == "limit"), None)
            if limit:
                assert (limit["schema"]["minimum"], limit["schema"]["maximum"]) == (1, 100), op["operationId"]
                assert limit["schema"]["default"] == 25
    assert DOC["components"]["schemas"]["FieldInput"]["properties"]["label"]["maxLength"] == 120


@pytest.mark.parametrize(
    ("operation_id", "body", "field", "message"),
    [
        ("agents_update", {}, "message", "send a name, a message or both"),
        ("agents_update", {"auto": True}, "message", "send a name, a message or both"),
        ("agents_runs_create", {"thread_id": "3f1b4b9e-5c1d-4a8e-9f7a-2b6c8d0e1f23"}, "message", "send a message"),
        ("agents_runs_create", {"message": "hi", "stream": True, "background": True}, "background", "stream"),
        ("studio_website_turn", {"message": "hi", "stream": True, "background": True}, "background", "stream"),
    ],
)
def test_rules_between_fields_are_stated_in_the_document_and_enforced(api, operation_id, body, field, message):
    assert not document_validator(body_schema(operation_id)).is_valid(body)
    path = {
        "agents_update": "/v1/agents/{id}",
        "agents_runs_create": "/v1/agents/{id}/runs",
        "studio_website_turn": "/v1/studio/website/turns",
    }[operation_id]
    agent = api.get("/v1/agents").json()["data"][0]
    method = "PATCH" if operation_id == "agents_update" else "POST"
    response = api.request(method, path.replace("{id}", agent["id"]), json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]["details"][field][0]


def test_always_goes_only_with_approve_in_the_document_and_the_answer(api):
    schema = document_validator(body_schema("approvals_decide"))
    assert not schema.is_valid({"decision": "reject", "always": True})
    assert schema.is_valid({"decision": "approve", "always": True})
    assert schema.is_valid({"decision": "reject", "always": False})
    pending = api.get("/v1/approvals").json()["data"]
    approval = pending[0]
    response = api.post(f"/v1/approvals/{approval['id']}", json={"decision": "reject", "always": True})
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"always": ["only goes with decision approve"]}
    assert api.get("/v1/approvals").json()["data"][0]["id"] == approval["id"]  # nothing was decided


def test_a_choice_field_needs_options_in_the_document_too():
    schema = document_validator(body_schema("objects_create"))
    assert not schema.is_valid({"singular_name": "A", "plural_name": "As", "fields": [{"label": "K", "type": "stage"}]})
    assert schema.is_valid({"singular_name": "A", "plural_name": "As", "fields": [{"label": "K", "type": "text"}]})


def test_every_error_answer_is_the_json_error_body(sandbox, api):
    answers = [
        httpx.get(f"{sandbox.base_url}/nowhere"),
        httpx.get(f"{sandbox.base_url}/app/nothing/here/at/all"),
        httpx.get(f"{sandbox.base_url}/app/sites/no-such-site"),
        httpx.delete(f"{sandbox.base_url}/v1/openapi.json"),
        httpx.get(f"{sandbox.base_url}/v1/me"),
        api.get("/v1/agents/not-a-uuid"),
    ]
    for response in answers:
        assert response.status_code >= 400
        assert response.headers["content-type"] == "application/json", response.url
        body = response.json()
        assert set(body) == {"error", "request_id"} and body["error"]["message"]
        assert body["request_id"] == response.headers["x-request-id"]
