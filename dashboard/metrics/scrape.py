"""One scrape: the processes' counters and histograms, plus the database's gauges.

With PROMETHEUS_MULTIPROC_DIR (gunicorn's workers, Celery's prefork
processes), the counters are read from every process's files in that
directory and added up: any worker may answer the scrape and the answer is
the same. Without it (`runserver`, a test), the process's own registry is
read: fine for one process, wrong for several (a system check warns).
"""

from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client import multiprocess as prometheus_multiprocess
from prometheus_client.registry import REGISTRY

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def multiprocess_dir() -> str:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")


def scrape(*, database: bool = True) -> bytes:
    """The metrics in Prometheus' text format. `database`: with the gauges read
    from the database (the web's endpoint); a worker's own endpoint leaves
    them to the web, which would otherwise report them twice."""
    path = multiprocess_dir()
    if path:
        registry = CollectorRegistry()
        prometheus_multiprocess.MultiProcessCollector(registry, path=path)
        if database:
            from dashboard.metrics.collect import DatabaseCollector

            registry.register(DatabaseCollector())
        return generate_latest(registry)
    if not database:
        return generate_latest(REGISTRY)
    from dashboard.metrics.collect import DatabaseCollector

    registry = CollectorRegistry()
    registry.register(_ProcessMetrics())
    registry.register(DatabaseCollector())
    return generate_latest(registry)


class _ProcessMetrics:
    """The default registry's metrics (this process's counters), as one collector."""

    def collect(self):
        return REGISTRY.collect()
