"""The outbox: a task a write sends is stored with the write, then published.

Why: a start (a Studio turn, a chat message, a bulk job...) stores its row and
must hand a task to the broker. Sent with `apply_async` after the commit, a
broker that cannot be reached raised into the person's request after the
remote work had begun (a 500, and a retry from a fresh form did it twice).
Here the task is a row written in the same transaction as the start's own
rows; after the commit the console tries to publish it at once (one short
connection attempt, no retries in a web request), and whatever the broker did
not take stays for the sweeper (`outbox.sweep`, on beat), which sends it once
the broker answers. A message may be sent twice (a publish whose delete
failed, a sweep racing the first try): every task is idempotent. None is lost.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from dashboard.observability.context import current_request_id
from dashboard.observability.task_context import request_id_headers
from dashboard.outbox.models import OutboxMessage

logger = logging.getLogger("dashboard.outbox")

# Set while some message waits for the broker (cleared by a sweep that finds
# none): pages look for their own waiting message only then, so a console
# whose broker works never reads the outbox to render a page.
HELD_CACHE_KEY = "outbox:held"
# How long a publisher holds the rows it is sending (a connection attempt and
# a few publishes); a publisher that died lets them go after this.
CLAIM_SECONDS = 30
# The after-commit publish goes first: the sweeper leaves a new message alone this long.
FIRST_TRY_SECONDS = 10
MAX_BACKOFF_SECONDS = 30
BATCH = 100


def outbox_label(instance: models.Model) -> str:
    """What `about` says of a row: "live.trackedoperation:12"."""
    return f"{instance._meta.label_lower}:{instance.pk}"


def outbox_send(
    *,
    task: str,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    queue: str | None = None,
    countdown: float | None = None,
    expires: float | None = None,
    about: models.Model | None = None,
) -> OutboxMessage:
    """Send the Celery task named `task` with the current transaction: stored
    now, published once the transaction commits (or at once outside one).

    `countdown` delays the run, `expires` drops a message not taken by then
    (also one still in the outbox); `about` is the row the task works on, so
    its page can say the work waits here. Areas call this for every start,
    never `apply_async`."""
    now = timezone.now()
    message = OutboxMessage.objects.create(
        task_name=task,
        args=list(args),
        kwargs=kwargs or {},
        queue=queue or "",
        about=outbox_label(about) if about is not None else "",
        run_at=now + timedelta(seconds=countdown) if countdown else None,
        expires_at=now + timedelta(seconds=expires) if expires else None,
        request_id=current_request_id() or "",
        send_after=now + timedelta(seconds=FIRST_TRY_SECONDS),
    )
    transaction.on_commit(lambda: _publish_after_commit(message.pk))
    return message


def _publish_after_commit(message_id: int) -> None:
    # Nothing may fail the person's request once its write has committed: the sweeper has the message.
    try:
        outbox_publish(message_ids=[message_id])
    except Exception:
        logger.exception("outbox: publishing message %s after the commit failed; the sweeper sends it", message_id)


@dataclass(frozen=True)
class PublishReport:
    sent: int = 0
    held: int = 0
    dropped: int = 0
    error: str = ""


def outbox_publish(*, message_ids: Iterable[int] | None = None, now: datetime | None = None) -> PublishReport:
    """Publish messages: those named (the after-commit try), else the due
    ones (the sweeper), at most `BATCH`. Each is claimed first, deleted once
    the broker took it, and kept with a backoff when it did not."""
    now = now or timezone.now()
    token, rows = _claim(message_ids=message_ids, now=now)
    if not rows:
        return PublishReport()
    expired = [row.pk for row in rows if row.expires_at is not None and row.expires_at <= now]
    if expired:
        # Its task would be dropped unread by the worker anyway (the poller has the state by now).
        OutboxMessage.objects.filter(pk__in=expired, claim_token=token).delete()
    rows = [row for row in rows if row.pk not in expired]
    sent: list[int] = []
    error = ""
    try:
        with _Publisher() as publisher:
            for row in rows:
                publisher.publish(row)
                sent.append(row.pk)
    except Exception as exc:
        # Anything the broker or its client raises: the rest waits for the sweeper.
        error = type(exc).__name__
        logger.warning(
            "outbox: the broker did not take %d task(s) (%s); they wait in the outbox",
            len(rows) - len(sent),
            error,
        )
    if sent:
        OutboxMessage.objects.filter(pk__in=sent, claim_token=token).delete()
    held = [row for row in rows if row.pk not in sent]
    for row in held:
        OutboxMessage.objects.filter(pk=row.pk, claim_token=token).update(
            attempts=row.attempts + 1,
            last_error=error[:200],
            send_after=now + timedelta(seconds=min(2**row.attempts, MAX_BACKOFF_SECONDS)),
            claimed_until=None,
            claim_token="",
        )
    if held:
        cache.set(HELD_CACHE_KEY, True, timeout=None)
    return PublishReport(sent=len(sent), held=len(held), dropped=len(expired), error=error)


def outbox_sweep(*, now: datetime | None = None) -> int:
    """Send every due message, a batch at a time, until none is left or the
    broker stops taking them. Returns the messages sent."""
    sent = 0
    while True:
        report = outbox_publish(now=now)
        sent += report.sent
        if report.error or report.sent + report.dropped == 0:
            break
    if (sent or cache.get(HELD_CACHE_KEY)) and not OutboxMessage.objects.filter(attempts__gt=0).exists():
        cache.delete(HELD_CACHE_KEY)
    return sent


def _claim(*, message_ids: Iterable[int] | None, now: datetime) -> tuple[str, list[OutboxMessage]]:
    token = uuid.uuid4().hex
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lte=now)
    if message_ids is not None:
        wanted = OutboxMessage.objects.filter(free, pk__in=list(message_ids))
    else:
        wanted = OutboxMessage.objects.filter(free, send_after__lte=now)
    ids = list(wanted.order_by("send_after", "id").values_list("pk", flat=True)[:BATCH])
    if not ids:
        return token, []
    # The conditional UPDATE takes each row once, whoever else is sweeping.
    OutboxMessage.objects.filter(free, pk__in=ids).update(
        claimed_until=now + timedelta(seconds=CLAIM_SECONDS), claim_token=token
    )
    return token, list(OutboxMessage.objects.filter(claim_token=token).order_by("send_after", "id"))


class _Publisher:
    """One broker connection for a batch, tried once with a short timeout:
    a web request never waits long, nor retries, for a broker that is down.
    Eager Celery (tests, `CELERY_TASK_ALWAYS_EAGER`) runs the task instead."""

    def __init__(self) -> None:
        from dashboard.celery import app

        self.app = app
        self.connection: Any = None

    def __enter__(self) -> _Publisher:
        if not self.app.conf.task_always_eager:
            timeout = float(settings.OUTBOX_CONNECT_TIMEOUT)
            self.connection = self.app.connection_for_write(
                connect_timeout=timeout,
                transport_options={"max_retries": 1, "socket_connect_timeout": timeout, "socket_timeout": timeout},
            )
            self.connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.connection is not None:
            self.connection.release()

    def publish(self, row: OutboxMessage) -> None:
        options: dict[str, Any] = {}
        if row.queue:
            options["queue"] = row.queue
        if row.run_at is not None:
            options["eta"] = row.run_at
        if row.expires_at is not None:
            options["expires"] = row.expires_at
        if row.request_id:
            # Named here, the sweeper's own id (current while it publishes) is not used instead.
            options["headers"] = request_id_headers(row.request_id)
        task = self.app.tasks.get(row.task_name)
        if task is None:
            # A web process has not imported every tasks module yet: Celery's autodiscovery does.
            self.app.loader.import_default_modules()
            task = self.app.tasks.get(row.task_name)
        if task is None:
            # Not registered in this process (an area it does not load): sent by name.
            self.app.send_task(row.task_name, args=row.args, kwargs=row.kwargs, connection=self.connection, **options)
            return
        if self.connection is not None:
            options.update(connection=self.connection, retry=False)
        task.apply_async(args=row.args, kwargs=row.kwargs, **options)
