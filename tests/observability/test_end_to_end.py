"""One request id from a page to the service: a chat message sent from the
agent's chat page (a POST that stores the tracked row and sends the
`agents.stream_invocation` task through the outbox) has its request id on the
web request's log line, on the task's log line and the service calls the
task makes, and in the sandbox's access log. Eagerly (the task runs once the
request is over, from the outbox row's headers), and in a real worker
process over Redis (its log read as the JSON lines it prints)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection
from django.urls import reverse

from dashboard.idempotency import new_idempotency_key
from dashboard.live.models import TrackedOperation
from tests.agents.support import store_demo_key
from tests.helpers import PROJECT_DIR, missing_service
from tests.observability.support import agent_named

TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def send_message(client, agent_id: str):
    return client.post(
        reverse("agents:chat_send", args=[agent_id]),
        {"message": "What does the Pro plan cost?", "idempotency_key": new_idempotency_key()},
    )


def test_a_pages_request_id_reaches_the_task_and_the_sandbox(
    sandbox_client, own_sandbox, eager_celery, django_capture_on_commit_callbacks, json_logs, sandbox_access
):
    agent_id = agent_named(own_sandbox, "Customer FAQ helper")

    with django_capture_on_commit_callbacks(execute=True):
        sent = send_message(sandbox_client, agent_id)
    request_id = sent["X-Request-Id"]

    assert sent.status_code == 302
    assert TrackedOperation.objects.get(kind="agents.invocation").status == "completed"
    (request_line,) = [line for line in json_logs.of("dashboard.request") if line["request_id"] == request_id]
    assert request_line["view"] == "agents:chat_send" and request_line["method"] == "POST"
    (task_line,) = json_logs.of("dashboard.task")
    assert task_line["task"] == "agents.stream_invocation" and task_line["status"] == "success"
    assert task_line["request_id"] == request_id
    # The task's call to the service: sent with the id, logged with it, and the sandbox's answer names it.
    calls = [line for line in json_logs.of("dashboard.api") if f"/v1/agents/{agent_id}/runs" in line["message"]]
    assert calls and {line["request_id"] for line in calls} == {request_id}
    assert request_id in sandbox_access.request_ids()


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "celery", "-A", "dashboard", "worker", "--pool", "solo", "-l", "warning"]
    with log.open("w") as output:
        return subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=output, stderr=subprocess.STDOUT)


@pytest.mark.redis
@pytest.mark.postgres
def test_a_real_worker_runs_the_task_under_the_pages_request_id(
    transactional_db, own_sandbox, user, client, settings, tmp_path, sandbox_access
):
    import redis

    from dashboard.celery import app

    if connection.vendor != "postgresql":
        missing_service("needs PostgreSQL: the worker process shares the test database")
    try:
        redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        missing_service(f"no Redis at {TEST_REDIS_URL}: {exc}")
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}",
        "CELERY_BROKER_URL": TEST_REDIS_URL,
        "CACHE_URL": "locmem://",
        "SERVICE_BASE_URL": own_sandbox.base_url,
        "KEY_ENCRYPTION_KEYS": ",".join(settings.KEY_ENCRYPTION_KEYS),
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "LOG_FORMAT": "json",
    }
    settings.SERVICE_BASE_URL = own_sandbox.base_url
    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager")}

    def forget_connections():
        # The app caches its pools by address (tests/live/test_worker_redis.py): built anew, never closed.
        app._pool = None
        app.amqp._producer_pool = None

    forget_connections()
    app.conf.update(broker_url=TEST_REDIS_URL, task_always_eager=False)
    log = tmp_path / "worker.log"
    worker = None
    try:
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(app.conf.task_default_queue)
        store_demo_key(user, own_sandbox)
        client.force_login(user)
        agent_id = agent_named(own_sandbox, "Customer FAQ helper")
        worker = start_worker(env, log)

        sent = send_message(client, agent_id)  # committed for real: published to Redis within the request
        request_id = sent["X-Request-Id"]

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not TrackedOperation.objects.filter(is_final=True).exists():
            time.sleep(0.2)  # waiting for another process, not measuring time
        assert TrackedOperation.objects.get(kind="agents.invocation").status == "completed"
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=20)
        app.conf.update(**saved)
        forget_connections()

    records = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    (task_line,) = [line for line in records if line["logger"] == "dashboard.task"]
    assert task_line["task"] == "agents.stream_invocation" and task_line["status"] == "success"
    assert task_line["request_id"] == request_id
    assert {line["request_id"] for line in records if line["logger"] == "dashboard.api"} == {request_id}
    assert request_id in sandbox_access.request_ids()
