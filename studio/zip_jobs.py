"""A selection's ZIP built by a worker (issue #21, item 5): a job row
(studio.models.ZipJob) stepped in bounded chunks.

Why a worker and not the web: a ZIP of 100 images of a few MB held a web
worker for the whole download and ended, for a slow image host, in a cut
archive the browser could not tell from a whole one. Here the person's
request only stores the row (the images' ids, addresses and prompts, read
from the service then) and sends `studio.zip_step` through the outbox; the
page polls the row (204 while unchanged, 286 once final) and offers the
download when it is ready. The web-streamed path is gone: it had no way to
say which image failed other than inside the archive, and a second copy of
the same work is one more thing to keep right.

One step (the engine's, dashboard/jobs/engine.py: the kind `studio.zip`)
leases the row; its chunk (`zip_chunk`) appends at most STEP_IMAGES images to
the file under STUDIO_ZIP_ROOT (`ZipFile` in append mode, each image
streamed chunk by chunk: memory holds one chunk and the table of contents),
closes the archive; the engine stores the progress and sends the next step. It never
sleeps. A step that died half-way (a killed worker: the message is acked
late and comes again) leaves a file whose size is not the one the row
recorded: the next step starts the archive again from the first image, so a
ZIP is never half-valid. An image that cannot be fetched is named in the
archive's not-included.txt and on the page; a step that cannot write at all
(a full disk) ends the job as failed, saying so. `zips_prune` (beat, hourly)
removes files STUDIO_ZIP_KEEP_HOURS after they were finished.
"""

from __future__ import annotations

import logging
import zipfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import Http404
from django.utils import timezone

from dashboard.jobs import engine
from dashboard.jobs.kinds import MORE, JobKind, Step
from studio.library_zip import add_image, download_client
from studio.models import ZipJob

logger = logging.getLogger("studio.zip_jobs")

KIND = "studio.zip"  # the engine's name of this kind (dashboard/jobs)
STEP_IMAGES = 10  # images per task run: a step ends in seconds
MISSING_FILE = "not-included.txt"


def zip_folder() -> Path:
    """STUDIO_ZIP_ROOT (a relative one is the checkout's), made when missing."""
    folder = Path(settings.STUDIO_ZIP_ROOT)
    if not folder.is_absolute():
        folder = Path(settings.BASE_DIR) / folder
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def zip_path(job: ZipJob) -> Path:
    return zip_folder() / (job.file_name or f"zip-{job.pk}.zip")


# --- starting (the view) ---------------------------------------------------------------


def zip_job_start(*, workspace_id: str, user_id: int, images: list[dict[str, Any]], idempotency_key: str) -> ZipJob:
    """The job for these images (one per form key: a double click is one job),
    its first step sent with the row."""
    existing = ZipJob.objects.filter(created_by_id=user_id, idempotency_key=idempotency_key).first()
    if existing is not None:
        return existing
    kept = [
        {"id": str(image.get("id") or ""), "url": str(image.get("url") or ""), "prompt": str(image.get("prompt") or "")}
        | ({"media_type": str(image["media_type"])} if image.get("media_type") else {})
        for image in images
    ]
    try:
        with transaction.atomic():
            job = ZipJob.objects.create(
                workspace_id=workspace_id,
                created_by_id=user_id,
                idempotency_key=idempotency_key,
                images=kept,
                total=len(kept),
            )
            job.file_name = f"zip-{job.pk}.zip"
            job.save(update_fields=["file_name"])
            engine.send_step(KIND, job.pk)
    except IntegrityError:  # the same form posted twice at once
        return ZipJob.objects.get(created_by_id=user_id, idempotency_key=idempotency_key)
    return job


def zip_job_get(*, workspace_id: str, user_id: int, job_id: int) -> ZipJob:
    """A job of this person in this workspace (the key they act with now); 404 for any other."""
    job = ZipJob.objects.filter(pk=job_id, created_by_id=user_id, workspace_id=workspace_id).first()
    if job is None or not workspace_id:
        raise Http404("No such ZIP.")
    return job


def zip_job_version(job: ZipJob) -> str:
    """What the progress region shows, as its poll carries it."""
    return f"{job.status}-{job.done}-{len(job.missing or [])}"


# --- one step (the task) ----------------------------------------------------------------


def zip_chunk(job: ZipJob) -> Step:
    """At most STEP_IMAGES images appended to the job's archive (the engine's
    chunk: dashboard/jobs/engine.py, which leases, writes and sends the next)."""
    try:
        _append(job, zip_path(job))
    except (OSError, zipfile.BadZipFile) as exc:  # a full disk, no permission, a file not ours
        logger.exception("studio: ZIP %s could not be written", job.pk)
        why = getattr(exc, "strerror", "") or type(exc).__name__
        return Step(stop_message=f"The ZIP could not be written on the console's disk ({why}).")
    return MORE


ZIP_JOB = JobKind(
    name=KIND,
    model=ZipJob,
    chunk=zip_chunk,
    active=ZipJob.ACTIVE,
    done=ZipJob.READY,
    stopped=ZipJob.FAILED,  # a ZIP that cannot be written is not resumed: it is asked for again
    unexpected="The ZIP stopped on an unexpected error; ask for it again.",
    unwritten=frozenset({"images", "idempotency_key", "file_name"}),
)


def _append(job: ZipJob, path: Path) -> None:
    if job.done and (not path.exists() or path.stat().st_size != job.size):
        # A step died half-way: what the file holds is not what the row says. Start again.
        logger.warning("studio: ZIP %s is not as its last step left it; building it again", job.pk)
        job.done, job.missing = 0, []
    images = list(job.images or [])
    batch = images[job.done : job.done + STEP_IMAGES]
    missing = list(job.missing or []) if job.done else []
    with (
        download_client() as http,
        zipfile.ZipFile(
            path, mode="a" if job.done else "w", compression=zipfile.ZIP_STORED, allowZip64=True
        ) as archive,
    ):
        for number, image in enumerate(batch, start=job.done + 1):
            problem = add_image(archive, http, image, number)
            if problem:
                missing.append(problem)
        if job.done + len(batch) >= len(images) and missing:
            archive.writestr(MISSING_FILE, "\n".join(missing) + "\n")
    job.done += len(batch)
    job.missing = missing
    job.size = path.stat().st_size
    job.status = ZipJob.BUILDING
    if job.done >= len(images):
        job.status, job.finished_at = ZipJob.READY, timezone.now()


# --- pruning (beat) -------------------------------------------------------------------


def zips_prune(*, now=None) -> int:
    """Remove the files of jobs finished STUDIO_ZIP_KEEP_HOURS ago (the row
    stays, "expired", so its page says the file is gone). Returns how many."""
    now = now or timezone.now()
    old = ZipJob.objects.filter(
        status__in=(ZipJob.READY, ZipJob.FAILED),
        finished_at__lt=now - timedelta(hours=float(settings.STUDIO_ZIP_KEEP_HOURS)),
    )
    removed = 0
    for job in old.iterator(chunk_size=200):
        try:
            zip_path(job).unlink(missing_ok=True)
        except OSError:
            logger.warning("studio: the file of ZIP %s could not be removed", job.pk, exc_info=True)
            continue
        removed += ZipJob.objects.filter(pk=job.pk).update(status=ZipJob.EXPIRED, size=0, updated_at=now)
    return removed
