"""The request id in every task, and one log line per task run.

- `before_task_publish`: the message's headers get `request_id`, the id of
  the request (or task) that sends it, unless the sender named one itself
  (the outbox does: a message stored during a request and published later
  by the sweeper keeps that request's id, not the sweeper's). Headers, not
  arguments: task signatures stay the same, and an id never becomes part of
  what a task is asked to do.
- `task_prerun`: the worker makes that id current for the run; a task sent
  with none (beat's ticks and sweeps) gets one of its own per run, so the
  service calls and log lines of one run still group. An eager task (tests,
  CELERY_TASK_ALWAYS_EAGER) without a header keeps the id of the request it
  runs inside.
- `task_postrun`: one line (logger `dashboard.task`): task name, task id,
  request id, status, duration_ms; then the id that was current before is put
  back, so a worker thread never carries one run's id into the next.

`live.tick` (twice a second), `outbox.sweep` (every 5 s), `system.probe_service` (every 15 s) and the
sweeps of beat every few seconds (`jobs.watch`, `keys.recheck_due`, `inbox.refresh_watched`,
`reach.deliver_due`) mostly find nothing to do: their successful runs are logged at DEBUG, or they would be
most of the log (what they do is counted by the metrics, and their remote calls log their own lines); a
failure of theirs is logged like any other.

Connected once in `dashboard/celery.py`, so web processes (which publish),
workers and beat all have them.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from dashboard.observability.context import (
    Bound,
    bind,
    current_request_id,
    current_user_id,
    new_request_id,
    valid_request_id,
)

task_logger = logging.getLogger("dashboard.task")

HEADER = "request_id"
# The person the sending request acted for, so the task's lines name them too.
USER_HEADER = "user_id"
QUIET_TASKS = frozenset(
    {
        "live.tick",
        "outbox.sweep",
        "system.probe_service",
        "jobs.watch",
        "keys.recheck_due",
        "inbox.refresh_watched",
        "reach.deliver_due",
    }
)

# Per task id: what to put back after the run and when it started. A worker
# runs one task per thread at a time; eager tasks nest, each under its own id.
_running: dict[str, tuple[Bound, float]] = {}


def request_id_headers(request_id: str | None = None) -> dict[str, str]:
    """Headers that carry `request_id` (else the current one) with a task sent now."""
    request_id = request_id or current_request_id()
    return {HEADER: request_id} if request_id else {}


def header_request_id(request: Any) -> str | None:
    """The id a task's message carried. Celery (protocol 2) puts custom
    headers on the task's request itself; an eager run keeps them in
    `request.headers`."""
    value = getattr(request, HEADER, None)
    if value is None:
        headers = getattr(request, "headers", None)
        if isinstance(headers, dict):
            value = headers.get(HEADER)
    return valid_request_id(value)


def header_user_id(request: Any) -> int | None:
    """The user id a task's message carried (a positive int), else None."""
    value = getattr(request, USER_HEADER, None)
    if value is None:
        headers = getattr(request, "headers", None)
        if isinstance(headers, dict):
            value = headers.get(USER_HEADER)
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return value if isinstance(value, int) and value > 0 else None


def on_before_task_publish(sender: Any = None, headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    if headers is None:
        return
    if not headers.get(HEADER):
        request_id = current_request_id()
        if request_id:
            headers[HEADER] = request_id
    if headers.get(USER_HEADER) is None:
        user_id = current_user_id()
        if user_id is not None:
            headers[USER_HEADER] = user_id


def on_task_prerun(sender: Any = None, task_id: str | None = None, task: Any = None, **kwargs: Any) -> None:
    if task is None or task_id is None:
        return
    current = current_request_id()
    request_id = header_request_id(task.request) or current or new_request_id()
    # The sender's person, carried in the message; an eager run inside the
    # request that sent it keeps that request's user on its lines.
    user_id = header_user_id(task.request)
    if user_id is None and request_id == current:
        user_id = current_user_id()
    _running[task_id] = (bind(request_id, user_id=user_id), time.perf_counter())


def on_task_postrun(
    sender: Any = None, task_id: str | None = None, task: Any = None, state: str | None = None, **kwargs: Any
) -> None:
    if task_id is None:
        return
    running = _running.pop(task_id, None)
    if running is None:
        return
    bound, started = running
    try:
        duration_ms = (time.perf_counter() - started) * 1000
        name = getattr(task, "name", "") or ""
        # No state: the exception is on its way out of an eager run (tests and
        # CELERY_TASK_ALWAYS_EAGER re-raise it before any state is recorded).
        status = (state or "FAILURE").lower()
        ok = status == "success"
        level = logging.INFO if ok else logging.WARNING
        if ok and name in QUIET_TASKS:
            level = logging.DEBUG
        task_logger.log(
            level,
            "task %s %s %s %.1fms",
            name,
            task_id,
            status,
            duration_ms,
            extra={"task": name, "task_id": task_id, "status": status, "duration_ms": round(duration_ms, 1)},
        )
    finally:
        bound.reset()


def connect() -> None:
    """Connect the three handlers (idempotent: each by its dispatch_uid)."""
    from celery.signals import before_task_publish, task_postrun, task_prerun

    before_task_publish.connect(on_before_task_publish, weak=False, dispatch_uid="console-request-id-publish")
    task_prerun.connect(on_task_prerun, weak=False, dispatch_uid="console-request-id-prerun")
    task_postrun.connect(on_task_postrun, weak=False, dispatch_uid="console-request-id-postrun")
