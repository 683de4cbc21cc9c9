"""`manage.py check` on the metrics settings: say what is wrong before a scrape finds out."""

from __future__ import annotations

import os

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning, register

MIN_TOKEN_LENGTH = 24


@register()
def metrics_settings_check(app_configs=None, **kwargs):
    problems: list[CheckMessage] = []
    if not settings.METRICS_ENABLED:
        return problems
    from prometheus_client import values

    from dashboard.metrics.access import invalid_networks

    if not settings.METRICS_TOKEN and not settings.METRICS_ALLOW_FROM:
        problems.append(
            Warning(
                "METRICS_ENABLED is on but neither METRICS_TOKEN nor METRICS_ALLOW_FROM is set: "
                "/metrics stays a 404 (metrics are never open to anyone).",
                hint="Set METRICS_TOKEN (a long random string) or METRICS_ALLOW_FROM (the scraper's network).",
                id="metrics.W001",
            )
        )
    invalid = invalid_networks(settings.METRICS_ALLOW_FROM)
    if invalid:
        problems.append(
            Error(
                f"METRICS_ALLOW_FROM has entries that are no address or network: {', '.join(invalid)}.",
                hint="Comma-separated CIDRs, e.g. 10.0.0.0/8,127.0.0.1/32.",
                id="metrics.E001",
            )
        )
    if settings.METRICS_TOKEN and len(settings.METRICS_TOKEN) < MIN_TOKEN_LENGTH:
        problems.append(
            Warning(
                f"METRICS_TOKEN is shorter than {MIN_TOKEN_LENGTH} characters.",
                hint='python -c "import secrets; print(secrets.token_urlsafe(32))"',
                id="metrics.W002",
            )
        )
    multiprocess = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if settings.PRODUCTION and not multiprocess:
        problems.append(
            Warning(
                "Metrics are on without PROMETHEUS_MULTIPROC_DIR: each gunicorn worker and Celery process "
                "counts alone, and a scrape sees whichever process answers it.",
                hint="Set PROMETHEUS_MULTIPROC_DIR to an empty directory per container (a tmpfs), "
                "as docker-compose.yml does.",
                id="metrics.W003",
            )
        )
    elif multiprocess and not getattr(values.ValueClass, "_multiprocess", False):
        problems.append(
            Warning(
                "PROMETHEUS_MULTIPROC_DIR is set, but prometheus_client was imported before it was: "
                "this process counts alone.",
                hint="Set PROMETHEUS_MULTIPROC_DIR in the process's environment, not only in a file read later.",
                id="metrics.W004",
            )
        )
    return problems
