"""A scrape after real work: pages read from the sandbox over HTTP, a Celery
task run (eagerly, with Celery's own signals), a tracked run polled. Metric
names and label sets are asserted, and no label value is a raw id."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from dashboard.api import errors
from dashboard.api.client import ServiceClient
from dashboard.jobs import engine
from dashboard.keys.testing import stored_api_key
from dashboard.version import console_version
from tests.metrics.support import BEARER, RAW_ID, TOKEN, label_sets, named, samples, value

# Label values that are not ids even when they look like numbers: bucket bounds.
NOT_IDS = {"le"}
# The one label that is an id by design: a workspace's (bounded by the
# workspaces the console serves; an operator needs to know which inbox is stale).
BOUNDED_IDS = {("console_inbox_refresh_age_seconds", "workspace"), ("console_workspace_info", "workspace")}


def scrape(client):
    """What Prometheus reads from one web: its processes (/metrics) and the state (/metrics/state)."""
    texts = []
    for url in ("/metrics", "/metrics/state"):
        response = client.get(url, **BEARER)
        assert response.status_code == 200
        texts.append(response.content.decode())
    return "".join(texts)


@pytest.fixture
def demo_key(sandbox, settings, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    settings.SERVICE_MAX_RETRIES = 0
    secret = sandbox.mint_key("demo")
    key = stored_api_key(user=user, secret=secret, workspace_name="Acme Marketing")
    key.test_secret = secret
    return key


def test_a_scrape_after_real_requests_and_a_task_run(client, logged_in_client, demo_key, metrics_on, eager_celery):
    from dashboard.inbox.tasks import refresh_workspace
    from dashboard.live.models import TrackedOperation
    from dashboard.live.services import operation_track
    from dashboard.live.tasks import poll_operation

    before = samples(scrape(client))
    service = demo_key.client(max_retries=0)
    agent_id = service.get("/v1/agents")["data"][0]["id"]
    run_id = service.get(f"/v1/agents/{agent_id}/runs")["data"][0]["id"]

    assert logged_in_client.get(reverse("agents:index")).status_code == 200
    assert logged_in_client.get(reverse("agents:detail", args=[agent_id])).status_code == 200
    assert logged_in_client.get(f"/no/such/page/{run_id}").status_code == 404
    # A real task, through Celery (eager: its prerun and postrun signals fire here).
    refresh_workspace.delay(demo_key.workspace_id)
    # A tracked run, due 3 s ago, polled by the real task.
    op = operation_track(owner_key=demo_key, kind="agents.run", remote_id=run_id, title="A run", snapshot={})
    TrackedOperation.objects.filter(pk=op.pk).update(next_poll_at=timezone.now() - timedelta(seconds=3))
    poll_operation.delay(op.pk)

    text = scrape(client)
    after = samples(text)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    # Requests by view (the URL pattern's name), method and status.
    assert label_sets(after, "console_http_requests_total") == {frozenset({"view", "method", "status"})}
    assert grew("console_http_requests_total", view="agents:index", method="GET", status="200") == 1
    assert grew("console_http_requests_total", view="agents:detail", method="GET", status="200") == 1
    assert grew("console_http_requests_total", view="unmatched", method="GET", status="404") == 1
    assert label_sets(after, "console_http_request_duration_seconds_bucket") == {frozenset({"view", "method", "le"})}
    assert grew("console_http_request_duration_seconds_count", view="agents:detail", method="GET") == 1

    # Remote calls by endpoint template: the ids are gone.
    assert label_sets(after, "console_remote_calls_total") == {frozenset({"endpoint", "method", "status"})}
    assert grew("console_remote_calls_total", endpoint="/v1/agents/{id}", method="GET", status="200") >= 1
    assert grew("console_remote_calls_total", endpoint="/v1/agents/{id}/runs", method="GET", status="200") >= 2
    assert grew("console_remote_calls_total", endpoint="/v1/runs/{id}", method="GET", status="200") == 1
    assert grew("console_remote_call_duration_seconds_count", endpoint="/v1/runs/{id}", method="GET") == 1

    # Tasks by name and outcome; the poll's lag (due 3 s before the call).
    assert grew("console_tasks_total", task="inbox.refresh_workspace", outcome="success") == 1
    assert grew("console_tasks_total", task="live.poll_operation", outcome="success") == 1
    assert grew("console_task_duration_seconds_count", task="inbox.refresh_workspace") == 1
    assert grew("console_live_poll_lag_seconds_count", kind="agents.run") == 1
    assert grew("console_live_poll_lag_seconds_bucket", kind="agents.run", le="2.0") == 0
    assert grew("console_live_poll_lag_seconds_bucket", kind="agents.run", le="30.0") == 1

    # Gauges read from the database at scrape time.
    assert value(after, "console_inbox_refresh_age_seconds", workspace=demo_key.workspace_id) >= 0
    assert named(after, "console_inbox_refresh_age_seconds", workspace=demo_key.workspace_id)
    assert value(after, "console_api_keys_refused") == 0
    assert label_sets(after, "console_live_operations") <= {frozenset({"kind", "state"})}
    assert named(after, "console_live_oldest_due_seconds")
    assert value(after, "console_live_stale_leased_operations") == 0
    (build,) = named(after, "console_build_info")
    assert build.value == 1 and build.labels == {"version": console_version()}
    assert value(after, "console_live_stale_lease_seconds") == 0
    assert {s.labels["state"] for s in named(after, "console_live_poller_slots")} == {"idle", "queued", "running"}
    assert {s.labels["kind"] for s in named(after, "console_object_jobs")} == {
        "edit",
        "delete",
        "import",
        "restore",
        "merge",
        "undo",
    }
    assert named(after, "console_broker_queue_messages", queue="celery")
    assert named(after, "console_login_locked_out")
    parts = {s.labels["part"]: s.value for s in named(after, "console_metrics_collect_ok")}
    assert parts == {
        "live": 1,
        "heartbeat": 1,
        "broker": 1,
        "inbox": 1,
        "keys": 1,
        "logins": 1,
        "workspaces": 1,
        "deliveries": 1,
        "object_jobs": 1,
    }
    (workspace,) = named(after, "console_workspace_info", workspace=demo_key.workspace_id)
    assert workspace.labels["name"] == "Acme Marketing" and workspace.value == 1

    # No raw id in any label; no secret anywhere.
    for sample in after:
        for label, shown in sample.labels.items():
            if label in NOT_IDS or (sample.name, label) in BOUNDED_IDS:
                continue
            assert not RAW_ID.search(shown), (sample.name, label, shown)
    assert demo_key.test_secret not in text
    assert TOKEN not in text
    assert agent_id not in text and run_id not in text


def test_attempts_retries_and_429s_are_counted_by_endpoint(client, metrics_on, settings, monkeypatch, db):
    import respx

    monkeypatch.setattr("dashboard.api.attempts.sleep_before_retry", lambda seconds: None)
    settings.SERVICE_BASE_URL = "https://service.test"
    before = samples(scrape(client))
    with respx.mock(base_url="https://service.test") as remote:
        remote.get("/v1/objects/contacts/records/rec_4711").mock(
            side_effect=[httpx.Response(429, headers={"Retry-After": "0"}), httpx.Response(200, json={"id": "x"})]
        )
        remote.get("/v1/turns/t-1").mock(side_effect=httpx.ConnectError("refused"))
        service = ServiceClient("svc_sk_test_key_0000", max_retries=1)
        service.get("/v1/objects/contacts/records/rec_4711")
        with pytest.raises(errors.ApiConnectionError):
            service.get("/v1/turns/t-1")
    after = samples(scrape(client))

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    record = {"endpoint": "/v1/objects/{object}/records/{id}", "method": "GET"}
    assert grew("console_remote_calls_total", status="429", **record) == 1
    assert grew("console_remote_calls_total", status="200", **record) == 1
    assert grew("console_remote_retries_total", **record) == 1
    assert grew("console_remote_rate_limited_total", **record) == 1
    turn = {"endpoint": "/v1/turns/{id}", "method": "GET"}
    assert grew("console_remote_calls_total", status="connection_error", **turn) == 2
    assert grew("console_remote_retries_total", **turn) == 1


def test_login_failures_and_lockouts_are_counted(client, metrics_on, user, settings):
    settings.AXES_FAILURE_LIMIT = 2
    before = samples(scrape(client))

    for _ in range(3):
        client.post(reverse("login"), {"username": "alice", "password": "not the password"})
    after = samples(scrape(client))

    assert value(after, "console_login_failures_total") - value(before, "console_login_failures_total") == 3
    assert value(after, "console_login_lockouts_total") - value(before, "console_login_lockouts_total") >= 1
    assert value(after, "console_login_locked_out") >= 1


def test_the_middleware_adds_no_query_to_a_request(client, metrics_on, settings, db):
    from tests.metrics.conftest import MIDDLEWARE

    with CaptureQueriesContext(connection) as with_metrics:
        client.get(reverse("login"))
    settings.MIDDLEWARE = [name for name in settings.MIDDLEWARE if name != MIDDLEWARE]
    with CaptureQueriesContext(connection) as without_metrics:
        client.get(reverse("login"))

    assert len(with_metrics) == len(without_metrics)


def test_a_scrape_is_a_handful_of_queries(client, metrics_on, db):
    with CaptureQueriesContext(connection) as processes:
        client.get("/metrics", **BEARER)
    with CaptureQueriesContext(connection) as state:
        client.get("/metrics/state", **BEARER)

    assert len(processes) == 0
    assert len(state) <= 12


def test_object_job_rows_and_jobs_by_state(client, metrics_on, settings, user, monkeypatch):
    import respx

    from objects import jobs
    from tests.objects.jobs_support import edit_job
    from tests.objects.records_fixtures import OBJECT_KEY, record

    settings.SERVICE_BASE_URL = "https://service.test"
    settings.SERVICE_MAX_RETRIES = 0
    monkeypatch.setattr(engine, "send_step", lambda kind, job_id, countdown=None: None)
    key = stored_api_key(user=user, secret="svc_sk_test_key_0001")
    job = edit_job(user, key, ids=["rec-1", "rec-2", "rec-3"], object_key=OBJECT_KEY)
    before = samples(scrape(client))
    with respx.mock(base_url="https://service.test", assert_all_called=False) as remote:
        for record_id in ("rec-1", "rec-2", "rec-3"):
            path = f"/v1/objects/{OBJECT_KEY}/records/{record_id}"
            remote.get(path).mock(return_value=httpx.Response(200, json=record(record_id, "A")))
            remote.patch(path).mock(return_value=httpx.Response(200, json=record(record_id, "A")))
        engine.job_step(jobs.KIND, job.pk)
    after = samples(scrape(client))

    job.refresh_from_db()
    assert job.status == "done"
    grew = value(after, "console_object_job_rows_total", kind="edit", phase="running") - value(
        before, "console_object_job_rows_total", kind="edit", phase="running"
    )
    assert grew == 3
    assert value(after, "console_object_jobs", kind="edit", state="done") == 1
    assert value(after, "console_object_jobs", kind="edit", state="running") == 0
