"""The engine of bulk jobs and imports: a job is a row (objects.models.ObjectJob).

One Celery task, `objects.job_step` (objects/tasks.py), takes the row's id,
claims it with a lease (so a duplicated message never runs the same chunk
twice at once), re-reads it, does ONE bounded chunk of its current phase and
sends itself again while there is more. It never sleeps: a 429 or a failing
service sends the next step with a countdown instead. A worker killed
mid-chunk loses nothing: the message is acked late and redelivered, the lease
runs out, and the chunk is done again with the same Idempotency-Keys, which
the service replays.

Each phase is a function of bulk.py or imports.py that returns a `Step`.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from dashboard.api import errors
from dashboard.api.messages import meaning_of, said_by_service
from dashboard.live.leases import lease_take
from dashboard.live.storable import storable_text
from dashboard.metrics import registry as metrics
from dashboard.outbox.services import outbox_send
from objects.models import JobItem, ObjectJob

logger = logging.getLogger("objects.jobs")

LEASE_SECONDS = 120
STEP_TASK = "objects.job_step"  # objects/tasks.py
MAX_TRANSIENT_ERRORS = 6  # chunks in a row the service failed before the job stops (Resume goes on)


def chunk_size() -> int:
    """Writes (or rows checked) per task run: bounded so a task ends in seconds."""
    return max(1, int(settings.OBJECTS_JOB_CHUNK))


@dataclass(frozen=True)
class Step:
    """What a chunk did: more to do, finished, wait (429/5xx), or stop."""

    more: bool = False
    done: bool = False
    wait_seconds: float | None = None
    stop_message: str = ""
    next_status: str = ""


MORE = Step(more=True)


def write_key(job: ObjectJob, part: str) -> str:
    """The Idempotency-Key of one write of a job: the same for every retry of
    this job, different for every record or row."""
    return str(uuid.uuid5(job.uid, part))


# --- starting, cancelling, resuming (called by the views) --------------------


def send_step(job_id: int, countdown: float | None = None) -> None:
    """Send `objects.job_step` through the outbox, in the current transaction:
    published once it commits (the task must find the row), kept and swept
    to the broker later when the broker cannot take it (the job's page says
    so). Tests stand a worker in for Celery here."""
    outbox_send(task=STEP_TASK, args=[job_id], countdown=countdown, about=ObjectJob(pk=job_id))


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
        send_step(job.pk)
    return job


def job_cancel(*, job: ObjectJob) -> None:
    """Ask the job to stop: the next chunk ends it (writes in flight finish)."""
    if job.is_active:
        ObjectJob.objects.filter(pk=job.pk).update(cancel_requested=True, updated_at=timezone.now())
        send_step(job.pk)
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
        send_step(job.pk)


# --- one step (called by the task) -------------------------------------------


def _claim(job_id: int) -> str | None:
    """The step's lease on its job (the core's one lease shape, dashboard/live/leases.py)."""
    return lease_take(ObjectJob.objects.filter(pk=job_id, status__in=ObjectJob.ACTIVE), seconds=LEASE_SECONDS)


def _finish(job: ObjectJob, status: str, message: str = "") -> None:
    job.status = status
    job.message = message
    job.finished_at = timezone.now()


def job_step(*, job_id: int) -> None:
    from objects import bulk, imports, job_undo, trash

    token = _claim(job_id)
    if token is None:
        return  # final, unknown, or another worker holds it (its step sends the next one)
    # With the key's person (same query): a deactivated person's key is used by nothing.
    job = ObjectJob.objects.select_related("owner_key__user").get(pk=job_id)
    status_before, processed_before = job.status, job.processed
    next_countdown: float | None = None
    if job.cancel_requested:
        _finish(job, ObjectJob.CANCELLED, "Cancelled: what was written before stays.")
    elif not job.owner_key.user.is_active:
        job.resume_status = job.status
        _finish(
            job,
            ObjectJob.STOPPED,
            f"Stopped: {job.owner_key.user.get_username()}'s account was deactivated, so their stored API key "
            "is no longer used. Resume goes on where it stopped once they are reactivated.",
        )
    else:
        phase = {
            (ObjectJob.COLLECTING, ObjectJob.KIND_EDIT): bulk.collect_chunk,
            (ObjectJob.COLLECTING, ObjectJob.KIND_DELETE): bulk.collect_chunk,
            (ObjectJob.RUNNING, ObjectJob.KIND_EDIT): bulk.write_chunk,
            (ObjectJob.RUNNING, ObjectJob.KIND_DELETE): bulk.write_chunk,
            (ObjectJob.CHECKING, ObjectJob.KIND_IMPORT): imports.check_chunk,
            (ObjectJob.RUNNING, ObjectJob.KIND_IMPORT): imports.write_chunk,
            (ObjectJob.RUNNING, ObjectJob.KIND_RESTORE): trash.restore_chunk,
            (ObjectJob.RUNNING, ObjectJob.KIND_UNDO): job_undo.undo_chunk,
        }[(job.status, job.kind)]
        try:
            step = phase(job)
        except errors.ApiError as exc:
            step = step_for_error(exc)
        except Exception:
            logger.exception("object job %s failed", job_id)
            step = Step(stop_message="The job stopped on an unexpected error; Resume tries again.")
        if step.stop_message:
            job.resume_status = job.status
            _finish(job, ObjectJob.STOPPED, step.stop_message)
        elif step.done:
            if step.next_status:
                job.status = step.next_status
                job.finished_at = timezone.now() if step.next_status == ObjectJob.CHECKED else None
            else:
                _finish(job, ObjectJob.DONE)
            job.transient_errors = 0
            next_countdown = 0 if job.is_active else None
        elif step.wait_seconds is not None:
            job.transient_errors += 1
            if job.transient_errors >= MAX_TRANSIENT_ERRORS:
                job.resume_status = job.status
                _finish(job, ObjectJob.STOPPED, job.message or "The service kept failing; Resume tries again.")
            else:
                next_countdown = step.wait_seconds
        else:
            job.transient_errors = 0
            next_countdown = 0
    # A wait (429, a failing service) keeps the row leased until its step is
    # due, so the watch below does not send it early; otherwise it is free.
    job.lease_until = (
        timezone.now() + timedelta(seconds=max(0.0, next_countdown - 1)) if next_countdown and job.is_active else None
    )
    job.lease_token = ""
    # Written only while this step still holds the lease: a cancel asked
    # meanwhile is kept (the update names the fields it owns).
    fields = [f.name for f in ObjectJob._meta.concrete_fields if f.name not in {"id", "cancel_requested", "uid"}]
    job.updated_at = timezone.now()
    updated = ObjectJob.objects.filter(pk=job.pk, lease_token=token).update(
        **{name: getattr(job, name) for name in fields if name != "updated_at"}, updated_at=job.updated_at
    )
    if updated:
        # Rows per second (dashboard/metrics): counted once the step's progress is stored.
        metrics.object_job_rows_handled(kind=job.kind, phase=status_before, rows=job.processed - processed_before)
    if updated and next_countdown is not None:
        send_step(job.pk, countdown=next_countdown or None)


STALLED_SECONDS = 60


def jobs_watch() -> int:
    """Send a step to every active job nothing has moved for a minute while
    no worker holds it: its message was lost (a broker restart) or dropped
    while a lease was still running. Returns how many were sent."""
    now = timezone.now()
    stalled = list(
        ObjectJob.objects.filter(status__in=ObjectJob.ACTIVE, updated_at__lt=now - timedelta(seconds=STALLED_SECONDS))
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .values_list("pk", flat=True)[:100]
    )
    for job_id in stalled:
        send_step(job_id)
    return len(stalled)


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


def step_for_error(exc: errors.ApiError) -> Step:
    """A remote error that concerns the whole job, not one record."""
    if isinstance(exc, errors.RateLimitedError):
        return Step(wait_seconds=max(1.0, exc.retry_after or 5.0))
    if isinstance(exc, (errors.ServerError, errors.ApiTimeoutError, errors.ApiConnectionError)):
        return Step(wait_seconds=5.0)
    meaning = meaning_of(exc)
    said = said_by_service(exc)
    text = f"{meaning.title}. {said}" if said else f"{meaning.title}. {meaning.advice}"
    return Step(stop_message=storable_text(f"{text} (request id {exc.request_id or 'unknown'})"))


def count_progress(job: ObjectJob, *, processed: int = 0, succeeded: int = 0, failed: int = 0) -> None:
    job.processed += processed
    job.succeeded += succeeded
    job.failed += failed


def job_version(job_id: int, user) -> str:
    """What the status region shows, as the poll URL carries it."""
    row = ObjectJob.objects.filter(pk=job_id, started_by=user).values_list("updated_at", "status").first()
    return f"{row[0].timestamp():.6f}-{row[1]}" if row else "gone"
