"""Celery tasks of the Objects area: bulk jobs and imports (objects/jobs.py),
counts of records: a filtered table's total, charts, kanban totals (objects/tallies.py).
They take a row's id, never a key; the row says what to do next."""

from __future__ import annotations

from dashboard.celery import app
from objects import jobs, tallies, trash

# Bound to the project's app, as dashboard/live/tasks.py explains. One shape
# for every area: a tasks module imports its services at the top; a service
# never imports a task, it sends one by name through the outbox (objects/jobs.py).


@app.task(name="objects.job_step")
def job_step(job_id: int) -> None:
    """One bounded chunk of a bulk job or an import; sends itself again while there is more."""
    jobs.job_step(job_id=job_id)


@app.task(name="objects.jobs_watch")
def jobs_watch() -> int:
    """Every minute (Celery beat): a job whose step message was lost goes on."""
    return jobs.jobs_watch()


@app.task(name="objects.uploads_prune")
def uploads_prune() -> int:
    """Once a day (Celery beat): uploaded files of imports kept past OBJECTS_IMPORT_KEEP_DAYS go."""
    return jobs.uploads_prune()


@app.task(name="objects.tally_step")
def tally_step(tally_id: int) -> None:
    """A few pages of a count of records (a table's total, a chart, a kanban's totals); sends itself again while there is more."""
    tallies.tally_step(tally_id=tally_id)


@app.task(name="objects.trash_expire")
def trash_expire() -> int:
    """Once a day (Celery beat): records in the trash longer than OBJECTS_TRASH_DAYS go for good."""
    return trash.trash_expire()
