"""The request id at the web edge: made per request (or a trusted proxy's),
returned as X-Request-Id on every response, on the request's one log line,
and sent to the service as X-Request-Id by the transport."""

from __future__ import annotations

import logging

import httpx
import pytest
from django.test import Client
from django.urls import reverse

from dashboard.api import ServiceClient
from dashboard.observability.context import REQUEST_ID_PATTERN, current_request_id, request_id_scope
from tests.helpers import mocked_service
from tests.html import one, text_of

SERVICE = "https://service.test"
SECRET = "svc_sk_requestidtest0000000000000000"


def test_every_response_carries_a_request_id_of_its_own(client):
    first = client.get(reverse("healthz"))
    second = client.get(reverse("healthz"))

    assert REQUEST_ID_PATTERN.fullmatch(first["X-Request-Id"])
    assert first["X-Request-Id"] != second["X-Request-Id"]
    assert current_request_id() is None  # nothing leaks past the request


def test_a_static_file_carries_one_too_but_writes_no_log_line(client, json_logs):
    response = client.get("/static/js/retry.js")

    assert response.status_code == 200 and response["X-Request-Id"]
    assert json_logs.of("dashboard.request") == []


def test_a_browser_cannot_choose_its_request_id_without_a_trusted_proxy(settings):
    settings.TRUSTED_PROXY_COUNT = 0
    settings.TRUST_REQUEST_ID_HEADER = False

    response = Client().get(reverse("healthz"), headers={"X-Request-Id": "req_chosen_by_the_browser"})

    assert response["X-Request-Id"] != "req_chosen_by_the_browser"


def test_a_trusted_proxys_id_is_the_request_id_when_its_shape_is_safe(settings):
    settings.TRUST_REQUEST_ID_HEADER = True
    settings.REQUEST_ID_HEADER = "X-Amzn-Request-Id"
    proxy = Client()

    taken = proxy.get(reverse("healthz"), headers={"X-Amzn-Request-Id": "7f3c9a1e-proxy.edge:42"})
    assert taken["X-Request-Id"] == "7f3c9a1e-proxy.edge:42"

    for unsafe in ["has space", "line\nbreak", "x" * 129, "", "<script>", "-leading-dash"]:
        answered = proxy.get(reverse("healthz"), headers={"X-Amzn-Request-Id": unsafe})
        assert answered["X-Request-Id"] != unsafe
        assert REQUEST_ID_PATTERN.fullmatch(answered["X-Request-Id"])


def test_one_log_line_per_request_with_view_method_status_duration_user_and_id(logged_in_client, user, json_logs):
    response = logged_in_client.get(reverse("healthz"))

    (line,) = json_logs.of("dashboard.request")
    assert line["request_id"] == response["X-Request-Id"]
    assert line["user_id"] == user.pk
    assert line["view"] == "healthz" and line["method"] == "GET" and line["status"] == response.status_code
    assert line["path"] == "/healthz"
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["level"] == "INFO" and line["time"].endswith("Z")


def test_the_request_line_leaves_out_the_query(logged_in_client, json_logs):
    logged_in_client.get(reverse("healthz"), {"search": "private words"})

    (line,) = json_logs.of("dashboard.request")
    assert line["path"] == "/healthz"
    assert "private words" not in json_logs.stream.getvalue()


def test_an_anonymous_request_logs_no_user(client, json_logs):
    client.get(reverse("healthz"))

    (line,) = json_logs.of("dashboard.request")
    assert line["user_id"] is None and line["request_id"]


@pytest.fixture
def service(settings):
    settings.SERVICE_BASE_URL = SERVICE
    settings.SERVICE_MAX_RETRIES = 1
    return ServiceClient(SECRET)


def test_the_service_gets_the_request_id_on_every_call_and_retry(service, monkeypatch, caplog):
    monkeypatch.setattr("dashboard.api.attempts.sleep_before_retry", lambda seconds: None)
    caplog.set_level(logging.INFO, logger="dashboard.api")
    with mocked_service(SERVICE) as remote:
        me = remote.get("/v1/me").mock(
            side_effect=[
                httpx.Response(503, json={}),
                httpx.Response(200, json={}, headers={"X-Request-Id": "req_svc"}),
            ]
        )
        agents = remote.get("/v1/agents").respond(200, json={"data": []})
        with request_id_scope("req_console_page") as request_id:
            service.get("/v1/me")
            service.get("/v1/agents")

    sent = [call.request.headers["X-Request-Id"] for call in [*me.calls, *agents.calls]]
    assert sent == [request_id] * 3
    # Each line says what we sent and what the service answered with.
    messages = [record.getMessage() for record in caplog.records if record.name == "dashboard.api"]
    assert "request_id=req_console_page service_request_id=req_svc" in messages[1]


def test_outside_any_request_or_task_each_call_has_a_fresh_id(service):
    with mocked_service(SERVICE) as remote:
        route = remote.get("/v1/me").respond(200, json={})
        service.get("/v1/me")
        service.get("/v1/me")

    first, second = (call.request.headers["X-Request-Id"] for call in route.calls)
    assert first != second and REQUEST_ID_PATTERN.fullmatch(first)


def test_the_server_error_page_names_the_request_id_the_logs_have(db, monkeypatch, json_logs):
    def broken():
        raise RuntimeError("a bug")

    monkeypatch.setattr("dashboard.views.health_report", broken)
    response = Client(raise_request_exception=False).get(reverse("healthz"))

    assert response.status_code == 500
    request_id = response["X-Request-Id"]
    assert text_of(one(response.content, "main code.request-id")) == request_id
    # The error's own log line (with its traceback) and the request's line carry the same id.
    (error,) = [line for line in json_logs.of("django.request") if line["level"] == "ERROR"]
    assert error["request_id"] == request_id and "RuntimeError: a bug" in error["exception"]
    (line,) = json_logs.of("dashboard.request")
    assert line["request_id"] == request_id and line["status"] == 500 and line["level"] == "WARNING"
