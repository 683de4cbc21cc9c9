import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

from dashboard.observability.task_context import connect as request_id_in_tasks

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
# The embedded broker of `make run` (CELERY_BROKER_URL=sqlite:///var/broker.sqlite3):
# a name only, so a process on Redis never imports it (or SQLAlchemy).
TRANSPORT_ALIASES.setdefault("sqlite", "dashboard.broker:Transport")

# Tasks that follow a streamed call for as long as it lasts (see route_streams).
STREAM_TASKS = ("studio.follow_turn", "agents.stream_invocation")

app = Celery("dashboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Django's LOGGING (with the key-redacting filter) stays in charge of the root logger.
app.conf.worker_hijack_root_logger = False
app.autodiscover_tasks()
# The request id travels in every task's headers and is current while it runs;
# each run writes one log line (dashboard/observability/task_context.py).
request_id_in_tasks()


@app.on_after_configure.connect
def add_live_tick(sender: Celery, **kwargs) -> None:
    """The beat entry of the live poller: `live.tick` every CELERY_BEAT_TICK_SECONDS
    (0.5 s: a row due just after a tick waits at most that long for a poll task;
    the tick itself is one count query).
    A tick that waited longer than a few intervals expires unread.

    Read here, not at import, because this module is imported while the
    settings module itself is still loading.
    """
    from django.conf import settings

    every = float(settings.CELERY_BEAT_TICK_SECONDS)
    # A tick that waited a few intervals is worth nothing (a newer one is queued
    # behind it): it expires, so ticks alone never fill the queue of a slow
    # worker. Nothing depends on a given tick: poll messages never expire, and
    # one that ran out of budget with rows still due sends its successor itself.
    sender.add_periodic_task(
        every,
        sender.signature("live.tick", options={"expires": max(every * 4, 2.0)}),
        name="live.tick",
    )


@app.on_after_configure.connect
def route_streams(sender: Celery, **kwargs) -> None:
    """Tasks that hold a stream open for minutes go to CELERY_STREAM_QUEUE when
    it is set (a thread-pool worker of their own, as `make run` does), so they
    never take the worker processes the poller needs. An explicit queue given
    when sending still wins."""
    from django.conf import settings

    queue = settings.CELERY_STREAM_QUEUE
    if queue:
        sender.conf.task_routes = {name: {"queue": queue} for name in STREAM_TASKS}


@app.on_after_configure.connect
def add_audit_prune(sender: Celery, **kwargs) -> None:
    """The audit trail's retention runs once a day."""
    sender.add_periodic_task(24 * 3600.0, sender.signature("audit.prune"), name="audit.prune")


@app.on_after_configure.connect
def add_inbox_refresh(sender: Celery, **kwargs) -> None:
    """The inbox reads each workspace's approvals and runs on this interval
    (a refresh that waited longer than one interval expires unread)."""
    from django.conf import settings

    every = float(settings.INBOX_REFRESH_SECONDS)
    sender.add_periodic_task(
        every, sender.signature("inbox.refresh_all", options={"expires": every}), name="inbox.refresh_all"
    )
    # Workspaces someone is looking at: their pending approvals, more often (dashboard/inbox/services.py).
    watched = float(settings.INBOX_WATCHED_REFRESH_SECONDS)
    sender.add_periodic_task(
        watched,
        sender.signature("inbox.refresh_watched", options={"expires": watched}),
        name="inbox.refresh_watched",
    )


@app.on_after_configure.connect
def add_outbox_sweep(sender: Celery, **kwargs) -> None:
    """Tasks a start stored while the broker could not take them are sent on
    this interval (dashboard/outbox); a sweep that waited longer is stale."""
    from django.conf import settings

    every = float(settings.OUTBOX_SWEEP_SECONDS)
    sender.add_periodic_task(
        every, sender.signature("outbox.sweep", options={"expires": every * 2}), name="outbox.sweep"
    )


@app.on_after_configure.connect
def add_reach_sweep(sender: Celery, **kwargs) -> None:
    """Notifications whose time came (digests, quiet hours ended, retries) are
    sent on this interval (dashboard/reach)."""
    from django.conf import settings

    every = float(settings.REACH_SWEEP_SECONDS)
    sender.add_periodic_task(
        every, sender.signature("reach.deliver_due", options={"expires": every}), name="reach.deliver_due"
    )


@app.on_after_configure.connect
def add_jobs_watch(sender: Celery, **kwargs) -> None:
    """Every kind of stepped job (dashboard/jobs): one whose step message was
    lost, or whose worker died, is sent on. A watch that waited longer than
    its interval expires unread (the next one does the same)."""
    from django.conf import settings

    every = float(settings.JOBS_WATCH_SECONDS)
    sender.add_periodic_task(every, sender.signature("jobs.watch", options={"expires": every}), name="jobs.watch")
