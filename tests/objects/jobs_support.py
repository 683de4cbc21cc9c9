"""Helpers of the bulk, import and kanban tests: a stand-in for the Celery
worker (the job engine's `send_step` seam, dashboard/jobs/engine.py), and a
logged-in browser or client against the sandbox."""

from __future__ import annotations

import queue
import threading
import time
from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def worker_thread(monkeypatch):
    """A worker in a thread: the engine's `send_step` queues the kind and the
    row's id (after the commit, as the real one does) and the thread runs the
    real step, a countdown being waited for first. Stands in for Celery
    (tests/conftest.py's `poller` does the same for beat)."""
    from dashboard.jobs import engine

    pending: queue.Queue = queue.Queue()
    stop = threading.Event()
    errors: list[BaseException] = []

    def send_step(kind: str, job_id: int, countdown: float | None = None) -> None:
        transaction.on_commit(lambda: pending.put((time.monotonic() + (countdown or 0), kind, job_id)))

    def run() -> None:
        try:
            while not stop.is_set():
                try:
                    when, kind, job_id = pending.get(timeout=0.05)
                except queue.Empty:
                    continue
                if stop.wait(max(0.0, when - time.monotonic())):
                    return
                try:
                    engine.job_step(kind, job_id)
                except BaseException as exc:
                    errors.append(exc)
        finally:
            connection.close()

    monkeypatch.setattr(engine, "send_step", send_step)
    thread = threading.Thread(target=run, name="test-job-worker", daemon=True)
    thread.start()
    try:
        yield errors
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not errors, errors


def run_jobs_inline(monkeypatch) -> list[int]:
    """`send_step` records the ids; `drain()` runs them in this thread, in order."""
    from dashboard.jobs import engine

    sent: list[int] = []
    monkeypatch.setattr(engine, "send_step", lambda kind, job_id, countdown=None: sent.append(job_id))
    return sent


def drain(sent: list[int], *, limit: int = 10_000) -> int:
    from objects.tasks import job_step

    steps = 0
    while sent and steps < limit:
        job_step(sent.pop(0))
        steps += 1
    return steps


def edit_job(user, api_key, *, ids, object_key: str):
    """A running bulk edit ("Set Status to Lost") of the records `ids`, as the bulk view starts one."""
    import uuid

    from objects.models import JobItem, ObjectJob

    job = ObjectJob.objects.create(
        uid=uuid.uuid4(),
        owner_key=api_key,
        started_by=user,
        workspace_id=api_key.workspace_id,
        object_key=object_key,
        kind=ObjectJob.KIND_EDIT,
        title="Set Status to Lost",
        status=ObjectJob.RUNNING,
        params={"changes": {"status": "opt-lost"}},
        total=len(ids),
    )
    JobItem.objects.bulk_create([JobItem(job=job, position=n, record_id=i) for n, i in enumerate(ids)])
    return job
