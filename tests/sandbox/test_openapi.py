"""The OpenAPI document and the text guide."""

from __future__ import annotations

import httpx

from sandbox.core import ROUTES
from sandbox.mcp_server import SEED_TOOLS

PART_ONE_OPERATIONS = {
    "account_me",
    "objects_list",
    "objects_create",
    "objects_get",
    "objects_update",
    "objects_records_list",
    "objects_records_create",
    "objects_records_get",
    "objects_records_update",
    "objects_records_delete",
    "objects_relationships_list",
    "objects_relationships_create",
}


def test_the_document_describes_every_route_without_a_key(sandbox):
    response = httpx.get(f"{sandbox.base_url}/v1/openapi.json")
    assert response.status_code == 200
    doc = response.json()
    assert doc["openapi"].startswith("3.1")
    assert doc["info"]["version"] == "1.0.0"
    operations = {
        op["operationId"]: (path, method) for path, item in doc["paths"].items() for method, op in item.items()
    }
    assert PART_ONE_OPERATIONS <= set(operations)
    assert {(r.pattern, r.method.lower()) for r in ROUTES} == set(operations.values())
    assert len(operations) == len(ROUTES)  # operation ids are unique
    create = doc["paths"]["/v1/objects"]["post"]
    assert create["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ObjectCreate"
    }
    assert {"400", "401", "402", "403", "409", "429"} <= set(create["responses"])
    assert "Idempotency-Key" in {p["name"] for p in create["parameters"]}
    assert doc["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"


def test_every_operation_has_a_description(sandbox):
    doc = httpx.get(f"{sandbox.base_url}/v1/openapi.json").json()
    for item in doc["paths"].values():
        for op in item.values():
            assert len(op.get("description", "")) > len(op["summary"]), op["operationId"]


def test_the_text_guide_is_the_whole_guide_generated_from_the_registry(sandbox):
    response = httpx.get(f"{sandbox.base_url}/v1/llms-full.txt")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    for r in ROUTES:  # every endpoint, with its description and its fields
        assert f"### {r.method} {r.pattern}  ({r.operation_id})" in text
        assert r.description.splitlines()[0] in text
    for section in ("Conventions", "Endpoints", "States and transitions", "Events", "Errors", "Limits", "Versioning"):
        assert f"\n{section}\n" in text
    assert "\nMCP server\n" in text and f"{sandbox.base_url}/v1/mcp" in text
    for name in SEED_TOOLS:
        assert f"\n- {name}: " in text
    assert "  - plural_name (string, min length 1, max length 80, required)" in text
    assert "rule (on message): send a message, a payload or both" in text
    assert "| 409 | conflict |" in text and "paused -> active" in text
    assert "events turn, plan, status, result, error" in text
    assert len(text) > 30000
