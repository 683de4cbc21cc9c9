"""The transport against a respx-mocked service: headers, timeouts, retries,
Retry-After, typed errors, logging without the key."""

from __future__ import annotations

import copy
import json
import logging
import pickle
import threading
import uuid
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from dashboard.api import ApiResponse, ServiceClient, attempts, errors
from dashboard.api import client as client_module
from tests.api.support import API_KEY, SERVICE_URL
from tests.helpers import mocked_service


def error_response(status: int, error_type: str | None, message: str, request_id: str, **kwargs) -> httpx.Response:
    body = {"error": {"type": error_type, "message": message}, "request_id": request_id}
    if "details" in kwargs:
        body["error"]["details"] = kwargs.pop("details")
    return httpx.Response(status, json=body, **kwargs)


# -- what every request carries ----------------------------------------------


def test_get_sends_the_key_user_agent_and_a_request_id_and_returns_the_body(remote, service):
    route = remote.get("/v1/objects").respond(
        200, json={"data": [], "next_cursor": None}, headers={"X-Request-Id": "req_1"}
    )

    body = service.get("/v1/objects", params={"kind": "custom"})

    assert body == {"data": [], "next_cursor": None}
    sent = route.calls.last.request
    assert sent.headers["Authorization"] == f"Bearer {API_KEY}"
    assert sent.headers["User-Agent"] == "workspace-console/0.1"
    assert sent.headers["X-Request-Id"].startswith("req_console_")
    assert sent.url.params["kind"] == "custom"
    assert "Idempotency-Key" not in sent.headers


def test_post_mints_one_idempotency_key_and_sends_json(remote, service):
    route = remote.post("/v1/objects").respond(200, json={"key": "leads"})

    body = service.post("/v1/objects", json={"singular_name": "Lead"})

    assert body == {"key": "leads"}
    sent = route.calls.last.request
    assert json.loads(sent.content) == {"singular_name": "Lead"}
    assert uuid.UUID(sent.headers["Idempotency-Key"])


def test_the_callers_idempotency_key_is_sent_on_post_patch_and_delete(remote, service):
    post = remote.post("/v1/agents").respond(200, json={})
    patch = remote.patch("/v1/agents/a1").respond(200, json={})
    delete = remote.delete("/v1/objects/leads/records/r1").respond(204)

    service.post("/v1/agents", json={"message": "hi"}, idempotency_key="form-key-0000000001")
    service.patch("/v1/agents/a1", json={"name": "x"}, idempotency_key="form-key-0000000002")
    assert service.delete("/v1/objects/leads/records/r1", idempotency_key="form-key-0000000003") is None

    assert post.calls.last.request.headers["Idempotency-Key"] == "form-key-0000000001"
    assert patch.calls.last.request.headers["Idempotency-Key"] == "form-key-0000000002"
    assert delete.calls.last.request.headers["Idempotency-Key"] == "form-key-0000000003"


def test_each_logical_call_gets_its_own_request_id_and_idempotency_key(remote, service):
    route = remote.post("/v1/objects").respond(200, json={})

    service.post("/v1/objects", json={})
    service.post("/v1/objects", json={})

    first, second = (call.request for call in route.calls)
    assert first.headers["X-Request-Id"] != second.headers["X-Request-Id"]
    assert first.headers["Idempotency-Key"] != second.headers["Idempotency-Key"]


def test_request_answers_a_202_with_status_body_headers_and_the_servers_request_id(remote, service):
    remote.post("/v1/agents/a1/runs").respond(
        202, json={"status": "running", "thread_id": "t1"}, headers={"X-Request-Id": "req_server_202"}
    )

    answer = service.request("POST", "/v1/agents/a1/runs", json={"message": "go", "background": True}, slow=True)

    assert isinstance(answer, ApiResponse)
    assert answer.status_code == 202
    assert answer.data == {"status": "running", "thread_id": "t1"}
    assert answer.request_id == "req_server_202"
    assert answer.headers["X-Request-Id"] == "req_server_202"


