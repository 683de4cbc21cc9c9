"""Health of the parts the console cannot work without: its database and
the Celery broker. Read by `/healthz` (load balancers, docker-compose).

Each check is cheap and bounded by a short timeout, and reports only
"ok" or the exception's class name: never a URL, host or message, which
could carry a password from DATABASE_URL or CELERY_BROKER_URL.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from kombu import Connection

OK = "ok"


@dataclass(frozen=True)
class HealthReport:
    database: str
    broker: str

    @property
    def healthy(self) -> bool:
        return self.database == OK and self.broker == OK

    def as_dict(self) -> dict[str, str]:
        return {
            "status": OK if self.healthy else "unavailable",
            "database": self.database,
            "broker": self.broker,
        }


def health_database_check() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means "down"; the class name says which kind
        return f"error: {type(exc).__name__}"
    return OK


def health_broker_check(*, timeout: float) -> str:
    url = settings.CELERY_BROKER_URL
    try:
        if url.startswith("sqlite://"):
            # The embedded broker "connects" without touching its file: open and read it.
            with Connection(url) as conn:
                channel = conn.channel()
                try:
                    channel.check()
                finally:
                    channel.close()
            return OK
        with Connection(url, connect_timeout=timeout, transport_options={"socket_timeout": timeout}) as conn:
            # One attempt, no back-off sleeps: a health probe must answer fast.
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    return OK


def health_report(*, broker_timeout: float = 2.0) -> HealthReport:
    return HealthReport(database=health_database_check(), broker=health_broker_check(timeout=broker_timeout))
