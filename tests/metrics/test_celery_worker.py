"""A real Celery worker (prefork, two processes, in a process of its own) on
Redis: the tasks its pool processes run are counted in its
PROMETHEUS_MULTIPROC_DIR, its own endpoint (METRICS_WORKER_PORT, started when
the worker is ready) serves them under the token, and they stay counted
after the worker stopped."""

from __future__ import annotations

import signal
import subprocess
import urllib.error
import urllib.request

import pytest

from tests.metrics.support import TOKEN, free_port, samples, value
from tests.workers import wait_for

TICKS = 12


def worker_scrape(port: int, token: str | None = TOKEN) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except OSError:
        return 0, ""


@pytest.mark.redis
@pytest.mark.postgres
def test_a_prefork_workers_processes_are_counted_and_served_by_the_worker(
    transactional_db,
    tmp_path,
    monkeypatch,
    redis_celery,
    worker_processes,
):
    # The console's app publishes to the worker's Redis (redis_celery), not to the settings' broker.
    app = redis_celery
    from dashboard.metrics.scrape import scrape_processes

    port = free_port()
    env = {
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
        "METRICS_TOKEN": TOKEN,
        "METRICS_WORKER_PORT": str(port),
        "LOG_LEVEL": "WARNING",
    }
    worker = worker_processes(
        *("--pool", "prefork", "--concurrency", "2", "--loglevel", "WARNING", "--without-gossip", "--without-mingle"),
        env=env,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(lambda: worker_scrape(port)[0] == 200 or worker.poll() is not None, limit_seconds=60)
        assert worker.poll() is None, worker.stderr.read().decode()[-3000:] if worker.stderr else ""
        assert worker_scrape(port, token=None)[0] == 401
        assert worker_scrape(port, token="wrong")[0] == 403

        for _ in range(TICKS):
            app.send_task("live.tick")

        def ticks_served() -> float:
            return value(samples(worker_scrape(port)[1]), "console_tasks_total", task="live.tick", outcome="success")

        wait_for(lambda: ticks_served() >= TICKS, limit_seconds=60)
        assert ticks_served() == TICKS
        # Written by the pool's processes (the main process, which serves, made
        # only the files of the series it created at import, all zero).
        writers = {int(path.stem.split("_")[-1]) for path in tmp_path.glob("counter_*.db")}
        assert writers - {worker.pid}
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(timeout=10)
        if worker.stderr:
            worker.stderr.close()

    # The worker is gone; what its processes counted stays (summed from their files).
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    after = samples(scrape_processes())
    assert value(after, "console_tasks_total", task="live.tick", outcome="success") == TICKS
    assert value(after, "console_task_duration_seconds_count", task="live.tick") == TICKS
