"""Multiprocess mode: processes that each write their own files in
PROMETHEUS_MULTIPROC_DIR (gunicorn's workers, Celery's prefork processes) are
added up by one scrape, also after they ended; a worker's own endpoint serves
its processes' counters under the same rules as /metrics."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.helpers import PROJECT_DIR
from tests.metrics.support import TOKEN, samples, value

# A process like a gunicorn worker or a Celery prefork child: metrics on, one
# request and one remote call observed, then it exits (it needs no Django).
WRITER = """
import sys
from dashboard.metrics import registry
registry.enable()
for _ in range(int(sys.argv[1])):
    registry.request_observed(view="objects:records", method="GET", status=200, seconds=0.02)
    registry.remote_attempt_observed(
        method="GET", path="/v1/objects/contacts/records", status="200", seconds=0.1, retried=False
    )
"""


def write_in_a_process(directory, times: int) -> None:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    subprocess.run([sys.executable, "-c", WRITER, str(times)], cwd=PROJECT_DIR, env=env, check=True, timeout=60)


def test_two_processes_write_and_one_scrape_sees_both(tmp_path, monkeypatch):
    from dashboard.metrics.scrape import scrape_processes

    write_in_a_process(tmp_path, 2)
    write_in_a_process(tmp_path, 3)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))

    found = samples(scrape_processes())

    # Two processes, two files of each type, summed by the scrape.
    assert len(list(tmp_path.glob("counter_*.db"))) == 2
    assert value(found, "console_http_requests_total", view="objects:records", method="GET", status="200") == 5
    assert value(found, "console_http_request_duration_seconds_count", view="objects:records", method="GET") == 5
    assert (
        value(
            found,
            "console_remote_calls_total",
            endpoint="/v1/objects/{object}/records",
            method="GET",
            status="200",
        )
        == 5
    )


def test_a_dead_process_is_marked_and_its_counters_stay(tmp_path, monkeypatch):
    from prometheus_client import multiprocess

    from dashboard.metrics.scrape import scrape_processes

    write_in_a_process(tmp_path, 4)
    pid = int(next(tmp_path.glob("counter_*.db")).stem.split("_")[-1])
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))

    multiprocess.mark_process_dead(pid, str(tmp_path))  # what gunicorn's child_exit does

    assert value(samples(scrape_processes()), "console_http_requests_total", view="objects:records") == 4


def test_a_workers_own_endpoint_serves_its_processes_under_the_same_rules(tmp_path, monkeypatch, settings):
    from dashboard.metrics.worker_server import metrics_app

    write_in_a_process(tmp_path, 1)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    settings.METRICS_ENABLED = True
    settings.METRICS_TOKEN = TOKEN
    settings.METRICS_ALLOW_FROM = []

    def get(path: str = "/metrics", **headers: str) -> tuple[str, bytes]:
        answer: dict = {}

        def start_response(status, response_headers):
            answer["status"] = status

        environ = {"PATH_INFO": path, "REQUEST_METHOD": "GET", "REMOTE_ADDR": "10.0.0.5", **headers}
        body = b"".join(metrics_app(environ, start_response))
        return answer["status"], body

    assert get()[0] == "401 Unauthorized"
    assert get(HTTP_AUTHORIZATION="Bearer wrong")[0] == "403 Forbidden"
    assert get("/other", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")[0] == "404 Not Found"
    status, body = get(HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    found = samples(body)

    assert status == "200 OK"
    assert value(found, "console_http_requests_total", view="objects:records") == 1
    # The database's gauges are the web's to report (once), not every worker's.
    assert not [s for s in found if s.name.startswith("console_metrics_collect")]