def test_timeouts_are_explicit_ordinary_and_slow(remote, service):
    route = remote.post("/v1/studio/website/turns").respond(200, json={})

    service.post("/v1/studio/website/turns", json={"message": "a site"})
    service.post("/v1/studio/website/turns", json={"message": "a site"}, slow=True)

    ordinary, slow = (call.request.extensions["timeout"] for call in route.calls)
    assert ordinary == {"connect": 5.0, "read": 30.0, "write": 30.0, "pool": 30.0}
    assert slow == {"connect": 5.0, "read": 800.0, "write": 800.0, "pool": 800.0}


def test_the_base_url_is_read_from_settings_at_call_time(settings, service):
    with httpx_mock_for("https://elsewhere.test") as mock:
        route = mock.get("/v1/me").respond(200, json={"ok": True})
        settings.SERVICE_BASE_URL = "https://elsewhere.test"
        assert service.get("/v1/me") == {"ok": True}
    assert route.call_count == 1


def httpx_mock_for(base_url):
    return mocked_service(base_url)


def test_absolute_urls_are_refused_so_the_key_only_goes_to_the_service(remote, service):
    with pytest.raises(ValueError):
        service.get("https://attacker.test/v1/me")
    with pytest.raises(ValueError):
        service.get("//attacker.test/v1/me")


