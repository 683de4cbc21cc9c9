"""A real Celery worker on Redis and PostgreSQL killed (SIGKILL) while it
holds a batch of tracked operations whose calls hang in the service: its
short lease is renewed while it lives, so the rows look held (and the
stale-lease gauge and /readyz say they are frozen: held, not polled for two
intervals); once it is killed nothing renews the lease, and another worker
(already running, as deployed) polls every one of its rows again within
15 s. The gauge falls back to 0.

The service is a small real HTTP server of the test's own, whose answers
hang until the test lets them go (the sandbox answers at once)."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.conf import settings
from django.utils import timezone

from dashboard.celery import app
from dashboard.health import readiness_report
from dashboard.live.claims import POLL_LEASE_PREFIX
from dashboard.live.models import TrackedOperation
from dashboard.metrics.collect import live_gauges
from tests.live.support import turn_body
from tests.workers import TEST_REDIS_URL

OPS = 30
POLLED_AGAIN_WITHIN = timedelta(seconds=15)  # the (#31) promise


class HangingService(ThreadingHTTPServer):
    """Answers GET /v1/turns/<id> with a building turn, but only once `release` is set."""

    daemon_threads = True

    def __init__(self) -> None:
        self.release = threading.Event()
        self.asked = 0
        super().__init__(("127.0.0.1", 0), TurnHandler)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class TurnHandler(BaseHTTPRequestHandler):
    server: HangingService

    def do_GET(self) -> None:
        self.server.asked += 1
        self.server.release.wait(120)
        body = json.dumps(turn_body("building", turn_id=self.path.rsplit("/", 1)[-1])).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the killed worker's connection is gone
            pass

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def hanging_service():
    server = HangingService()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()


def waiting_until(condition, limit_seconds: float, *, ticking: bool = False) -> bool:
    """Wait until `condition()`, sending ticks (standing in for beat) if
    `ticking`: not an assertion on time, the checks follow."""
    from dashboard.live.tasks import tick

    deadline = time.monotonic() + limit_seconds
    while True:
        # What the condition said when it was asked: asked again after the loop, a state that
        # held only for a moment (a batch between two renewals) would read as never reached.
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        if ticking:
            tick.apply_async()
        time.sleep(0.5)


def answers_ping(name: str) -> bool:
    return any(host.startswith(name) for reply in app.control.ping(timeout=0.5) for host in reply)


def stale_gauge() -> float:
    (gauge,) = [g for g in live_gauges(timezone.now()) if g.name == "console_live_stale_leased_operations"]
    return gauge.samples[0][1]


@pytest.mark.redis
@pytest.mark.postgres
def test_a_worker_killed_holding_a_batch_leaves_every_row_polled_again_within_seconds(
    transactional_db, hanging_service, make_turn, monkeypatch, record_property, worker_processes
):
    env = {
        "SERVICE_BASE_URL": hanging_service.base_url,
        "SERVICE_TIMEOUT": "120",  # the hung calls outlast the test's steps: only the kill ends them
        "KEY_ENCRYPTION_KEYS": ",".join(settings.KEY_ENCRYPTION_KEYS),
    }
    monkeypatch.delenv("LIVE_LEASE_SECONDS", raising=False)  # the default short lease, as deployed
    monkeypatch.setenv("CELERY_BROKER_URL", TEST_REDIS_URL)
    workers = []  # worker_processes stops them at the end; the test kills the first itself
    ops = [make_turn(remote_id=f"turn-{number:02d}") for number in range(OPS)]
    rows = TrackedOperation.objects.filter(pk__in=[op.pk for op in ops])
    assert stale_gauge() == 0

    workers.append(worker_processes("--pool", "solo", "-l", "warning", "-n", "holder@%h", env=env))
    # Its batch claims every row, and its calls hang in the service.
    assert waiting_until(
        lambda: rows.filter(lease_token__startswith=POLL_LEASE_PREFIX).count() == OPS, 60, ticking=True
    )
    assert waiting_until(lambda: hanging_service.asked > 0, 30)
    held = dict(rows.values_list("id", "lease_token"))
    assert len(set(held.values())) == 1  # one batch
    # A second worker, as deployed (it polls nothing: every row is held).
    workers.append(worker_processes("--pool", "solo", "-l", "warning", "-n", "other@%h", env=env))
    assert waiting_until(lambda: answers_ping("other@"), 60)

    # Held, renewed, never polled: two intervals (5 s for first polls) on, they are frozen.
    assert waiting_until(lambda: stale_gauge() == OPS, 30)
    assert readiness_report().parts["leases"] == "error: LeaseStale"
    now = timezone.now()
    # Renewed while the worker lives, yet never more than one short lease ahead.
    assert all(
        now < until <= now + timedelta(seconds=settings.LIVE_LEASE_SECONDS + 1)
        for until in rows.values_list("lease_until", flat=True)
    )
    assert dict(rows.values_list("id", "lease_token")) == held  # still that batch's

    killed_at = timezone.now()
    os.kill(workers[0].pid, signal.SIGKILL)
    workers[0].wait(timeout=10)
    hanging_service.release.set()  # the service answers again

    def all_polled_again() -> bool:
        return rows.filter(last_polled_at__gt=killed_at).count() == OPS

    assert waiting_until(all_polled_again, 60, ticking=True)
    last_first_poll = max(rows.values_list("last_polled_at", flat=True))
    record_property("polled_again_seconds", (last_first_poll - killed_at).total_seconds())
    assert last_first_poll - killed_at <= POLLED_AGAIN_WITHIN, last_first_poll - killed_at
    assert not rows.filter(poll_count=0).exists() and not rows.filter(error_count__gt=0).exists()
    assert not rows.filter(lease_token__in=set(held.values())).exists()  # taken over, the dead batch's gone

    assert waiting_until(lambda: stale_gauge() == 0, 30, ticking=True)
    assert readiness_report().parts["leases"] == "ok"
