"""The engine's tasks: one step of any kind of job, and the watch (beat).
Ids only: the kind's name and the row's id."""

from __future__ import annotations

from dashboard.celery import app
from dashboard.jobs import engine


@app.task(name="jobs.step")
def job_step(kind: str, job_id: int) -> str:
    """One bounded chunk of a job; sends the next step while there is more."""
    return engine.job_step(str(kind), int(job_id))


@app.task(name="jobs.watch")
def jobs_watch() -> int:
    """Every JOBS_WATCH_SECONDS (Celery beat): a job whose step message was lost, or whose worker died, goes on."""
    return engine.jobs_watch()
