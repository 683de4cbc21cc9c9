"""Serving the sandbox: a threaded stdlib wsgiref server (on 127.0.0.1 unless told otherwise).

wsgiref writes and flushes each chunk an iterator yields, so server-sent
events reach the client as they happen.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from sandbox.clock import Clock
from sandbox.core import App, Config
from sandbox.storage import Store

DEFAULT_DB = "var/sandbox.sqlite3"
DEFAULT_TIME_SCALE = 0.055  # a 3-minute website build takes ~10 s
DEFAULT_RATE_LIMIT = 1200  # per key per minute: generous, but reachable


class ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    # wsgiref answers one request per connection, so concurrent clients connect
    # anew each time; the stdlib's backlog of 5 drops their SYNs beyond that,
    # and each dropped one costs the client a 1 s retransmit.
    request_queue_size = 128


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        # wsgiref's own line says neither the request id nor the status of a
        # stream: the app writes the access log (logger `sandbox.access`, sandbox/core.py).
        pass


def print_access_log() -> None:
    """`python -m sandbox` prints its access log to stderr (SANDBOX_ACCESS_LOG=0: not)."""
    if os.environ.get("SANDBOX_ACCESS_LOG", "1") == "0":
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s sandbox %(message)s"))
    access = logging.getLogger("sandbox.access")
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    access.propagate = False


def config_from_env(
    *, time_scale: float | None = None, rate_limit_per_minute: int | None = None, app_url: str | None = None
) -> Config:
    """Settings from arguments, else SANDBOX_* environment variables, else defaults."""
    env = os.environ
    if time_scale is None:
        time_scale = float(env.get("SANDBOX_TIME_SCALE", DEFAULT_TIME_SCALE))
    if rate_limit_per_minute is None:
        rate_limit_per_minute = int(env.get("SANDBOX_RATE_LIMIT_PER_MINUTE", DEFAULT_RATE_LIMIT)) or None
    return Config(
        time_scale=time_scale,
        rate_limit_per_minute=rate_limit_per_minute,
        app_url=app_url or env.get("SANDBOX_APP_URL") or None,
    )


def build_app(*, db_path: str, config: Config) -> App:
    clock = Clock(config.time_scale)
    store = Store(db_path, clock=clock)
    app = App(store, clock, config)
    app.seed()
    return app


def serve(app: App, *, host: str = "127.0.0.1", port: int = 0):
    """Create the server (not yet serving); `server.server_port` is the real port."""
    return make_server(host, port, app, server_class=ThreadingWSGIServer, handler_class=QuietHandler)


def serve_forever(
    *,
    port: int,
    host: str = "127.0.0.1",
    db_path: str | None = None,
    time_scale: float | None = None,
    rate_limit_per_minute: int | None = None,
    app_url: str | None = None,
) -> None:
    """Serve until interrupted. `host` 0.0.0.0 lets other containers reach it (docker-compose's `sandbox`)."""
    db_path = db_path or os.environ.get("SANDBOX_DB", DEFAULT_DB)
    print_access_log()
    config = config_from_env(time_scale=time_scale, rate_limit_per_minute=rate_limit_per_minute, app_url=app_url)
    app = build_app(db_path=db_path, config=config)
    threading.Thread(target=app.warm_mcp, name="sandbox-mcp-warm", daemon=True).start()
    server = serve(app, host=host, port=port)
    print(
        f"sandbox: http://{host}:{server.server_port}/v1 (db {db_path}, time scale {config.time_scale}, "
        f"rate limit {config.rate_limit_per_minute or 'off'}/min)",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        app.store.close()


def start_in_thread(app: App, *, port: int = 0):
    server = serve(app, port=port)
    # A short poll interval so `stop()` returns at once (tests start and stop many sandboxes).
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="sandbox-server", daemon=True
    )
    thread.start()
    return server, thread