def test_all_clients_share_one_pooled_http_client():
    client_module.close_shared_http_client()
    seen = []
    barrier = threading.Barrier(8)

    def fetch():
        barrier.wait()
        seen.append(client_module.shared_http_client())

    threads = [threading.Thread(target=fetch) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len({id(http) for http in seen}) == 1
    assert seen[0].headers["User-Agent"] == "workspace-console/0.1"


# -- retries ------------------------------------------------------------------


def test_a_503_is_retried_with_the_same_idempotency_key_and_request_id_then_succeeds(remote, service, slept):
    route = remote.post("/v1/objects/leads/records").mock(
        side_effect=[
            error_response(503, "server_error", "busy", "req_a"),
            error_response(503, "server_error", "busy", "req_b"),
            httpx.Response(200, json={"id": "r1"}),
        ]
    )

    assert service.post("/v1/objects/leads/records", json={"values": {"name": "Ada"}}) == {"id": "r1"}

    assert route.call_count == 3
    keys = {call.request.headers["Idempotency-Key"] for call in route.calls}
    request_ids = {call.request.headers["X-Request-Id"] for call in route.calls}
    bodies = {call.request.content for call in route.calls}
    assert len(keys) == 1 and len(request_ids) == 1 and len(bodies) == 1
    # Full jitter: each delay lies in [0, 0.5 * 2**(attempt-1)].
    assert len(slept) == 2
    assert 0 <= slept[0] <= 0.5
    assert 0 <= slept[1] <= 1.0


def test_the_callers_key_is_reused_on_every_retry(remote, service):
    route = remote.post("/v1/approvals/ap1").mock(
        side_effect=[httpx.Response(502, text="bad gateway"), httpx.Response(200, json={"status": "approved"})]
    )

    service.post("/v1/approvals/ap1", json={"decision": "approve"}, idempotency_key="decide-key-000000001", slow=True)

    assert [call.request.headers["Idempotency-Key"] for call in route.calls] == ["decide-key-000000001"] * 2


def test_no_more_than_two_retries(remote, service, slept):
    route = remote.get("/v1/agents").mock(return_value=error_response(500, "server_error", "boom", "req_last"))

    with pytest.raises(errors.ServerError) as caught:
        service.get("/v1/agents")

    assert route.call_count == 3
    assert len(slept) == 2
    assert caught.value.request_id == "req_last"
    assert caught.value.status == 500


def test_the_number_of_retries_follows_the_setting(remote, service, settings, slept):
    settings.SERVICE_MAX_RETRIES = 0
    route = remote.get("/v1/agents").respond(503, json={"error": {"type": "server_error", "message": "x"}})

    with pytest.raises(errors.ServerError):
        service.get("/v1/agents")

    assert route.call_count == 1
    assert slept == []


def test_a_client_can_turn_retries_off_whatever_the_setting(remote, settings, slept):
    settings.SERVICE_MAX_RETRIES = 2
    poller = ServiceClient(api_key=API_KEY, max_retries=0)
    route = remote.get("/v1/agents").respond(503, json={"error": {"type": "server_error", "message": "x"}})

    with pytest.raises(errors.ServerError):
        poller.get("/v1/agents")

    assert route.call_count == 1
    assert slept == []


def test_429_waits_for_retry_after_in_seconds(remote, service, slept):
    route = remote.post("/v1/agents/a1/runs").mock(
        side_effect=[
            error_response(429, "rate_limited", "slow down", "req_429", headers={"Retry-After": "3"}),
            httpx.Response(200, json={"status": "completed"}),
        ]
    )

    assert service.post("/v1/agents/a1/runs", json={"message": "hi"}) == {"status": "completed"}

    assert slept == [3.0]
    assert route.calls[0].request.headers["Idempotency-Key"] == route.calls[1].request.headers["Idempotency-Key"]


def test_429_waits_for_retry_after_as_an_http_date(remote, service, slept, monkeypatch):
    now = datetime(2026, 11, 22, 1, 0, 0, tzinfo=UTC)
    monkeypatch.setattr(attempts, "_utcnow", lambda: now)
    retry_at = format_datetime(now + timedelta(seconds=7), usegmt=True)
    remote.get("/v1/approvals").mock(
        side_effect=[
            error_response(429, "rate_limited", "slow down", "req_429", headers={"Retry-After": retry_at}),
            httpx.Response(200, json={"data": []}),
        ]
    )

    service.get("/v1/approvals")

    assert slept == [7.0]


def test_a_retry_after_longer_than_the_cap_is_not_slept_but_raised(remote, service, slept):
    route = remote.get("/v1/agents").respond(
        429,
        json={"error": {"type": "rate_limited", "message": "slow down"}, "request_id": "req_long"},
        headers={"Retry-After": "120"},
    )

    with pytest.raises(errors.RateLimitedError) as caught:
        service.get("/v1/agents")

    assert route.call_count == 1
    assert slept == []
    assert caught.value.retry_after == 120.0
    assert caught.value.request_id == "req_long"


def test_429_without_retry_after_backs_off_and_finally_raises(remote, service, slept):
    route = remote.get("/v1/agents").respond(429, json={"error": {"type": "rate_limited", "message": "x"}})

    with pytest.raises(errors.RateLimitedError) as caught:
        service.get("/v1/agents")

    assert route.call_count == 3
    assert len(slept) == 2
    assert caught.value.retry_after is None


@pytest.mark.parametrize("status", [400, 401, 402, 403, 404, 409, 422])
def test_client_errors_are_never_retried(remote, service, slept, status):
    route = remote.post("/v1/objects").respond(status, json={"error": {"type": None, "message": "no"}})

    with pytest.raises(errors.ApiError):
        service.post("/v1/objects", json={})

    assert route.call_count == 1
    assert slept == []


def test_a_connection_error_is_retried_then_maps_to_api_connection_error(remote, service, slept):
    route = remote.get("/v1/me").mock(side_effect=httpx.ConnectError("connection refused"))

    with pytest.raises(errors.ApiConnectionError) as caught:
        service.get("/v1/me")

    assert route.call_count == 3
    assert len(slept) == 2
    # No server answered: the id we sent is the one to look for in our logs.
    assert caught.value.request_id == route.calls.last.request.headers["X-Request-Id"]
    assert not isinstance(caught.value, errors.ApiTimeoutError)


def test_a_connection_error_then_success_returns_the_answer(remote, service):
    route = remote.post("/v1/objects").mock(
        side_effect=[httpx.ConnectError("refused"), httpx.Response(200, json={"key": "leads"})]
    )

    assert service.post("/v1/objects", json={}) == {"key": "leads"}
    assert route.calls[0].request.headers["Idempotency-Key"] == route.calls[1].request.headers["Idempotency-Key"]


def test_a_timeout_is_retried_then_maps_to_api_timeout_error(remote, service):
    route = remote.get("/v1/turns/t1").mock(side_effect=httpx.ReadTimeout("read timed out"))

    with pytest.raises(errors.ApiTimeoutError) as caught:
        service.get("/v1/turns/t1")

    assert route.call_count == 3
    assert caught.value.request_id


def test_a_slow_call_that_timed_out_reading_is_not_repeated(remote, service, slept):
    route = remote.post("/v1/studio/document/turns").mock(side_effect=httpx.ReadTimeout("read timed out"))

    with pytest.raises(errors.ApiTimeoutError):
        service.post("/v1/studio/document/turns", json={"message": "a deck"}, slow=True)

    assert route.call_count == 1
    assert slept == []


def test_a_slow_call_that_could_not_connect_is_retried(remote, service):
    route = remote.post("/v1/studio/document/turns").mock(
        side_effect=[httpx.ConnectTimeout("connect timed out"), httpx.Response(200, json={"status": "completed"})]
    )

    assert service.post("/v1/studio/document/turns", json={"message": "a deck"}, slow=True) == {"status": "completed"}
    assert route.call_count == 2


# -- typed errors -------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "error_type", "expected"),
    [
        (400, "invalid_request", errors.InvalidRequestError),
        (401, "authentication", errors.AuthenticationError),
        (402, "insufficient_credits", errors.InsufficientCreditsError),
        (403, "permission", errors.PermissionDeniedError),
        (404, "not_found", errors.NotFoundError),
        (409, "conflict", errors.ConflictError),
        (422, None, errors.UnprocessableError),
        (429, "rate_limited", errors.RateLimitedError),
        (500, "server_error", errors.ServerError),
        (503, "server_error", errors.ServerError),
    ],
)
def test_each_status_maps_to_its_error_with_the_request_id(remote, service, settings, status, error_type, expected):
    settings.SERVICE_MAX_RETRIES = 0
    remote.get("/v1/agents/a1").mock(
        return_value=error_response(
            status, error_type, f"remote says {status}", f"req_{status}", details={"why": ["because"]}
        )
    )

    with pytest.raises(expected) as caught:
        service.get("/v1/agents/a1")

    error = caught.value
    assert type(error) is expected
    assert error.status == status
    assert error.type == error_type
    assert error.message == f"remote says {status}"
    assert error.request_id == f"req_{status}"
    assert error.details == {"why": ["because"]}
    assert f"req_{status}" in str(error)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (400, errors.InvalidRequestError),
        (404, errors.NotFoundError),
        (422, errors.UnprocessableError),
        (418, errors.ApiError),
    ],
)
def test_without_a_known_type_the_status_decides(remote, service, status, expected):
    remote.get("/v1/me").respond(status, json={"error": {"type": "something_new", "message": "hm"}})

    with pytest.raises(expected) as caught:
        service.get("/v1/me")

    assert type(caught.value) is expected


