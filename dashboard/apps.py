import logging

from django.apps import AppConfig
from django.conf import settings

logger = logging.getLogger("dashboard")


def start_traces() -> None:
    """OpenTelemetry, when configured: here, before any middleware is loaded
    (dashboard/observability/otel.py). Telemetry never stops the console: a
    missing extra is said in the log."""
    if not settings.OTEL_ENABLED:
        return
    from dashboard.observability.otel import otel_init

    if not otel_init():
        logger.warning("OTEL_ENABLED is set but the otel extra is not installed (pip install '.[otel]'): no traces")


class DashboardConfig(AppConfig):
    name = "dashboard"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from dashboard.accounts.middleware import session_login_mark
        from dashboard.api.hooks import log_remote_write, on_remote_write
        from dashboard.celery import app
        from dashboard.idempotency import form_sent_write
        from dashboard.schedule import compose_beat_schedule

        on_remote_write(log_remote_write)
        on_remote_write(form_sent_write)
        start_traces()
        user_logged_in.connect(session_login_mark, dispatch_uid="console-session-login-mark")
        # The one beat schedule, composed when the app is finalized (after every area's ready()).
        app.on_after_finalize.connect(compose_beat_schedule, weak=False, dispatch_uid="console-beat-schedule")
