"""Live poller cost bench: worker CPU per poll, database statements per
batch, and the tracked operations one worker core can keep up with.

    .venv/bin/python bench/poll_cost.py [--ops 2000] [--keys 20] [--rounds 3] [--json]

The poll path (`services.operations_poll_due`: claim a batch, fetch every row
from a thread pool, store the results in bulk) runs in this process, batch
after batch until no row is due, against a stand-in service in a process of
its own: an asyncio server answering every GET with one fixed Studio turn
("building"), cheap enough never to be the bottleneck. The CPU this process
spends (all its threads: `time.process_time`) divided by the polls made is
the worker's cost per poll; it is split into claim, fetch and store, and
the statements of each batch are counted.

One worker core keeps lag low while its CPU is not saturated: at a poll every
5 s per row (the first half minute; 10 s later), a core polling P rows/s
follows about P x 5 operations. The bench reports that figure with a 50%
headroom (half the core), the one to size workers with.

Needs PostgreSQL, the engine the hosted console runs on (BENCH_DATABASE_URL,
as bench/poll_lag.py; its own database `<name>_poll_cost`, dropped at the
end); without it, it says why and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.poll_lag import (  # noqa: E402
    _server_connection,
    bench_database_url,
    drop_database,
    make_due,
    recreate_database,
    setup_django,
)

TURN = json.dumps(
    {"id": "t", "object": "studio.turn", "status": "building", "studio": "website", "message": "",
     "conversation_id": "c", "created_at": "2026-11-22T00:00:00.000Z"}
).encode()  # fmt: skip
RESPONSE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Request-Id: req_bench\r\n"
    b"Content-Length: " + str(len(TURN)).encode() + b"\r\n\r\n" + TURN
)


def serve_stand_in() -> None:
    """The child process: answer every request with RESPONSE, keep-alive; prints its port."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await reader.readuntil(b"\r\n\r\n")  # GETs only: no body
                writer.write(RESPONSE)
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=512)
        print(server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()

    asyncio.run(main())


class Phases:
    """CPU seconds of this process spent in each part of the poll path."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)

    def wrap(self, module, name: str, phase: str) -> None:
        original = getattr(module, name)

        def timed(*args, **kwargs):
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.cpu[phase] += time.process_time() - started

        setattr(module, name, timed)


def record(ops: int, keys: int) -> None:
    from django.contrib.auth import get_user_model

    from dashboard.keys.testing import stored_api_key
    from dashboard.live.models import TrackedOperation

    rows = []
    for number in range(keys):
        user = get_user_model().objects.create_user(username=f"cost{number}", password=None)
        key = stored_api_key(user=user, secret=f"svc_sk_cost{number:04d}" + "x" * 40, workspace_id="ws-cost")
        rows += [
            TrackedOperation(owner_key=key, started_by=user, kind="studio.turn", remote_id=f"turn-{number}-{row}",
                             status="building", snapshot={"status": "building"})
            for row in range(ops // keys)
        ]  # fmt: skip
    TrackedOperation.objects.bulk_create(rows, batch_size=1000)


def run(args) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from dashboard.live import claims, services

    phases = Phases()
    phases.wrap(services, "claim_batch", "claim")
    phases.wrap(services, "_fetch_all", "fetch")
    phases.wrap(services, "outcomes_store", "store")
    polls = batches = 0
    statements: list[int] = []
    cpu = wall = 0.0
    for _ in range(args.rounds):
        make_due(timezone.now(), spread_seconds=0)
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        while True:
            with CaptureQueriesContext(connection) as queries:
                report = services.operations_poll_due()
            if report.claimed == 0:
                break
            polls += report.polled
            batches += 1
            statements.append(len(queries))
        cpu += time.process_time() - cpu_start
        wall += time.perf_counter() - wall_start
    per_core = polls / cpu
    return {
        "polls": polls,
        "batches": batches,
        "batch_size": claims.poll_batch_size(),
        "cpu_ms_per_poll": round(cpu * 1000 / polls, 3),
        "polls_per_cpu_second": round(per_core),
        "polls_per_wall_second": round(polls / wall),
        "statements_per_batch": max(statements),
        "cpu_ms_per_poll_by_phase": {phase: round(seconds * 1000 / polls, 3) for phase, seconds in phases.cpu.items()},
        "ops_per_core_at_5s": round(per_core * 5),
        "ops_per_core_half_load": round(per_core * 5 / 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=2000)
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve-stand-in", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_stand_in:
        serve_stand_in()
        return 0

    database_url = bench_database_url().replace("_poll_bench", "_poll_cost")
    try:
        _server_connection(database_url).close()
    except Exception as exc:
        print(f"poll_cost: skipped, no PostgreSQL ({str(exc).splitlines()[0]}); set BENCH_DATABASE_URL")
        return 0
    stand_in = subprocess.Popen([sys.executable, __file__, "--serve-stand-in"], stdout=subprocess.PIPE, text=True)
    assert stand_in.stdout is not None
    port = int(stand_in.stdout.readline())
    recreate_database(database_url)
    try:
        setup_django(
            {
                "DATABASE_URL": database_url,
                "CACHE_URL": "locmem://",
                "SERVICE_BASE_URL": f"http://127.0.0.1:{port}",
                "LOG_LEVEL": "WARNING",
            }
        )
        record(args.ops, args.keys)
        result = run(args)
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(database_url)
        stand_in.terminate()
        stand_in.wait(timeout=10)
    if args.json:
        print(json.dumps(result))
    else:
        by_phase = ", ".join(f"{phase} {ms:.3f}" for phase, ms in result["cpu_ms_per_poll_by_phase"].items())
        print(
            f"Poll cost ({result['polls']} polls, batches of {result['batch_size']}, PostgreSQL, stand-in service):\n"
            f"  worker CPU per poll   {result['cpu_ms_per_poll']:.3f} ms ({by_phase})\n"
            f"  polls per CPU second  {result['polls_per_cpu_second']} (goal >= 1000 per worker core)\n"
            f"  statements per batch  {result['statements_per_batch']}\n"
            f"  operations one core follows at a 5 s interval: {result['ops_per_core_at_5s']} "
            f"(at half load, to keep lag low: {result['ops_per_core_half_load']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
