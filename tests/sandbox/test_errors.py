"""Every error status of the sandbox, with the one error body and X-Request-Id."""

from __future__ import annotations

import httpx
import pytest

from sandbox.testing import start_sandbox
from tests.sandbox.support import EVERY_TYPE_FIELDS, http_client, make_object


def assert_error(response: httpx.Response, status: int, type_: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"]["type"] == type_
    assert body["error"]["message"]
    assert body["request_id"] == response.headers["x-request-id"]
    return body["error"]


def test_every_answer_has_a_request_id_and_echoes_the_clients(api):
    assert api.get("/v1/me").headers["x-request-id"].startswith("req_")
    assert api.get("/v1/me", headers={"X-Request-Id": "mine-123"}).headers["x-request-id"] == "mine-123"
    error = api.get("/v1/objects/nope", headers={"X-Request-Id": "mine-456"})
    assert error.headers["x-request-id"] == "mine-456"
    assert error.json()["request_id"] == "mine-456"


@pytest.mark.parametrize(
    "limit, message", [("0", "must be at least 1"), ("101", "must be at most 100"), ("ten", "must be an integer")]
)
def test_400_names_a_bad_query_parameter(api, limit, message):
    error = assert_error(api.get("/v1/objects", params={"limit": limit}), 400, "invalid_request")
    assert error["details"] == {"limit": [message]}


def test_400_names_bad_body_fields_nested_by_property(api):
    response = api.post("/v1/objects", json={"singular_name": "x" * 81, "fields": [{"type": "select"}]})
    error = assert_error(response, 400, "invalid_request")
    assert error["details"]["singular_name"] == ["must be at most 80 characters"]
    assert error["details"]["plural_name"] == ["is required"]
    assert error["details"]["fields"]["0"]["label"] == ["is required"]


def test_400_for_a_choice_field_without_options_and_bad_json(api):
    response = api.post(
        "/v1/objects",
        json={"singular_name": "A", "plural_name": "As unique 400", "fields": [{"label": "Kind", "type": "select"}]},
    )
    error = assert_error(response, 400, "invalid_request")
    assert error["details"] == {"fields": {"0": {"options": ["is required for select, multi_select and stage fields"]}}}
    bad = api.post("/v1/objects", content=b"{not json", headers={"Content-Type": "application/json"})
    assert assert_error(bad, 400, "invalid_request")["details"] == {"body": ["is not valid JSON"]}


def test_400_for_a_bad_cursor_filter_and_sort(api):
    assert assert_error(api.get("/v1/objects", params={"cursor": "garbage!"}), 400, "invalid_request")["details"] == {
        "cursor": ["is not a cursor this list gave out"]
    }
    records = "/v1/objects/deals/records"
    assert "filter" in assert_error(api.get(records, params={"filter": "[1]"}), 400, "invalid_request")["details"]
    assert (
        "filter" in assert_error(api.get(records, params={"filter": '{"nope": 1}'}), 400, "invalid_request")["details"]
    )
    assert "sort" in assert_error(api.get(records, params={"sort": "-nope"}), 400, "invalid_request")["details"]


@pytest.mark.parametrize(
    "header", [None, "Bearer", "Bearer nope", "Basic c3ZjX3NrXzEyMzQ=", "Bearer svc_sk_unknownunknownunknown"]
)
def test_401_for_a_missing_malformed_or_unknown_key(sandbox, header):
    headers = {"Authorization": header} if header else {}
    response = httpx.get(f"{sandbox.base_url}/v1/me", headers=headers)
    assert_error(response, 401, "authentication")


def test_401_for_a_revoked_key(client_for):
    assert_error(client_for("revoked").get("/v1/objects"), 401, "authentication")


def test_402_when_the_workspace_has_no_credits(client_for):
    broke = client_for("no_credits")
    assert broke.get("/v1/me").status_code == 200  # reads still work
    response = broke.post(
        "/v1/objects", json={"singular_name": "A", "plural_name": "Anything", "fields": [{"label": "Name"}]}
    )
    assert_error(response, 402, "insufficient_credits")
    assert broke.get("/v1/objects", params={"kind": "custom"}).json()["data"] == []


def test_403_for_every_write_of_a_read_only_key(api, client_for):
    viewer = client_for("readonly")
    assert viewer.get("/v1/objects/deals/records").status_code == 200
    deal = api.get("/v1/objects/deals/records", params={"limit": 1}).json()["data"][0]
    writes = [
        viewer.post(
            "/v1/objects", json={"singular_name": "A", "plural_name": "Viewer things", "fields": [{"label": "Name"}]}
        ),
        viewer.patch("/v1/objects/deals", json={"description": "changed"}),
        viewer.post("/v1/objects/deals/records", json={"values": {"name": "Viewer deal"}}),
        viewer.patch(f"/v1/objects/deals/records/{deal['id']}", json={"values": {"name": "Changed"}}),
        viewer.delete(f"/v1/objects/deals/records/{deal['id']}"),
        viewer.post(
            f"/v1/objects/deals/records/{deal['id']}/relationships",
            json={"relation_key": "related_to", "target": {"object": "deals", "id": deal["id"]}},
        ),
    ]
    for response in writes:
        assert_error(response, 403, "permission")
    assert api.get(f"/v1/objects/deals/records/{deal['id']}").json()["values"]["name"] == deal["values"]["name"]


def test_404_for_unknown_paths_objects_records_and_other_workspaces(api, client_for):
    assert_error(api.get("/v1/nothing-here"), 404, "not_found")
    assert_error(api.get("/v1/objects/no_such_object"), 404, "not_found")
    missing = "00000000-0000-4000-8000-000000000000"
    assert_error(api.get(f"/v1/objects/deals/records/{missing}"), 404, "not_found")
    deal = api.get("/v1/objects/deals/records", params={"limit": 1}).json()["data"][0]
    other = client_for("other_workspace")
    assert_error(other.get("/v1/objects/deals"), 404, "not_found")
    assert_error(other.get(f"/v1/objects/projects/records/{deal['id']}"), 404, "not_found")


def test_405_for_a_known_path_with_another_method(api):
    response = api.put("/v1/objects")
    assert_error(response, 405, "method_not_allowed")
    assert response.headers["allow"] == "GET, POST"


def test_409_when_an_idempotency_key_is_reused_with_another_body(api):
    first = api.post(
        "/v1/objects/deals/records", json={"values": {"name": "Key reuse A"}}, headers={"Idempotency-Key": "reuse-409"}
    )
    assert first.status_code == 201
    second = api.post(
        "/v1/objects/deals/records", json={"values": {"name": "Key reuse B"}}, headers={"Idempotency-Key": "reuse-409"}
    )
    assert_error(second, 409, "conflict")


def test_409_for_a_taken_object_key_names_the_existing_object(api):
    created = make_object(api, fields=[{"label": "Name"}])
    again = api.post(
        "/v1/objects",
        json={"singular_name": "Other", "plural_name": created["plural_name"].upper(), "fields": [{"label": "Name"}]},
    )
    error = assert_error(again, 409, "conflict")
    assert created["key"] in error["message"]
    assert error["details"]["id"] == created["id"]
    assert error["details"]["existing"]["key"] == created["key"]
    system = api.post(
        "/v1/objects", json={"singular_name": "Agent", "plural_name": "Agents", "fields": [{"label": "Name"}]}
    )
    assert assert_error(system, 409, "conflict")["details"]["existing"]["kind"] == "system"


BAD_VALUES = {
    "title": 42,
    "body": ["x"],
    "count": "12",
    "price": True,
    "due": "2026-02-30",
    "starts_at": "tomorrow",
    "done": "yes",
    "email": "not-an-email",
    "phone": "call me",
    "website": "ftp://example.com",
    "colour": "Blue",
    "labels": "A",
    "phase": "Finished",
    "picture": "picture.png",
    "attachment": "file:///etc/x",
}


@pytest.mark.parametrize("key", list(BAD_VALUES))
def test_422_names_the_field_for_each_type(api, key):
    obj = make_object(api)
    values = {"title": "A title", key: BAD_VALUES[key]}
    response = api.post(f"/v1/objects/{obj['key']}/records", json={"values": values})
    error = assert_error(response, 422, "validation_error")
    assert list(error["details"]) == [key]
    assert f"({key})" in error["message"]


def test_422_for_unknown_keys_and_missing_required_fields(api):
    obj = make_object(api)
    response = api.post(f"/v1/objects/{obj['key']}/records", json={"values": {"nope": 1}})
    error = assert_error(response, 422, "validation_error")
    assert error["details"] == {"nope": [f"is not a field of {obj['plural_name']}"], "title": ["is required"]}
    record = api.post(f"/v1/objects/{obj['key']}/records", json={"values": {"title": "Kept"}}).json()
    cleared = api.patch(f"/v1/objects/{obj['key']}/records/{record['id']}", json={"values": {"title": None}})
    assert assert_error(cleared, 422, "validation_error")["details"] == {"title": ["is required"]}


def test_429_with_retry_after_when_the_rate_limit_is_reached():
    handle = start_sandbox(rate_limit_per_minute=3)
    try:
        with http_client(handle, handle.demo_key) as client:
            statuses = [client.get("/v1/me").status_code for _ in range(3)]
            limited = client.get("/v1/me")
            other_key = http_client(handle, handle.mint_key("demo"))
            assert other_key.get("/v1/me").status_code == 200  # the limit is per key
            other_key.close()
        assert statuses == [200, 200, 200]
        assert_error(limited, 429, "rate_limited")
        assert 1 <= int(limited.headers["retry-after"]) <= 60
    finally:
        handle.stop()


def test_every_type_fixture_covers_the_fifteen_types():
    from sandbox.objects import FIELD_TYPES

    assert sorted(f["type"] for f in EVERY_TYPE_FIELDS) == sorted(FIELD_TYPES)
