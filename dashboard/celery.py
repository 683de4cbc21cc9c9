import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")
# The embedded broker of `make run` (CELERY_BROKER_URL=sqlite:///var/broker.sqlite3):
# a name only, so a process on Redis never imports it (or SQLAlchemy).
TRANSPORT_ALIASES.setdefault("sqlite", "dashboard.broker:Transport")

app = Celery("dashboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Django's LOGGING (with the key-redacting filter) stays in charge of the root logger.
app.conf.worker_hijack_root_logger = False
app.autodiscover_tasks()


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

    every = float(getattr(settings, "CELERY_BEAT_TICK_SECONDS", 0.5))
    sender.add_periodic_task(
        every,
        sender.signature("live.tick", options={"expires": max(every * 5, 10.0)}),
        name="live.tick",
    )


@app.on_after_configure.connect
def add_audit_prune(sender: Celery, **kwargs) -> None:
    """The audit trail's retention runs once a day."""
    sender.add_periodic_task(24 * 3600.0, sender.signature("audit.prune"), name="audit.prune")


@app.on_after_configure.connect
def add_inbox_refresh(sender: Celery, **kwargs) -> None:
    """The inbox reads each workspace's approvals and runs on this interval
    (a refresh that waited longer than one interval expires unread)."""
    from django.conf import settings

    every = float(getattr(settings, "INBOX_REFRESH_SECONDS", 60.0))
    sender.add_periodic_task(
        every, sender.signature("inbox.refresh_all", options={"expires": every}), name="inbox.refresh_all"
    )
