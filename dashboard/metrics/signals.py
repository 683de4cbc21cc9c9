"""What the metrics listen to, connected by the app's ready() when metrics are on:

- the transport's attempt hook (dashboard/api/hooks.py): remote calls by
  endpoint template, status, retries and 429s;
- Celery's task_prerun / task_postrun: tasks by name and outcome, and how
  long they ran (in the worker's process, or the caller's for an eager task);
- Celery's worker_process_shutdown: a prefork child that ends is marked dead
  in PROMETHEUS_MULTIPROC_DIR (what gunicorn.conf.py's child_exit does for
  web workers; its counters stay, summed, as they must);
- Celery's worker_ready: the worker's own scrape endpoint, when
  METRICS_WORKER_PORT is set (dashboard/metrics/worker_server.py);
- Django's user_login_failed and django-axes' user_locked_out: login failures
  and lockouts.
"""

from __future__ import annotations

import os
import threading
import time

from dashboard.api.hooks import RemoteAttempt, on_remote_attempt
from dashboard.metrics import registry

# Task id -> when it started (the streams worker runs several at once, in threads).
_started: dict[str, float] = {}
_started_lock = threading.Lock()


def attempt_status(status: str) -> str:
    """An HTTP status as it is; an httpx error's class name folded into two words
    (the set of class names is bounded, but two words say what an operator needs)."""
    if status.isdigit():
        return status
    return "timeout" if "Timeout" in status else "connection_error"


def on_attempt(attempt: RemoteAttempt) -> None:
    registry.remote_attempt_observed(
        method=attempt.method,
        path=attempt.path,
        status=attempt_status(attempt.status),
        seconds=attempt.seconds,
        retried=attempt.retried,
    )


def on_task_prerun(sender=None, task_id=None, task=None, **kwargs) -> None:
    if task_id:
        with _started_lock:
            _started[task_id] = time.perf_counter()


OUTCOMES = {"SUCCESS": "success", "FAILURE": "failure", "RETRY": "retry", "REJECTED": "rejected"}


def on_task_postrun(sender=None, task_id=None, task=None, state=None, **kwargs) -> None:
    with _started_lock:
        started = _started.pop(task_id, None) if task_id else None
    name = getattr(task or sender, "name", None) or "unknown"
    registry.task_observed(
        task=name,
        outcome=OUTCOMES.get(str(state), "other"),
        seconds=None if started is None else time.perf_counter() - started,
    )


def on_worker_process_shutdown(sender=None, pid=None, **kwargs) -> None:
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid or os.getpid(), path)


def on_worker_ready(sender=None, **kwargs) -> None:
    from dashboard.metrics.worker_server import start_worker_server

    start_worker_server()


def on_login_failed(sender=None, **kwargs) -> None:
    registry.login_failed()


def on_locked_out(sender=None, **kwargs) -> None:
    registry.login_locked_out()


def connect() -> None:
    from axes.signals import user_locked_out
    from celery.signals import task_postrun, task_prerun, worker_process_shutdown, worker_ready
    from django.contrib.auth.signals import user_login_failed

    on_remote_attempt(on_attempt)
    task_prerun.connect(on_task_prerun, weak=False, dispatch_uid="metrics-task-prerun")
    task_postrun.connect(on_task_postrun, weak=False, dispatch_uid="metrics-task-postrun")
    worker_process_shutdown.connect(on_worker_process_shutdown, weak=False, dispatch_uid="metrics-process-dead")
    worker_ready.connect(on_worker_ready, weak=False, dispatch_uid="metrics-worker-server")
    user_login_failed.connect(on_login_failed, weak=False, dispatch_uid="metrics-login-failed")
    user_locked_out.connect(on_locked_out, weak=False, dispatch_uid="metrics-locked-out")
