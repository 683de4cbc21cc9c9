"""A Celery worker's own metrics endpoint (METRICS_WORKER_PORT).

Under docker-compose each container has its own PROMETHEUS_MULTIPROC_DIR
(a tmpfs: process ids repeat across containers, and two processes writing
one file would corrupt it), so the web's /metrics sees only the web's
processes. A worker container serves its processes' counters itself: the
worker's main process (which never runs tasks in prefork) starts this small
server in a thread once the worker is ready, reading the same directory its
pool processes write. Same rules as /metrics (token and/or allow-list, the
address being the connection's: nothing sits in front of this port), and
no database gauges: the web's `/metrics/state` reports those once. Each
replica is its own target: discover them by DNS (compose) or per pod
(Kubernetes), as docs/operations.md "Metrics" and deploy/prometheus/ show.

The thread logs nothing and takes no lock the pool's processes use (reading
the files needs none), so a pool process forked while a scrape is served
inherits nothing held. tests/metrics/test_celery_worker.py runs a real
prefork worker against it.
"""

from __future__ import annotations

import logging
import threading
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.conf import settings

from dashboard.metrics.access import configured, decide
from dashboard.metrics.scrape import CONTENT_TYPE, scrape_processes

logger = logging.getLogger("dashboard.metrics")

_server: WSGIServer | None = None


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args) -> None:  # a scrape every 15 s is not news
        pass


def metrics_app(environ, start_response):
    if environ.get("PATH_INFO", "") != "/metrics" or environ.get("REQUEST_METHOD") != "GET":
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"Not found."]
    decision = decide(authorization=environ.get("HTTP_AUTHORIZATION", ""), address=environ.get("REMOTE_ADDR", ""))
    if not decision.allowed:
        status = {401: "401 Unauthorized", 403: "403 Forbidden"}.get(decision.status, "404 Not Found")
        headers = [("Content-Type", "text/plain"), ("Cache-Control", "no-store")]
        if decision.status == 401:
            headers.append(("WWW-Authenticate", 'Bearer realm="metrics"'))
        start_response(status, headers)
        return [b"Not allowed to read the metrics."]
    body = scrape_processes()
    start_response("200 OK", [("Content-Type", CONTENT_TYPE), ("Cache-Control", "no-store")])
    return [body]


def start_worker_server() -> WSGIServer | None:
    """Serve this worker's metrics on METRICS_WORKER_PORT (once per process)."""
    global _server
    port = settings.METRICS_WORKER_PORT
    if not port or not configured() or _server is not None:
        return _server
    try:
        _server = make_server(settings.METRICS_WORKER_HOST, port, metrics_app, handler_class=_QuietHandler)
    except OSError as exc:
        # Two workers on one machine (`make run`'s worker and streams): the first
        # serves, and it reads the same directory, so nothing is lost.
        logger.warning("metrics: the worker's metrics port %s is not free (%s)", port, type(exc).__name__)
        return None
    threading.Thread(target=_server.serve_forever, name="metrics-server", daemon=True).start()
    logger.info("metrics: this worker's metrics are served on port %s at /metrics", port)
    return _server