def test_the_type_is_read_before_the_status(remote, service):
    remote.post("/v1/approvals/ap1").respond(400, json={"error": {"type": "conflict", "message": "already decided"}})

    with pytest.raises(errors.ConflictError):
        service.post("/v1/approvals/ap1", json={"decision": "approve"})


def test_the_request_id_comes_from_the_header_when_the_body_has_none(remote, service):
    remote.get("/v1/me").respond(
        404, json={"error": {"type": "not_found", "message": "gone"}}, headers={"X-Request-Id": "req_hdr"}
    )

    with pytest.raises(errors.NotFoundError) as caught:
        service.get("/v1/me")

    assert caught.value.request_id == "req_hdr"


def test_a_non_json_error_body_maps_cleanly(remote, service, settings):
    settings.SERVICE_MAX_RETRIES = 0
    html = "<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"
    remote.get("/v1/agents").respond(502, text=html, headers={"Content-Type": "text/html", "X-Request-Id": "req_proxy"})

    with pytest.raises(errors.ServerError) as caught:
        service.get("/v1/agents")

    assert caught.value.status == 502
    assert caught.value.request_id == "req_proxy"
    assert caught.value.message == "The service answered 502 Bad Gateway."
    assert "<" not in caught.value.message


def test_a_non_json_success_body_is_a_server_error_not_a_crash(remote, service):
    remote.get("/v1/me").respond(200, text="<html>login</html>", headers={"Content-Type": "text/html"})

    with pytest.raises(errors.ServerError):
        service.get("/v1/me")


