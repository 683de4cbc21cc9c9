"""Live poller bench: poll lag and polls per second of real Celery workers.

    .venv/bin/python bench/poll_lag.py [--ops 1000] [--workers 1] [--seconds 60]
        [--keys 10] [--designs old,new] [--json]

In one run it starts a sandbox (a subprocess, its clock slowed so that every
website turn stays `building` throughout), creates `--ops / --keys` website
turns there and stores `--keys` API keys of its demo workspace, one console
user each, and records one tracked operation per (key, turn): `--ops` rows,
their first polls due over the first 5 s (as turns started one after
another would be). Then, for each design, it starts `--workers` real Celery
workers (concurrency 2, as in the Procfile) and Celery beat as subprocesses
on Redis and PostgreSQL, lets them poll for `--seconds`, and reads the rows
twice a second to see every poll: its lag is the poll's time
(`last_polled_at`) minus the time it was due (the `next_poll_at` seen just
before). A row still waiting at the end counts with the wait so far.

The designs, measured side by side with the same rows, sandbox and machine:

- `old`: the shape before the batch poller: one row per Celery message and
  per task, no thread pool, at most 100 rows per tick, a tick every 2 s
  (LIVE_POLL_BATCH=1, LIVE_POLL_THREADS=1, LIVE_POLL_TASK_SECONDS=0,
  LIVE_POLL_MAX_QUEUED=100, CELERY_BEAT_TICK_SECONDS=2);
- `new`: the settings' defaults (batches of 50 rows per task, 16 threads,
  4 calls per key, a tick every half second).

It reports lag p50, p95 and max, polls per second (in all and per worker)
and their ratios. It needs PostgreSQL and Redis, the engine the hosted
console runs on; without them it prints why it skipped and exits 0 (SQLite's
one writer and the filesystem broker would measure something else).
Where: BENCH_DATABASE_URL (else DATABASE_URL when it is PostgreSQL, else
postgres://postgres@127.0.0.1:5432/console); the bench creates its own
database `<name>_poll_bench` on that server and drops it at the end.
BENCH_REDIS_URL (default redis://127.0.0.1:6379/14): its Celery queue is
purged before each design runs.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/console"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
# Real seconds per simulated second: a website turn (10 s director + 180 s
# build) stays `building` for about half an hour, longer than any run here.
SANDBOX_TIME_SCALE = 10.0
SPREAD_SECONDS = 5.0  # first polls due over the first poll interval
SAMPLE_SECONDS = 0.5
WORKER_CONCURRENCY = 2

DESIGNS = {
    "old": {
        "LIVE_POLL_BATCH": "1",
        "LIVE_POLL_THREADS": "1",
        "LIVE_POLL_TASK_SECONDS": "0",
        "LIVE_POLL_MAX_QUEUED": "100",
        "CELERY_BEAT_TICK_SECONDS": "2",
    },
    "new": {},
}
DESIGN_TITLES = {"old": "one row per message, 100 per 2 s tick", "new": "batches of rows per task, the defaults"}


# --- the sandbox, in a process of its own ----------------------------------------------


def serve_sandbox(keys: int, turns: int) -> None:
    """The child process: a sandbox with `keys` demo keys and `turns` website
    turns; prints them as one JSON line, serves until stdin closes."""
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    from sandbox.testing import start_sandbox

    handle = start_sandbox(time_scale=SANDBOX_TIME_SCALE)
    secrets_ = [handle.mint_key("demo") for _ in range(keys)]
    with httpx.Client(base_url=handle.base_url, headers={"Authorization": f"Bearer {secrets_[0]}"}) as http:

        def start_turn(number: int) -> str:
            response = http.post(
                "/v1/studio/website/turns",
                json={"message": f"Landing page number {number} for the spring sale", "auto": True, "background": True},
                headers={"Idempotency-Key": f"bench-turn-{number}"},
            )
            response.raise_for_status()
            return response.json()["id"]

        with ThreadPoolExecutor(8) as pool:
            turn_ids = list(pool.map(start_turn, range(turns)))
    print(json.dumps({"base_url": handle.base_url, "keys": secrets_, "turns": turn_ids}), flush=True)
    sys.stdin.read()
    handle.stop()


@dataclass
class Sandbox:
    process: subprocess.Popen
    base_url: str
    keys: list[str]
    turns: list[str]

    def stop(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_sandbox_process(keys: int, turns: int) -> Sandbox:
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve-sandbox", "--keys", str(keys), "--turns", str(turns)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        raise SystemExit("the sandbox process did not start")
    info = json.loads(line)
    return Sandbox(process=process, base_url=info["base_url"], keys=info["keys"], turns=info["turns"])


# --- services: PostgreSQL and Redis -------------------------------------------------------


def bench_database_url(suffix: str = "poll_bench") -> str:
    """A throwaway PostgreSQL database's address, named after the configured one and `suffix`."""
    url = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("DATABASE_URL") or ""
    if not url.startswith(("postgres://", "postgresql://")):
        url = DEFAULT_DATABASE_URL
    parts = urlsplit(url)
    name = parts.path.lstrip("/") or "console"
    return urlunsplit(parts._replace(path=f"/{name}_{suffix}"))


