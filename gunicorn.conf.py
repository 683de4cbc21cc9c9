"""gunicorn settings for `make run` (Procfile) and the container image.

Read by gunicorn from the working directory. Environment:
WEB_HOST (127.0.0.1; the image sets 0.0.0.0), WEB_PORT (8000),
WEB_CONCURRENCY (worker processes, 2), WEB_THREADS (threads per worker, 8).
"""

import os

bind = f"{os.environ.get('WEB_HOST', '127.0.0.1')}:{os.environ.get('WEB_PORT', '8000')}"
wsgi_app = "dashboard.wsgi:application"

# Threads, not only processes: every browser polls status partials every
# 2 s and some pages wait on the remote service, so a request must not hold
# a whole process. Threads keep the worker count (and memory) small.
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("WEB_THREADS", "8"))
timeout = 120
graceful_timeout = 20
keepalive = 5

# No access log of gunicorn's own: the console writes one line per request
# itself (dashboard/observability/middleware.py: view, status, duration, client
# address, user and request id; JSON under LOG_FORMAT=json), so a second,
# plain-text line per request would only double the volume.
accesslog = None
errorlog = "-"
# gunicorn's own lines (starting, workers, their errors) in the console's
# format: under LOG_FORMAT=json (production's default, as in dashboard/settings.py)
# one JSON object per line too, so a collector reads every line alike.
if os.environ.get("LOG_FORMAT", "json" if os.environ.get("CONSOLE_ENV") == "production" else "text") == "json":
    logconfig_dict = {
        "formatters": {"json": {"()": "dashboard.logging.JsonFormatter"}},
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"},
        },
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": ["console"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": [], "propagate": False},
        },
    }

# gunicorn 27 opens a control socket under the home folder by default; the
# console does not use gunicornc, so there is nothing to leave behind.
control_socket_disable = True


def when_ready(server):
    # Listening, not ready: the workers are still loading the console (a minute
    # on a loaded machine). `make run` says "ready" itself once the login page
    # answers (devtools/supervise.py --ready-path); a container's readiness is /readyz.
    host, port = bind.rsplit(":", 1)
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    server.log.info("Listening at http://%s:%s; the workers are loading the console", shown, port)


def child_exit(server, worker):
    """Metrics in multiprocess mode (PROMETHEUS_MULTIPROC_DIR, dashboard/metrics):
    a worker that ended is marked dead, so its per-process gauges stop counting
    (its counters stay, summed into the totals, as counters must). Nothing to do
    when metrics are off or counted per process."""
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid, path)
