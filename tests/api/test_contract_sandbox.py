"""The transport over real HTTP against the sandbox: the headers, errors,
paging, idempotent replay and streams the contract promises."""

from __future__ import annotations

import logging
import uuid

import pytest

from dashboard.api import ApiResponse, ServerSentEvent, ServiceClient, errors


@pytest.fixture
def live_service(sandbox, settings):
    settings.SERVICE_BASE_URL = sandbox.base_url
    return ServiceClient(sandbox.demo_key)


def unique_object_body(name: str) -> dict:
    suffix = uuid.uuid4().hex[:8]
    return {
        "singular_name": f"{name} {suffix}",
        "plural_name": f"{name}s {suffix}",
        "fields": [{"label": "Name", "type": "text", "required": True}],
    }


def test_me_answers_the_identity_and_echoes_the_request_id(live_service):
    answer = live_service.request("GET", "/v1/me")

    assert isinstance(answer, ApiResponse)
    assert answer.status_code == 200
    assert answer.data["workspace"]["id"]
    assert answer.data["key"]["prefix"].startswith("svc_sk_")
    assert answer.request_id == answer.headers["X-Request-Id"]


def test_a_revoked_key_is_an_authentication_error_and_is_not_retried(sandbox, settings, caplog):
    settings.SERVICE_BASE_URL = sandbox.base_url
    revoked = sandbox.mint_key("revoked")
    caplog.set_level(logging.INFO, logger="dashboard.api")

    with pytest.raises(errors.AuthenticationError) as caught:
        ServiceClient(revoked).get("/v1/me")

    assert caught.value.status == 401
    assert caught.value.type == "authentication"
    assert caught.value.request_id
    assert len([record for record in caplog.records if record.name == "dashboard.api"]) == 1
    assert revoked not in caplog.text


def test_a_workspace_without_credits_is_refused_with_402(sandbox, settings):
    settings.SERVICE_BASE_URL = sandbox.base_url

    with pytest.raises(errors.InsufficientCreditsError) as caught:
        ServiceClient(sandbox.mint_key("no_credits")).post("/v1/objects", json=unique_object_body("Lead"))

    assert caught.value.request_id


def test_an_unknown_object_is_not_found(live_service):
    with pytest.raises(errors.NotFoundError) as caught:
        live_service.get(f"/v1/objects/{uuid.uuid4()}")

    assert caught.value.request_id


def test_invalid_values_are_refused_with_field_messages(live_service):
    created = live_service.post("/v1/objects", json=unique_object_body("Contact"))

    with pytest.raises((errors.UnprocessableError, errors.InvalidRequestError)) as caught:
        live_service.post(f"/v1/objects/{created['key']}/records", json={"values": {"no_such_field": "x"}})

    assert caught.value.message
    assert caught.value.request_id


def test_the_same_idempotency_key_replays_and_another_body_conflicts(live_service):
    created = live_service.post("/v1/objects", json=unique_object_body("Deal"))
    path = f"/v1/objects/{created['key']}/records"
    key = str(uuid.uuid4())

    first = live_service.post(path, json={"values": {"name": "Ada"}}, idempotency_key=key)
    again = live_service.post(path, json={"values": {"name": "Ada"}}, idempotency_key=key)

    assert again["id"] == first["id"]
    with pytest.raises(errors.ConflictError):
        live_service.post(path, json={"values": {"name": "Grace"}}, idempotency_key=key)


def test_paginate_follows_the_cursor_to_the_end(live_service):
    created = live_service.post("/v1/objects", json=unique_object_body("Ticket"))
    path = f"/v1/objects/{created['key']}/records"
    made = {live_service.post(path, json={"values": {"name": f"ticket {n}"}})["id"] for n in range(5)}

    first_page = live_service.page(path, {"limit": 2})
    every_item = list(live_service.paginate(path, {"limit": 2}))

    assert len(first_page.items) == 2 and first_page.next_cursor
    assert {item["id"] for item in every_item} == made
    assert len(every_item) == 5


def test_a_streamed_turn_yields_events_ending_with_a_result(live_service):
    events = list(
        live_service.stream(
            "/v1/studio/document/turns", json={"message": "A one-pager about our tea shop", "auto": True}
        )
    )

    assert events, "the stream sent no events"
    assert all(isinstance(event, ServerSentEvent) for event in events)
    assert events[-1].event == "result"
    assert isinstance(events[-1].data, dict) and events[-1].data.get("id")


def test_the_rate_limit_answers_retry_after(settings, slept):
    from sandbox.testing import start_sandbox

    limited = start_sandbox(rate_limit_per_minute=1)
    try:
        settings.SERVICE_BASE_URL = limited.base_url
        client = ServiceClient(limited.demo_key)
        client.get("/v1/me")
        with pytest.raises(errors.RateLimitedError) as caught:
            client.get("/v1/me")
    finally:
        limited.stop()

    # A one-minute window asks for far longer than the console sleeps in a request.
    assert caught.value.retry_after is not None and caught.value.retry_after > 10
    assert slept == []
    assert caught.value.request_id
