"""Celery tasks of the Objects area: bulk jobs and imports (objects/jobs.py),
counts of records: a filtered table's total, charts, kanban totals (objects/tallies.py).
They take a row's id, never a key; the row says what to do next."""

from __future__ import annotations

from dashboard.celery import app
from dashboard.jobs import engine
from objects import jobs, presence, trash
from objects.jobs import KIND as OBJECT_JOB
from objects.tallies import KIND as RECORD_TALLY

# Bound to the project's app, as dashboard/live/tasks.py explains. One shape
# for every area: a tasks module imports its services at the top; a service
# never imports a task, it sends one by name through the outbox (objects/jobs.py).


# Steps of bulk jobs, imports and counts are the engine's `jobs.step`
# (dashboard/jobs/tasks.py). The old names below hand a message sent before
# an upgrade over to it; they go in a later release.


@app.task(name="objects.job_step")
def job_step(job_id: int) -> None:
    """Before the engine: one step of a bulk job or an import (now `jobs.step`)."""
    engine.job_step(OBJECT_JOB, int(job_id))


@app.task(name="objects.jobs_watch")
def jobs_watch() -> int:
    """Before the engine: the watch of object jobs (now `jobs.watch`, every kind)."""
    return engine.jobs_watch()


@app.task(name="objects.uploads_prune")
def uploads_prune() -> int:
    """Once a day (Celery beat): uploaded files of imports kept past OBJECTS_IMPORT_KEEP_DAYS go."""
    return jobs.uploads_prune()


@app.task(name="objects.tally_step")
def tally_step(tally_id: int) -> None:
    """Before the engine: a few pages of a count of records (now `jobs.step`)."""
    engine.job_step(RECORD_TALLY, int(tally_id))


@app.task(name="objects.trash_expire")
def trash_expire() -> int:
    """Once a day (Celery beat): records in the trash longer than OBJECTS_TRASH_DAYS go for good."""
    return trash.trash_expire()


@app.task(name="objects.presence_prune")
def presence_prune() -> int:
    """Hourly (Celery beat): presence rows no one is shown any more go."""
    return presence.presence_prune()
