"""The one engine of stepped jobs: a job is a row, worked on in bounded steps.

One Celery task, `jobs.step` (dashboard/jobs/tasks.py), takes a kind's name
and a row's id (ids only, never a key). A step:

1. claims the row with a short lease (the core's one lease shape,
   dashboard/live/leases.py), so a duplicated message never runs the same
   chunk twice at once; a thread renews the lease while the chunk works, so
   a worker killed mid-chunk lets go within `JOBS_LEASE_SECONDS`;
2. re-reads the row and runs ONE chunk of the kind (its area's function);
3. applies the one error rule: 429 waits its Retry-After, 5xx, a timeout or
   a lost connection waits 5 s, every other remote error stops the job in
   words with its request id (the catalogue of dashboard/api/messages.py);
   `max_transient_errors` waits in a row stop it too (Resume goes on);
4. writes the row only while it still holds the lease (a redelivered step
   whose lease was taken writes nothing, and a cancel asked meanwhile is
   kept: the step never writes `cancel_requested`);
5. sends the next step through the outbox (`outbox_send`), with a countdown
   for a wait. It never sleeps.

A wait keeps the row leased until its countdown (no token: nobody holds it,
but the watch leaves it alone), so a waiting job is never sent early.

`jobs_watch` (beat, every `JOBS_WATCH_SECONDS`) is the one recovery for every
kind: a step whose holder died (a lease run out that was never given back) is
sent again at once; an active row nobody holds that nothing moved for
`JOBS_STALLED_SECONDS` (its message was lost: a broker restart, an outbox row
never published) is sent again too.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from dashboard.api import errors
from dashboard.api.messages import said_by_service, stored_meaning_of
from dashboard.events.models import EventType
from dashboard.events.services import event_emit
from dashboard.jobs.kinds import JobKind, Step, job_kind, job_kinds
from dashboard.live.leases import LeaseRenewal, lease_is_free, lease_take
from dashboard.live.storable import storable_text
from dashboard.outbox.services import outbox_send

logger = logging.getLogger("dashboard.jobs")

STEP_TASK = "jobs.step"  # dashboard/jobs/tasks.py
WATCH_BATCH = 100  # rows sent again per kind and watch


def step_for_error(exc: errors.ApiError) -> Step:
    """The one rule for a remote error that concerns the whole job."""
    if isinstance(exc, errors.RateLimitedError):
        return Step(wait_seconds=max(1.0, exc.retry_after or 5.0))
    if isinstance(exc, errors.ServerError | errors.ApiTimeoutError | errors.ApiConnectionError):
        return Step(wait_seconds=5.0)
    # Stored on the job and read by operators: in English (stored_meaning_of).
    meaning = stored_meaning_of(exc)
    said = said_by_service(exc)
    text = f"{meaning.title}. {said}" if said else f"{meaning.title}. {meaning.advice}"
    return Step(stop_message=storable_text(f"{text} (request id {exc.request_id or 'unknown'})"))


def lease_seconds(kind: JobKind) -> float:
    return float(kind.lease_seconds or settings.JOBS_LEASE_SECONDS)


# --- sending ------------------------------------------------------------------------


def send_step(kind: str, job_id: int, countdown: float | None = None) -> None:
    """Send `jobs.step` for the row through the outbox, in the current
    transaction: published once it commits (the step must find the row), kept
    and swept to the broker later when the broker cannot take it. Tests stand
    a worker in for Celery here."""
    model = job_kind(kind).model
    outbox_send(task=STEP_TASK, args=[kind, job_id], countdown=countdown, about=model(**{"pk": job_id}))


def job_cancel(kind: str, job_id: int) -> bool:
    """Ask an active job to stop: its next step ends it (a write in flight
    finishes). False when it is not active any more."""
    spec = job_kind(kind)
    asked = spec.model._default_manager.filter(pk=job_id, status__in=spec.active).update(
        cancel_requested=True, updated_at=timezone.now()
    )
    if asked:
        send_step(kind, job_id)
    return bool(asked)


# --- one step -------------------------------------------------------------------------


@contextmanager
def lease_kept(rows: QuerySet, *, token: str, seconds: float) -> Iterator[None]:
    """Renew the lease `token` holds on `rows` every third of its length
    while the block runs (a chunk waiting on a slow service): the core's one
    renewal (dashboard/live/leases.py LeaseRenewal, the poller's too), on a
    thread and connection of its own. A worker killed meanwhile renews
    nothing: its lease runs out within `seconds`; one taken by another after
    it ran out is not renewed, and the guarded write then writes nothing."""
    with LeaseRenewal(lambda: rows, token=token, seconds=seconds, name="job lease"):
        yield


def _stop(kind: JobKind, job: Any, message: str) -> None:
    if kind.stopping is not None:
        kind.stopping(job)
    job.status = kind.stopped
    job.message = _storable_message(job, message)


def _storable_message(job: Any, message: str) -> str:
    limit = job._meta.get_field("message").max_length or 4000
    return storable_text(message, limit=limit)


def _outcome(kind: JobKind, job: Any, step: Step) -> float | None:
    """Apply `step` to the row in memory; the countdown of the next step, or None."""
    if step.stop_message:
        _stop(kind, job, step.stop_message)
        return None
    if step.wait_seconds is not None:
        job.transient_errors = 1 if step.progressed else job.transient_errors + 1
        if job.transient_errors >= kind.max_transient_errors:
            _stop(kind, job, job.message or kind.kept_failing)
            return None
        return step.wait_seconds
    job.transient_errors = 0
    if step.done:
        job.status = step.next_status or kind.done
    return 0 if job.status in kind.active else None


def job_step(kind_name: str, job_id: int) -> str:
    """One step of a job; returns its status after the step ("skipped" when
    it was final, unknown, or held by another worker: that step sends the
    next one)."""
    kind = job_kind(kind_name)
    model = kind.model
    seconds = lease_seconds(kind)
    token = lease_take(model._default_manager.filter(pk=job_id, status__in=kind.active), seconds=seconds)
    if token is None:
        return "skipped"
    job = model._default_manager.select_related(*kind.select_related).get(pk=job_id)
    before = copy.copy(job)
    countdown: float | None = None
    with lease_kept(model._default_manager.filter(pk=job_id), token=token, seconds=seconds):
        if job.cancel_requested:
            job.status = kind.cancelled or kind.stopped
            job.message = _storable_message(job, kind.cancelled_message)
        else:
            try:
                step = kind.chunk(job)
            except errors.ApiError as exc:
                step = step_for_error(exc)
            except Exception:
                logger.exception("%s %s failed", kind_name, job_id)
                step = Step(stop_message=kind.unexpected)
            countdown = _outcome(kind, job, step)
    now = timezone.now()
    active = job.status in kind.active
    if not active:
        countdown = None
        job.finished_at = job.finished_at or now
    else:
        job.finished_at = None
    # A wait keeps the row leased until its step is due (the watch leaves it
    # alone); otherwise it is free for the next step.
    job.lease_until = now + timedelta(seconds=max(0.0, countdown - 1)) if countdown else None
    job.lease_token = ""
    job.updated_at = now
    unwritten = {"id", "cancel_requested", *kind.unwritten}
    fields = {f.attname: getattr(job, f.attname) for f in model._meta.concrete_fields if f.name not in unwritten}
    fields.pop(model._meta.pk.attname, None)
    guarded = model._default_manager.filter(pk=job_id, lease_token=token)
    if active:
        updated = guarded.update(**fields)
    else:
        with transaction.atomic():  # the job's end and its outbound event commit together
            updated = guarded.update(**fields)
            if updated and kind.finished_event:
                _finished_event(kind, job)
    if not updated:
        return "skipped"  # the lease was taken by another step meanwhile: its write counts
    if kind.written is not None:
        kind.written(before, job)
    if countdown is not None:
        send_step(kind_name, job_id, countdown=countdown or None)
    return job.status


def _finished_event(kind: JobKind, job: Any) -> None:
    """ "job.finished" for the workspace the row belongs to (a kind whose rows name none tells nobody)."""
    workspace_id = str(getattr(job, "workspace_id", "") or "")
    if not workspace_id:
        return
    event_emit(
        workspace_id=workspace_id,
        type=EventType.JOB_FINISHED,
        key=f"job.finished:{kind.name}:{job.pk}",
        data={
            "kind": kind.name,
            "job_id": job.pk,
            "status": job.status,
            "message": job.message,
            "finished_at": job.finished_at.isoformat() if job.finished_at else None,
        },
    )


# --- the watch (beat) -------------------------------------------------------------------


def stalled(kind: JobKind, *, now=None) -> QuerySet:
    """Active rows of `kind` whose step message is gone: a holder that died
    (its lease ran out with its token still on the row), or a row nobody
    holds that nothing moved for `JOBS_STALLED_SECONDS`."""
    now = now or timezone.now()
    dead_holder = Q(lease_until__lte=now) & ~Q(lease_token="")
    lost = (
        Q(lease_token="")
        & lease_is_free(now)
        & Q(updated_at__lt=now - timedelta(seconds=float(settings.JOBS_STALLED_SECONDS)))
    )
    return kind.model._default_manager.filter(status__in=kind.active).filter(dead_holder | lost)


def jobs_watch(*, now=None) -> int:
    """Send a step to every job of every kind whose message was lost. Returns how many were sent."""
    sent = 0
    for kind in job_kinds():
        for job_id in stalled(kind, now=now).order_by("updated_at").values_list("pk", flat=True)[:WATCH_BATCH]:
            send_step(kind.name, job_id)
            sent += 1
    return sent
