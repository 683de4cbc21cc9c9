"""Every series present at zero from the first scrape: the counters and
histograms made with the label values known before any traffic.

A series that appears only once observed breaks two kinds of rule on a fresh
stack: `absent(...)` fires although nothing is wrong, and `rate()` / `increase()`
miss the first increment (from no series to 1 is no rise). So the process that
serves a scrape first makes, at zero, every series whose labels come from a
fixed vocabulary:

- requests: every named view with GET, for status 500 (the error-rate rule's
  numerator; other statuses appear with their first request); their
  latency histogram for the login page only (a histogram is 15 series: for
  every view, 3,500 lines and a third of a second more per scrape), the
  other views' with their first request;
- remote calls: every endpoint template of the contract (endpoints.py, each
  choice word expanded) with GET, for status 429; retries, 429s, durations;
- tasks: every registered Celery task, for success, failure and retry;
- the poller: every registered kind's lag, and the final states it ends in;
- login counters (no labels: present as soon as they exist);
- areas' own (objects/metrics.py: object job rows by kind and phase), added
  through `register_series()`.

It runs once per process, at its first scrape (after every app's ready(), so
every kind and task is registered). In multiprocess mode one process's zeros
are enough: the scrape adds every process's files. Label sets stay bounded:
they are exactly the vocabularies above.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator

from prometheus_client import Counter, Histogram

from dashboard.metrics import registry
from dashboard.metrics.endpoints import TEMPLATES

logger = logging.getLogger("dashboard.metrics")

Series = tuple[Counter | Histogram, tuple[str, ...]]
SeriesSource = Callable[[], Iterable[Series]]

TASK_OUTCOMES = ("success", "failure", "retry")
FIRST_METHOD = "GET"
ERROR_STATUS = "500"
RATE_LIMITED_STATUS = "429"
FIRST_VIEW = "login"  # every console serves it, first

_sources: dict[str, SeriesSource] = {}
_done = False
_lock = threading.Lock()


def register_series(part: str, source: SeriesSource) -> None:
    """Add an area's known series (its AppConfig.ready(), beside its gauges)."""
    _sources[part] = source


def endpoint_labels() -> list[str]:
    """The contract's endpoint templates as the `endpoint` label shows them: a
    choice segment (`{studio:image|video}`) once per word, and once as `{studio}`."""
    shown: list[str] = []
    for template in TEMPLATES:
        variants = [""]
        for segment in template.strip("/").split("/"):
            if segment.startswith("{") and ":" in segment:
                name, _, words = segment.strip("{}").partition(":")
                options = [*words.split("|"), "{" + name + "}"]
            elif segment.startswith("{"):
                options = [segment]
            else:
                options = [segment]
            variants = [f"{head}/{option}" for head in variants for option in options]
        shown.extend(variants)
    shown.append(registry.OTHER)
    return shown


def view_labels() -> list[str]:
    from django.urls import URLPattern, URLResolver, get_resolver

    def walk(resolver: URLResolver, namespace: str) -> Iterator[str]:
        for pattern in resolver.url_patterns:
            if isinstance(pattern, URLResolver):
                inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                yield from walk(pattern, inner)
            elif isinstance(pattern, URLPattern) and pattern.name:
                yield namespace + pattern.name

    return sorted({*walk(get_resolver(), ""), registry.UNMATCHED_VIEW})


def task_labels() -> list[str]:
    from celery import current_app

    # The web imports a task module only when it sends one of its tasks: load them all.
    current_app.loader.import_default_modules()
    return sorted(name for name in current_app.tasks if not name.startswith("celery."))


def core_series() -> Iterator[Series]:
    for view in view_labels():
        yield registry.http_requests, (view, FIRST_METHOD, ERROR_STATUS)
    yield registry.http_request_seconds, (FIRST_VIEW, FIRST_METHOD)
    for endpoint in endpoint_labels():
        yield registry.remote_calls, (endpoint, FIRST_METHOD, RATE_LIMITED_STATUS)
        yield registry.remote_call_seconds, (endpoint, FIRST_METHOD)
        yield registry.remote_retries, (endpoint, FIRST_METHOD)
        yield registry.remote_rate_limited, (endpoint, FIRST_METHOD)
    for task in task_labels():
        for outcome in TASK_OUTCOMES:
            yield registry.tasks, (task, outcome)
        yield registry.task_seconds, (task,)
    yield from live_series()


def live_series() -> Iterator[Series]:
    from dashboard.live import registry as kinds

    for name in kinds.kind_names():
        kind = kinds.get_kind(name)
        if kind is None:
            continue
        yield registry.poll_lag_seconds, (name,)
        for state in sorted({*kind.final_statuses, "stopped"}):
            yield registry.operations_finished, (name, registry.state_label(state, also=kind.final_statuses))


def initialise() -> None:
    """Make every known series at zero in this process (once; a part that fails is logged and skipped)."""
    global _done
    if _done or not registry.enabled():
        return
    with _lock:
        if _done:
            return
        parts: dict[str, SeriesSource] = {"core": core_series, **_sources}
        for part, source in parts.items():
            try:
                for metric, labels in source():
                    metric.labels(*labels)
            except Exception as exc:
                logger.warning("metrics: making the %s series failed (%s)", part, type(exc).__name__)
        _done = True


def reset() -> None:
    """Forget that this process made them (tests that clear the registry)."""
    global _done
    _done = False
