"""Logs an operator keeps (#31): the remote-call line carries its endpoint
template, status, elapsed time and attempt as fields; a poll's routine call
is at DEBUG (the metrics count it), its failures stay at WARNING; a task
sent by a person's request names them on its line; beat's tick lines are
off INFO by default."""

from __future__ import annotations

import logging

import httpx
from django.conf import settings

from dashboard.api import ServiceClient
from dashboard.api.attempts import quiet_calls
from dashboard.observability.context import request_id_scope
from dashboard.observability.task_context import header_user_id, on_before_task_publish, on_task_postrun, on_task_prerun
from tests.helpers import mocked_service

SERVICE = "https://service.test"
SECRET = "svc_sk_logs0123456789abcdefghijklmnopqrstuvwxyzABCD"


def test_a_remote_line_carries_its_fields_and_a_polls_success_is_at_debug(settings, json_logs, monkeypatch):
    settings.SERVICE_BASE_URL = SERVICE
    monkeypatch.setattr("dashboard.api.attempts.sleep_before_retry", lambda seconds: None)
    client = ServiceClient(SECRET, max_retries=1)
    with mocked_service(SERVICE) as remote:
        remote.get("/v1/turns/turn-1").mock(side_effect=[httpx.Response(503, json={}), httpx.Response(200, json={})])
        remote.get("/v1/objects/contacts/records/rec_9").respond(200, json={})
        with quiet_calls():
            client.get("/v1/turns/turn-1")
        client.get("/v1/objects/contacts/records/rec_9")

    retried, polled, read = json_logs.of("dashboard.api")
    assert (retried["level"], retried["status"], retried["attempt"], retried["attempts"]) == ("WARNING", "503", 1, 2)
    assert retried["endpoint"] == "/v1/turns/{id}" and retried["retry_in_s"] >= 0
    assert (polled["level"], polled["status"], polled["attempt"]) == ("DEBUG", "200", 2)
    assert read["level"] == "INFO" and read["endpoint"] == "/v1/objects/{object}/records/{id}"
    assert read["method"] == "GET" and isinstance(read["elapsed_ms"], float)
    assert SECRET not in json_logs.stream.getvalue()


class FakeTask:
    name = "agents.stream_invocation"

    def __init__(self, headers: dict) -> None:
        self.request = type("Request", (), {"headers": headers})()


def test_a_task_sent_by_a_persons_request_names_them_on_its_line(json_logs):
    headers: dict = {}
    with request_id_scope("req_console_sent", user_id=42):
        on_before_task_publish(headers=headers)
    assert headers == {"request_id": "req_console_sent", "user_id": 42}

    task = FakeTask(headers)  # run in a worker: no request bound there
    on_task_prerun(task_id="t-1", task=task)
    on_task_postrun(task_id="t-1", task=task, state="SUCCESS")

    (line,) = json_logs.of("dashboard.task")
    assert (line["user_id"], line["request_id"], line["status"]) == (42, "req_console_sent", "success")


def test_a_tasks_user_header_is_read_tolerantly():
    assert header_user_id(FakeTask({"user_id": "7"}).request) == 7
    for odd in (None, "", "abc", -3, 0, True, {"id": 1}):
        assert header_user_id(FakeTask({"user_id": odd}).request) is None


def test_beats_tick_lines_are_off_info_by_default():
    assert settings.CELERY_BEAT_LOG_LEVEL == "WARNING"
    assert not logging.getLogger("celery.beat").isEnabledFor(logging.INFO)
