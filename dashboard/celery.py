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
def route_streams(sender: Celery, **kwargs) -> None:
    """Tasks that hold a stream open for minutes go to CELERY_STREAM_QUEUE when
    it is set (a thread-pool worker of their own, as `make run` does), so they
    never take the worker processes the poller needs. An explicit queue given
    when sending still wins."""
    from django.conf import settings

    queue = settings.CELERY_STREAM_QUEUE
    if queue:
        sender.conf.task_routes = {name: {"queue": queue} for name in STREAM_TASKS}
