"""Bulk jobs and imports: a job is a row (objects.models.ObjectJob), stepped
by the core's engine (dashboard/jobs/engine.py) as the kind `objects.job`.

The engine leases the row, runs ONE chunk (`job_chunk` here: the phase of
the job's status and kind), waits or stops on a remote error by the one rule,
writes the row guarded by its lease and sends the next step. A worker killed
mid-chunk loses nothing: its short lease runs out, the watch sends the step
again, and the chunk is done again with the same Idempotency-Keys, which the
service replays.

Each phase is a function of bulk.py, imports.py, trash.py or job_undo.py that
returns a `Step`; they are registered (objects/apps.py, `phases_register`),
never imported here, so this module depends on none of them.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from dashboard.api import errors
from dashboard.jobs import engine
from dashboard.jobs.kinds import JobKind, Step
from dashboard.live.storable import storable_text
from dashboard.metrics import registry as metrics
from dashboard.web.reading import text
from objects import job_news
from objects.models import JobItem, ObjectJob

logger = logging.getLogger("objects.jobs")

KIND = "objects.job"  # the engine's name of this kind (dashboard/jobs)

# Remote errors that are one record's (its item fails, the job goes on), not the job's.
RECORD_REFUSALS = (errors.InvalidRequestError, errors.UnprocessableError, errors.ConflictError)

Phase = Callable[[ObjectJob], Step]
_phases: dict[tuple[str, str], Phase] = {}


def phases_register(table: dict[tuple[str, str], Phase]) -> None:
    """The chunk of each (status, kind) of a job (objects/apps.py names them)."""
    _phases.update(table)


def chunk_size() -> int:
    """Writes (or rows checked) per task run: bounded so a task ends in seconds."""
    return max(1, int(settings.OBJECTS_JOB_CHUNK))


def write_key(job: ObjectJob, part: str) -> str:
    """The Idempotency-Key of one write of a job: the same for every retry of
    this job, different for every record or row."""
    return str(uuid.uuid5(job.uid, part))


# --- starting, cancelling, resuming (called by the views) --------------------


def job_start(*, items: list[JobItem], **job_fields) -> ObjectJob:
    """A job row, its items (positions in list order) and its first step, in
    one transaction: the step is published once both are there. The one way a
    bulk edit or delete, a restore and an undo begin (an import's rows are
    the file's, not items)."""
    with transaction.atomic():
        job = ObjectJob.objects.create(total=len(items), **job_fields)
        for position, item in enumerate(items):
            item.job, item.position = job, position
        JobItem.objects.bulk_create(items)
        engine.send_step(KIND, job.pk)
    return job


def object_job_start(
    *,
    uid: str,
    user,
    workspace,
    object_key: str,
    definition: dict,
    kind: str,
    title: str,
    items: list[JobItem],
    status: str = ObjectJob.RUNNING,
    params: dict | None = None,
) -> ObjectJob:
    """job_start for a job on one object of the person's workspace, under
    their key: who, where and the object's name filled in once for every
    kind (bulk edit or delete, restore, merge)."""
    return job_start(
        uid=uid,
        owner_key=workspace.require_key(),
        started_by=user,
        workspace_id=workspace.id,
        object_key=object_key,
        object_name=text(definition.get("plural_name")) or object_key,
        kind=kind,
        title=storable_text(title, limit=300),
        status=status,
        params=params or {},
        items=items,
    )


def job_cancel(*, job: ObjectJob) -> None:
    """Ask the job to stop: the next chunk ends it (writes in flight finish)."""
    if job.is_active:
        engine.job_cancel(KIND, job.pk)
    elif job.status in {ObjectJob.MAPPING, ObjectJob.CHECKED, ObjectJob.STOPPED}:
        ObjectJob.objects.filter(pk=job.pk).update(
            status=ObjectJob.CANCELLED, finished_at=timezone.now(), updated_at=timezone.now()
        )


def job_run(*, job: ObjectJob, status: str, reset: Callable[[ObjectJob], None] | None = None) -> None:
    """Start (or resume) the job in `status`; `reset` prepares the row first."""
    job.status = status
    job.cancel_requested = False
    job.transient_errors = 0
    job.message = ""
    job.finished_at = None
    job.lease_until = None
    if reset is not None:
        reset(job)
    with transaction.atomic():  # the row and its step's message together
        job.save()
        engine.send_step(KIND, job.pk)


# --- one chunk (the engine calls it) -------------------------------------------


def job_chunk(job: ObjectJob) -> Step:
    """The chunk of the job's current phase; a deactivated person's key is used by nothing."""
    if not job.owner_key.user.is_active:
        return Step(
            stop_message=f"Stopped: {job.owner_key.user.get_username()}'s account was deactivated, so their "
            "stored API key is no longer used. Resume goes on where it stopped once they are reactivated."
        )
    with job_news.by_job():  # its watchers hear of the job once, at its end (_count_rows)
        return _phases[(job.status, job.kind)](job)


def _remember_resume(job: ObjectJob) -> None:
    job.resume_status = job.status


def _count_rows(before: ObjectJob, job: ObjectJob) -> None:
    # Rows per second (dashboard/metrics): counted once the step's progress is stored.
    metrics.object_job_rows_handled(kind=job.kind, phase=before.status, rows=job.processed - before.processed)
    job_news.job_ended_tell(before=before, job=job)


OBJECT_JOB = JobKind(
    name=KIND,
    model=ObjectJob,
    chunk=job_chunk,
    active=ObjectJob.ACTIVE,
    done=ObjectJob.DONE,
    stopped=ObjectJob.STOPPED,
    cancelled=ObjectJob.CANCELLED,
    cancelled_message="Cancelled: what was written before stays.",
    kept_failing="The service kept failing; Resume tries again.",
    unexpected="The job stopped on an unexpected error; Resume tries again.",
    select_related=("owner_key__user",),
    unwritten=frozenset({"uid"}),
    written=_count_rows,
    stopping=_remember_resume,
)


def uploads_prune(now=None) -> int:
    """Remove the uploaded files of imports that have not moved for
    OBJECTS_IMPORT_KEEP_DAYS (never one that runs). The row stays with its
    counts and problems; an import still waiting for a person (columns to
    map, the Import button, Resume) can no longer go on and is cancelled,
    saying why. Returns how many files were removed."""
    from objects.models import import_storage

    now = now or timezone.now()
    days = int(settings.OBJECTS_IMPORT_KEEP_DAYS)
    old = (
        ObjectJob.objects.filter(kind=ObjectJob.KIND_IMPORT, updated_at__lt=now - timedelta(days=days))
        .exclude(status__in=ObjectJob.ACTIVE)
        .exclude(upload="")
    )
    storage = import_storage()
    removed = 0
    for job in old.iterator(chunk_size=200):
        try:
            storage.delete(job.upload.name)  # a file already gone is fine: the row is what is fixed
        except OSError:
            logger.warning("The uploaded file of import %s could not be removed", job.pk, exc_info=True)
            continue
        waiting = job.status in {ObjectJob.MAPPING, ObjectJob.CHECKED, ObjectJob.STOPPED}
        changes: dict = {"upload": ""}
        if waiting:
            changes.update(
                status=ObjectJob.CANCELLED,
                finished_at=now,
                message=f"Cancelled: its file was removed after {days} days without use.",
            )
        # Only if it still has not moved (a person may have pressed Resume meanwhile).
        removed += ObjectJob.objects.filter(pk=job.pk, updated_at=job.updated_at).update(**changes)
    return removed


def count_progress(job: ObjectJob, *, processed: int = 0, succeeded: int = 0, failed: int = 0) -> None:
    job.processed += processed
    job.succeeded += succeeded
    job.failed += failed


def job_version(job_id: int, user) -> str:
    """What the status region shows, as the poll URL carries it."""
    row = ObjectJob.objects.filter(pk=job_id, started_by=user).values_list("updated_at", "status").first()
    return f"{row[0].timestamp():.6f}-{row[1]}" if row else "gone"