def _server_connection(database_url: str):
    import psycopg

    parts = urlsplit(database_url)
    return psycopg.connect(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        user=parts.username or "postgres",
        password=parts.password,
        dbname="postgres",
        autocommit=True,
        connect_timeout=3,
    )


def recreate_database(database_url: str) -> None:
    name = urlsplit(database_url).path.lstrip("/")
    with _server_connection(database_url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(database_url: str) -> None:
    name = urlsplit(database_url).path.lstrip("/")
    with _server_connection(database_url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def missing_services(database_url: str, redis_url: str) -> str | None:
    """Why the bench can't run here, or None."""
    try:
        _server_connection(database_url).close()
    except Exception as exc:
        where = f"{urlsplit(database_url).hostname}:{urlsplit(database_url).port or 5432}"
        return f"no PostgreSQL at {where} ({str(exc).splitlines()[0]})"
    import redis

    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        return f"no Redis at {redis_url} ({exc})"
    return None


# --- the console side --------------------------------------------------------------------


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def record_operations(sandbox: Sandbox) -> int:
    """One console user and stored key per sandbox key; one row per (key, turn)."""
    from django.contrib.auth import get_user_model

    from dashboard.keys.testing import stored_api_key
    from dashboard.live.models import TrackedOperation

    rows = []
    for number, secret in enumerate(sandbox.keys):
        user = get_user_model().objects.create_user(username=f"bench{number}", password=None)
        key = stored_api_key(user=user, secret=secret, label=f"Bench key {number}", workspace_id="ws-bench")
        rows += [
            TrackedOperation(
                owner_key=key,
                started_by=user,
                kind="studio.turn",
                remote_id=turn_id,
                title=f"Landing page {turn_id[:8]}",
                status="building",
                snapshot={"id": turn_id, "status": "building"},
            )
            for turn_id in sandbox.turns
        ]
    TrackedOperation.objects.bulk_create(rows, batch_size=1000)
    return len(rows)


def make_due(start: datetime, *, spread_seconds: float) -> dict[int, datetime]:
    """Every row fresh (never polled, nothing leased), the first polls due from
    `start` over `spread_seconds` (0: all at once)."""
    from django.db import connection

    from dashboard.live.models import TrackedOperation

    ids = list(TrackedOperation.objects.order_by("id").values_list("id", flat=True))
    step = timedelta(microseconds=int(spread_seconds * 1_000_000 / len(ids)))
    due = {op_id: start + (op_id - ids[0]) * step for op_id in ids}
    if connection.vendor != "postgresql":  # the embedded stack (bench/poll_stress.py): row by row
        TrackedOperation.objects.update(
            status="building", is_final=False, poll_count=0, error_count=0, last_error="", last_polled_at=None,
            lease_until=None, lease_token="", updated_at=start,
        )  # fmt: skip
        for op_id, when in due.items():
            TrackedOperation.objects.filter(id=op_id).update(next_poll_at=when)
        return due
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {TrackedOperation._meta.db_table} SET status = 'building', is_final = false, poll_count = 0,"
            " error_count = 0, last_error = '', last_polled_at = NULL, lease_until = NULL, lease_token = '',"
            " updated_at = %s, next_poll_at = %s + (id - %s) * %s",
            [start, start, ids[0], step],
        )
    return due


def purge_queue() -> None:
    from dashboard.celery import app

    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(app.conf.task_default_queue)


def wait_for_workers(count: int, *, limit_seconds: float = 90.0) -> None:
    from dashboard.celery import app

    deadline = time.monotonic() + limit_seconds
    while time.monotonic() < deadline:
        if len(app.control.ping(timeout=1.0) or []) >= count:
            return
    raise SystemExit(f"{count} Celery worker(s) did not answer within {limit_seconds:.0f} s")


@dataclass
class Processes:
    running: list[subprocess.Popen] = field(default_factory=list)

    def start(self, args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
        with log.open("ab") as out:
            process = subprocess.Popen(
                args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.running.append(process)
        return process

    def stop(self, only: subprocess.Popen | None = None) -> None:
        # Warm shutdown: a worker finishes the task in hand (a poll task's budget).
        stopping = [only] if only is not None else list(self.running)
        for process in stopping:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in stopping:
            try:
                process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            self.running.remove(process)


class Sampler:
    """Reads the rows changed since the last look, twice a second, and sees
    every poll: its lag is `last_polled_at` minus the `next_poll_at` seen
    before it (polls are 5 s apart at least, so none is missed)."""

    def __init__(self, due: dict[int, datetime], *, end: datetime) -> None:
        self.seen: dict[int, tuple[int, datetime | None]] = {op_id: (0, when) for op_id, when in due.items()}
        self.end = end
        self.since = min(due.values()) - timedelta(seconds=3)
        self.lags: list[float] = []
        self.due_lags: list[tuple[datetime, float]] = []  # each lag with the time its poll was due
        self.polls = 0
        self.last_poll: datetime | None = None
        self.asked = self.since

    def read(self) -> None:
        from django.utils import timezone

        from dashboard.live.models import TrackedOperation

        self.asked = timezone.now()
        changed = TrackedOperation.objects.filter(updated_at__gte=self.since).values_list(
            "id", "poll_count", "last_polled_at", "next_poll_at"
        )
        for op_id, poll_count, polled_at, next_poll_at in changed:
            before_count, due_at = self.seen[op_id]
            if poll_count <= before_count or polled_at is None:
                continue
            if polled_at <= self.end:
                self.polls += poll_count - before_count
                self.last_poll = max(self.last_poll or polled_at, polled_at)
            if poll_count == before_count + 1 and due_at is not None and due_at <= self.end:
                self.lags.append((polled_at - due_at).total_seconds())
                self.due_lags.append((due_at, self.lags[-1]))
            self.seen[op_id] = (poll_count, next_poll_at)
        # Rows are written a moment after their `updated_at`: look back a little.
        self.since = self.asked - timedelta(seconds=3)

    def polled_rows(self) -> int:
        return sum(1 for count, _ in self.seen.values() if count > 0)

    def overdue(self) -> list[float]:
        """Rows still waiting for a poll due inside the window: their wait so far."""
        return [
            (self.asked - due_at).total_seconds()
            for _, due_at in self.seen.values()
            if due_at is not None and due_at <= self.end
        ]


def wait_for_no_leases(limit_seconds: float = 60.0) -> None:
    from dashboard.live.models import TrackedOperation

    deadline = time.monotonic() + limit_seconds
    while TrackedOperation.objects.exclude(lease_token="").exists() and time.monotonic() < deadline:
        time.sleep(SAMPLE_SECONDS)


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


@dataclass
class Result:
    design: str
    workers: int
    # Steady: first polls spread over 5 s, then as the poller schedules them.
    lags: list[float]
    polls: int
    seconds: float
    overdue_at_end: int
    failed_checks: int
    # Burst: every row due at once; how fast the workers get through them.
    burst_rows: int
    burst_polled: int
    burst_seconds: float

    def percentile(self, p: float) -> float:
        return percentile(self.lags, p)

    def figures(self) -> dict[str, float | int | str]:
        capacity = self.burst_polled / self.burst_seconds if self.burst_seconds else float("nan")
        return {
            "design": self.design,
            "lag_p50_s": round(self.percentile(50), 2),
            "lag_p95_s": round(self.percentile(95), 2),
            "lag_max_s": round(max(self.lags), 2) if self.lags else float("nan"),
            "steady_polls": self.polls,
            "steady_polls_per_second": round(self.polls / self.seconds, 1),
            "overdue_at_end": self.overdue_at_end,
            "failed_checks": self.failed_checks,
            "burst_rows": self.burst_rows,
            "burst_polled": self.burst_polled,
            "burst_seconds": round(self.burst_seconds, 2),
            "polls_per_second": round(capacity, 1),
            "polls_per_second_per_worker": round(capacity / self.workers, 1),
        }


def _celery(*args: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "dashboard", *args, "--loglevel", "WARNING"]


def run_design(design: str, *, workers: int, seconds: float, env: dict[str, str], tmp: Path) -> Result:
    from django.utils import timezone

    from dashboard.live.models import TrackedOperation

    purge_queue()
    design_env = {**env, **DESIGNS[design]}
    processes = Processes()
    log = tmp / f"{design}.log"
    beat_args = _celery("beat", "--schedule", str(tmp / f"beat-{design}"), "--pidfile=")
    try:
        for number in range(workers):
            processes.start(
                _celery(
                    "worker",
                    "--concurrency",
                    str(WORKER_CONCURRENCY),
                    "--without-gossip",
                    "--without-mingle",
                    "--hostname",
                    f"bench{number}-{design}@%h",
                ),
                design_env,
                log,
            )
        wait_for_workers(workers)

        # Burst: every row due now; the time to poll each once is the capacity.
        start = timezone.now() + timedelta(seconds=0.5)
        burst = Sampler(make_due(start, spread_seconds=0), end=start + timedelta(seconds=seconds))
        beat = processes.start(beat_args, design_env, log)
        while burst.polled_rows() < len(burst.seen) and burst.asked <= burst.end:
            time.sleep(SAMPLE_SECONDS)
            burst.read()
        processes.stop(beat)
        purge_queue()
        wait_for_no_leases()
        failed = sum(TrackedOperation.objects.values_list("error_count", flat=True))
        burst_seconds = ((burst.last_poll or burst.end) - start).total_seconds()

        # Steady: first polls due over 5 s (turns started one after another), then as scheduled.
        start = timezone.now() + timedelta(seconds=0.5)
        steady = Sampler(make_due(start, spread_seconds=SPREAD_SECONDS), end=start + timedelta(seconds=seconds))
        processes.start(beat_args, design_env, log)
        while steady.asked <= steady.end + timedelta(seconds=1):
            time.sleep(SAMPLE_SECONDS)
            steady.read()
    finally:
        processes.stop()
    overdue = steady.overdue()
    return Result(
        design=design,
        workers=workers,
        lags=steady.lags + overdue,
        polls=steady.polls,
        seconds=seconds,
        overdue_at_end=len(overdue),
        failed_checks=failed + sum(TrackedOperation.objects.values_list("error_count", flat=True)),
        burst_rows=len(burst.seen),
        burst_polled=burst.polled_rows(),
        burst_seconds=burst_seconds,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=1000, help="tracked operations (default 1000)")
    parser.add_argument("--workers", type=int, default=1, help="Celery workers, concurrency 2 each (default 1)")
    parser.add_argument(
        "--seconds", type=float, default=45.0, help="steady seconds per design, and the burst's limit (default 45)"
    )
    parser.add_argument("--keys", type=int, default=10, help="API keys (users) the rows are spread over (default 10)")
    parser.add_argument("--designs", default="old,new", help="which designs, in order (default old,new)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--serve-sandbox", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--turns", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_sandbox:
        serve_sandbox(args.keys, args.turns)
        return 0

    designs = [name.strip() for name in args.designs.split(",") if name.strip()]
    unknown = [name for name in designs if name not in DESIGNS]
    if unknown:
        parser.error(f"unknown design(s) {', '.join(unknown)}; choose from {', '.join(DESIGNS)}")
    database_url = bench_database_url()
    redis_url = os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL)
    why_not = missing_services(database_url, redis_url)
    if why_not:
        print(f"Live poller bench skipped: it needs PostgreSQL and Redis, {why_not}.")
        return 0

    from cryptography.fernet import Fernet

    turns = max(1, args.ops // args.keys)
    sandbox = start_sandbox_process(args.keys, turns)
    recreate_database(database_url)
    results: list[Result] = []
    try:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "dashboard.settings",
            "CONSOLE_ENV": "development",
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": redis_url,
            "CACHE_URL": "locmem://",
            "SERVICE_BASE_URL": sandbox.base_url,
            "KEY_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
            "LOG_LEVEL": "WARNING",
        }
        for name in (*DESIGNS["old"], "LIVE_POLL_PER_KEY", "LIVE_POLL_PER_SERVICE", "LIVE_LEASE_SECONDS"):
            env.pop(name, None)  # the designs are the defaults and the old shape, nothing else
        setup_django(env)
        ops = record_operations(sandbox)
        with tempfile.TemporaryDirectory() as tmp:
            for design in designs:
                results.append(run_design(design, workers=args.workers, seconds=args.seconds, env=env, tmp=Path(tmp)))
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(database_url)
        sandbox.stop()

    figures = [result.figures() for result in results]
    ratios = {}
    by_design = {f["design"]: f for f in figures}
    if "old" in by_design and "new" in by_design:
        old, new = by_design["old"], by_design["new"]
        ratios = {
            "polls_per_second_new_over_old": round(float(new["polls_per_second"]) / float(old["polls_per_second"]), 2),
            "lag_p95_old_over_new": round(float(old["lag_p95_s"]) / max(float(new["lag_p95_s"]), 0.01), 1),
        }
    summary = {
        "operations": ops,
        "keys": args.keys,
        "workers": args.workers,
        "worker_concurrency": WORKER_CONCURRENCY,
        "seconds_per_design": args.seconds,
        "designs": figures,
        "ratios": ratios,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(
        f"Live poller bench: {ops} tracked website turns over {args.keys} keys, {args.workers} worker(s) "
        f"(concurrency {WORKER_CONCURRENCY}); PostgreSQL, Redis, a sandbox process"
    )
    for f in figures:
        drained = "all" if f["burst_polled"] == f["burst_rows"] else f"{f['burst_polled']} of {f['burst_rows']}"
        print(f"  {f['design']} ({DESIGN_TITLES[str(f['design'])]}):")
        print(
            f"    every row due at once: {drained} polled in {f['burst_seconds']} s,"
            f" {f['polls_per_second']} polls/s ({f['polls_per_second_per_worker']} per worker)"
        )
        print(
            f"    steady, {args.seconds:.0f} s: lag p50 {f['lag_p50_s']} s, p95 {f['lag_p95_s']} s,"
            f" max {f['lag_max_s']} s; {f['steady_polls_per_second']} polls/s;"
            f" {f['overdue_at_end']} rows overdue at the end (counted with their wait so far);"
            f" {f['failed_checks']} failed checks"
        )
    if ratios:
        print(
            f"  new / old: {ratios['polls_per_second_new_over_old']}x the polls per second, "
            f"p95 lag {ratios['lag_p95_old_over_new']}x shorter"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
