"""The two scrapes: a process group's counters, and the state read from the database.

- `scrape_processes()` (`/metrics` of each web, each worker's own endpoint):
  the counters and histograms of the processes that share one
  PROMETHEUS_MULTIPROC_DIR (gunicorn's workers, Celery's prefork processes),
  read from every process's files and added up, plus `console_build_info`.
  Without that directory (`runserver`, a test) this process's own registry
  is read: fine for one process, wrong for several (a system check warns).
  Every target is different: Prometheus scrapes each one (one per web
  container or pod, one per worker replica) and `sum()` adds them up.
- `scrape_state()` (`/metrics/state`): the gauges read from the database, the
  cache and the broker (collect.py). They describe the one console, not a
  process, and every web answers them the same: they are served apart so
  that one scrape job with one target (the web Service, or the proxy) reads
  them once, and `sum(console_live_operations)` is the true count however
  many webs run. Were they on every `/metrics`, two webs would say 600
  operations where there are 300.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client import multiprocess as prometheus_multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY

from dashboard.metrics import initial

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def multiprocess_dir() -> str:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")


class _BuildInfo:
    """The version this process group runs: one series per target, so
    `count by (version) (console_build_info)` shows a rolling upgrade half done."""

    def collect(self) -> Iterator[Metric]:
        from dashboard.version import console_version

        family = GaugeMetricFamily(
            "console_build_info",
            "The console's version these processes run (always 1): join on it, or alert when two versions serve.",
            labels=["version"],
        )
        family.add_metric([console_version()], 1.0)
        yield family


class _ProcessMetrics:
    """The default registry's metrics (this process's counters), as one collector."""

    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


def scrape_processes() -> bytes:
    """The counters and histograms of this machine's (container's) processes, in Prometheus' text format."""
    initial.initialise()
    registry = CollectorRegistry()
    path = multiprocess_dir()
    if path:
        prometheus_multiprocess.MultiProcessCollector(registry, path=path)
    else:
        registry.register(_ProcessMetrics())
    registry.register(_BuildInfo())
    return generate_latest(registry)


def scrape_state() -> bytes:
    """The gauges read from the database, the cache and the broker (the same from every web)."""
    from dashboard.metrics.collect import DatabaseCollector

    registry = CollectorRegistry()
    registry.register(DatabaseCollector())
    return generate_latest(registry)
