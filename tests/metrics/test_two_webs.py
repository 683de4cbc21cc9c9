"""Two real web processes (gunicorn, each with its own PROMETHEUS_MULTIPROC_DIR,
as two containers or pods have) on one database: a fresh one serves every
series docs/operations.md lists, and the documented queries, evaluated by
promtool over what Prometheus would store from deploy/prometheus/prometheus.yml's
jobs (each web's /metrics, /metrics/state once), give the true counts."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.helpers import PROJECT_DIR
from tests.metrics import promtool
from tests.metrics.support import TOKEN, Sample, free_port, samples
from tests.workers import wait_for, worker_database_url

OPERATIONS = 7
DOCS = PROJECT_DIR / "docs" / "operations.md"


def get(port: int, path: str, token: str | None = TOKEN, host: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if host:
        request.add_header("Host", host)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return 0, b""


@pytest.fixture
def two_webs(transactional_db, tmp_path) -> Iterator[list[int]]:
    ports = [free_port(), free_port()]
    webs = []
    for n, port in enumerate(ports):
        directory = tmp_path / f"web{n}"
        directory.mkdir()
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "dashboard.settings",
            "DATABASE_URL": worker_database_url(),
            "CACHE_URL": "locmem://",
            "PROMETHEUS_MULTIPROC_DIR": str(directory),
            "METRICS_TOKEN": TOKEN,
            "LOG_LEVEL": "WARNING",
        }
        command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", "1"]
        command += ["--threads", "2", "dashboard.wsgi:application"]
        webs.append(
            subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        )
    try:
        for port in ports:
            assert wait_for(lambda port=port: get(port, "/livez", token=None)[0] == 200, limit_seconds=60)
        yield ports
    finally:
        for web in webs:
            web.send_signal(signal.SIGINT)  # gunicorn's quick shutdown
        for web in webs:
            web.wait(timeout=30)


def documented_series() -> set[str]:
    """The metric names of docs/operations.md's table of series (but those by
    workspace: one per workspace the console holds a key of, none before)."""
    section = DOCS.read_text().split("## Metrics", 1)[1].split("\n## ", 1)[0]
    names = set()
    for line in section.splitlines():
        if line.startswith("| `console_") and "{workspace" not in line:
            names.update(re.findall(r"`(console_[a-z0-9_]+)", line.split(" | ", 1)[0]))
    return names


def served(found: list[Sample]) -> set[str]:
    names = {sample.name for sample in found}
    # A histogram is documented by its name and served as _bucket, _count and _sum.
    return names | {name.removesuffix("_bucket") for name in names}


def test_a_fresh_web_serves_every_documented_series_and_the_documented_queries_count_true(two_webs, tmp_path):
    from django.contrib.auth import get_user_model

    from dashboard.keys.testing import stored_api_key
    from dashboard.live.services import operation_track

    first, second = two_webs
    fresh = samples(get(first, "/metrics")[1]) + samples(get(first, "/metrics/state")[1])
    missing = documented_series() - served(fresh)
    assert len(documented_series()) > 20
    assert not missing, missing

    user = get_user_model().objects.create_user("ops", password="not-used-here-1")
    key = stored_api_key(user=user, secret="svc_sk_test_key_0003", workspace_name="Acme Marketing")
    for n in range(OPERATIONS):
        op = operation_track(owner_key=key, kind="agents.run", remote_id=f"run-{n}", title=f"Run {n}", snapshot={})
        op.next_poll_at = timezone.now() + timedelta(hours=1)
        op.save(update_fields=["next_poll_at"])
    # Requests to each web: 3 to the first, 2 to the second.
    for port, times in ((first, 3), (second, 2)):
        for _ in range(times):
            assert get(port, reverse("login"), token=None)[0] == 200
    # A replica scraped by its address (dns_sd, a pod IP): a Host no ALLOWED_HOSTS lists.
    assert get(first, "/metrics", host="172.18.0.5:8000")[0] == 200
    assert get(first, "/metrics", token=None, host="172.18.0.5:8000")[0] == 401

    # What Prometheus stores from the jobs: every web's /metrics, /metrics/state once
    # (of the metrics the queries below read).
    read = {"console_live_operations", "console_http_requests_total", "console_build_info"}
    series = []
    for n, port in enumerate((first, second)):
        found = samples(get(port, "/metrics")[1])
        series += promtool.input_series(found, only=read, minutes=3, job="console-web", instance=f"web-{n}")
    state = samples(get(second, "/metrics/state")[1])
    series += promtool.input_series(state, only=read, minutes=3, job="console-state", instance="web:8000")
    # The mistake the separate endpoint prevents: the state read from every web.
    for n, port in enumerate((first, second)):
        also = samples(get(port, "/metrics/state")[1])
        series += promtool.input_series(also, only=read, minutes=3, job="every-web-state", instance=f"web-{n}")

    def expect(expr: str, value: float) -> dict:
        return {"expr": expr, "eval_time": "2m", "exp_samples": [{"labels": "{}", "value": value}]}

    result = promtool.unit_test(
        tmp_path,
        [
            {
                "input_series": series,
                "promql_expr_test": [
                    # The documented query: the state job has one target.
                    expect('sum(console_live_operations{job="console-state"})', OPERATIONS),
                    # Counters add up over the webs.
                    expect('sum(console_http_requests_total{job="console-web",view="login",status="200"})', 5),
                    # Read from every web, a sum doubles; `max without (instance)` mends it.
                    expect('sum(console_live_operations{job="every-web-state"})', 2 * OPERATIONS),
                    expect('sum(max without (instance) (console_live_operations{job="every-web-state"}))', OPERATIONS),
                    expect('count(console_build_info{job="console-web"})', 2),
                ],
            }
        ],
    )
    assert result.returncode == 0, result.stdout + result.stderr
