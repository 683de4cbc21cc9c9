"""The Studio's Celery tasks: follow a turn's streamed progress; keep a document's version.

It takes an id, re-reads the row, never sleeps (it reads a stream the
service sends as the work advances), and is safe to run twice (a second
run finds the row already followed and does nothing)."""

from __future__ import annotations

from dashboard.celery import app
from dashboard.jobs import engine
from studio import services, versions, zip_jobs


@app.task(name="studio.follow_turn")
def follow_turn(operation_id: int) -> int:
    """Read the rest of a turn's stream into its tracked row; returns the events stored."""
    return services.turn_follow(operation_id=operation_id)


@app.task(name="studio.keep_document_version")
def keep_document_version(operation_id: int, attempt: int = 0) -> str:
    """Read and keep the version a completed document turn made (studio/versions.py);
    a transient failure sends the task again later through the outbox, never a sleep."""
    return versions.document_version_keep_attempt(operation_id=operation_id, attempt=attempt)


# A ZIP is stepped by the engine's `jobs.step` (dashboard/jobs/tasks.py). This
# old name hands a message sent before an upgrade over to it; it goes in a later release.
@app.task(name="studio.zip_step")
def zip_step(job_id: int) -> str:
    """Before the engine: one chunk of a library selection's ZIP (now `jobs.step`)."""
    return engine.job_step(zip_jobs.KIND, int(job_id))


@app.task(name="studio.zips_prune")
def zips_prune() -> int:
    """On beat (hourly): remove ZIP files older than STUDIO_ZIP_KEEP_HOURS."""
    return zip_jobs.zips_prune()
