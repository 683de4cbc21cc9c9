"""Cursor pages: items read tolerantly, `next_cursor` followed to the end."""

from __future__ import annotations

import httpx
import pytest

from dashboard.api import Page
from dashboard.api.pagination import items_from_body, resource_name_from_path


def test_page_reads_items_cursor_body_and_request_id(remote, service):
    body = {"data": [{"id": "a1"}, {"id": "a2"}], "next_cursor": "c2"}
    route = remote.get("/v1/agents").respond(200, json=body, headers={"X-Request-Id": "req_page"})

    page = service.page("/v1/agents", {"status": "active", "limit": 2})

    assert isinstance(page, Page)
    assert page.items == [{"id": "a1"}, {"id": "a2"}]
    assert page.next_cursor == "c2"
    assert page.has_more
    assert page.data == body
    assert page.request_id == "req_page"
    assert dict(route.calls.last.request.url.params) == {"status": "active", "limit": "2"}


def test_paginate_follows_next_cursor_to_the_end_with_data(remote, service):
    route = remote.get("/v1/agents").mock(
        side_effect=[
            httpx.Response(200, json={"data": [{"id": "a1"}, {"id": "a2"}], "next_cursor": "c2"}),
            httpx.Response(200, json={"data": [{"id": "a3"}], "next_cursor": "c3"}),
            httpx.Response(200, json={"data": [{"id": "a4"}], "next_cursor": None}),
        ]
    )

    ids = [item["id"] for item in service.paginate("/v1/agents", {"status": "draft"})]

    assert ids == ["a1", "a2", "a3", "a4"]
    params = [dict(call.request.url.params) for call in route.calls]
    assert params == [
        {"status": "draft", "limit": "100"},
        {"status": "draft", "limit": "100", "cursor": "c2"},
        {"status": "draft", "limit": "100", "cursor": "c3"},
    ]


def test_paginate_reads_another_array_name_and_keeps_the_callers_limit(remote, service):
    route = remote.get("/v1/objects/leads/records").mock(
        side_effect=[
            httpx.Response(200, json={"records": [{"id": "r1"}], "next_cursor": "n2", "total": 2}),
            httpx.Response(200, json={"records": [{"id": "r2"}]}),
        ]
    )

    ids = [item["id"] for item in service.paginate("/v1/objects/leads/records", {"limit": 1, "sort": "-created_at"})]

    assert ids == ["r1", "r2"]
    assert [call.request.url.params["limit"] for call in route.calls] == ["1", "1"]
    assert route.calls[1].request.url.params["cursor"] == "n2"


def test_paginate_with_an_item_key(remote, service):
    remote.get("/v1/studio/apps").respond(200, json={"apps": [{"id": "generate"}], "groups": [{"id": "g"}]})

    assert [app["id"] for app in service.paginate("/v1/studio/apps", item_key="apps")] == ["generate"]


def test_paginate_stops_when_the_server_repeats_a_cursor(remote, service):
    route = remote.get("/v1/approvals").mock(
        side_effect=[
            httpx.Response(200, json={"data": [{"id": "p1"}], "next_cursor": "same"}),
            httpx.Response(200, json={"data": [{"id": "p2"}], "next_cursor": "same"}),
        ]
    )

    assert [item["id"] for item in service.paginate("/v1/approvals")] == ["p1", "p2"]
    assert route.call_count == 2


@pytest.mark.parametrize(
    ("body", "path", "item_key", "expected"),
    [
        ({"data": [1], "records": [2]}, "/v1/objects/x/records", None, [1]),
        ({"records": [{"id": 1}], "columns": ["a"]}, "/v1/objects/x/records", None, [{"id": 1}]),
        ({"results": [{"id": 1}], "next_cursor": None}, "/v1/objects/x/records", None, [{"id": 1}]),
        ({"items": [{"id": 1}], "tags": ["a", "b"]}, "/v1/videos", None, [{"id": 1}]),
        ({"boards": [{"id": 1}], "x": [{"id": 2}]}, "/v1/images/boards", None, [{"id": 1}]),
        ({"assets": [{"id": 1}], "x": [{"id": 2}]}, "/v1/images", "assets", [{"id": 1}]),
        ([{"id": 1}], "/v1/agents", None, [{"id": 1}]),
        ({"a": [{"id": 1}], "b": [{"id": 2}]}, "/v1/agents", None, []),
        ({"message": "no list here"}, "/v1/agents", None, []),
        (None, "/v1/agents", None, []),
    ],
)
def test_items_are_read_tolerantly(body, path, item_key, expected):
    assert items_from_body(body, path=path, item_key=item_key) == expected


def test_the_resource_name_is_the_last_segment_that_is_not_an_id():
    assert resource_name_from_path("/v1/objects/leads/records") == "records"
    assert (
        resource_name_from_path("/v1/objects/leads/records/7a2e3d4c-1b2a-4c5d-8e9f-0a1b2c3d4e5f/relationships")
        == "relationships"
    )
    assert resource_name_from_path("/v1/agents/7a2e3d4c-1b2a-4c5d-8e9f-0a1b2c3d4e5f") == "agents"
    assert resource_name_from_path("/v1/studio/apps?studio=image") == "apps"