def test_invalid_request_details_become_field_messages(remote, service):
    remote.post("/v1/objects").mock(
        return_value=error_response(
            400,
            "invalid_request",
            "invalid",
            "req_400",
            details={"plural_name": ["is required"], "fields": [{"label": ["too long"]}]},
        )
    )

    with pytest.raises(errors.InvalidRequestError) as caught:
        service.post("/v1/objects", json={})

    assert caught.value.field_errors == {"plural_name": ["is required"], "fields.0.label": ["too long"]}


# -- the key stays secret -------------------------------------------------------


def test_the_key_is_absent_from_repr_errors_and_logs(remote, service, caplog):
    caplog.set_level(logging.INFO, logger="dashboard.api")
    remote.get("/v1/me").mock(
        side_effect=[
            error_response(503, "server_error", "busy", "req_1"),
            httpx.Response(200, json={"ok": True}),
        ]
    )
    remote.get("/v1/agents").respond(401, json={"error": {"type": "authentication", "message": f"bad key {API_KEY}"}})

    service.get("/v1/me")
    with pytest.raises(errors.AuthenticationError) as caught:
        service.get("/v1/agents")

    assert API_KEY not in repr(service)
    assert API_KEY not in str(caught.value) and API_KEY not in repr(caught.value)
    assert API_KEY not in caught.value.message
    assert API_KEY not in caplog.text
    # One line per attempt: two for /v1/me, one for /v1/agents.
    lines = [record for record in caplog.records if record.name == "dashboard.api"]
    assert len(lines) == 3
    assert [record.levelno for record in lines] == [logging.WARNING, logging.INFO, logging.WARNING]
    assert "attempt=1/3" in lines[0].getMessage() and "status=503" in lines[0].getMessage()
    # What we sent and what the service's answer named, both on the line.
    assert "request_id=req_console_" in lines[0].getMessage()
    assert "service_request_id=req_1" in lines[0].getMessage()


def test_log_lines_leave_out_the_query(remote, service, caplog):
    caplog.set_level(logging.INFO, logger="dashboard.api")
    remote.get("/v1/objects/leads/records").respond(200, json={"data": []})

    service.get("/v1/objects/leads/records", params={"search": "private text"})

    assert "private text" not in caplog.text
    assert "GET /v1/objects/leads/records" in caplog.text


def test_a_client_cannot_be_pickled_into_a_task_or_a_cache(service):
    with pytest.raises(TypeError):
        pickle.dumps(service)
    assert copy.deepcopy(service) is service


def test_an_empty_key_is_refused():
    with pytest.raises(ValueError):
        ServiceClient("")


def test_parse_retry_after_reads_seconds_dates_and_ignores_junk(monkeypatch):
    now = datetime(2026, 1, 1, tzinfo=UTC)
    monkeypatch.setattr(attempts, "_utcnow", lambda: now)

    assert attempts.parse_retry_after("5") == 5.0
    assert attempts.parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True)) == 30.0
    assert attempts.parse_retry_after(format_datetime(now - timedelta(seconds=30), usegmt=True)) == 0.0
    assert attempts.parse_retry_after("soon") is None
    assert attempts.parse_retry_after("nan") is None
    assert attempts.parse_retry_after(None) is None


def test_request_targets_the_configured_service(remote, service):
    route = remote.get("/v1/me").respond(200, json={})
    service.get("v1/me")
    assert str(route.calls.last.request.url) == f"{SERVICE_URL}/v1/me"
