"""What the System status page shows, read from the console's own database,
the shared cache and the broker (never the remote service: its reachability
is a stored probe, dashboard/system/service_probe.py).

Everything is turned into words here (`StatusTable` of `StatusRow`s), and the
page's version is a hash of those words: while nothing a person would see has
changed, the 5-second poll answers 204. So ages are shown in steps ("less than
15 s ago", "3 min ago") rather than to the second, which would change every
poll and say nothing more.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.translation import gettext

from dashboard.api import errors
from dashboard.api.messages import catalogue_entry
from dashboard.audit.models import AuditEntry
from dashboard.frame.areas import status_parts
from dashboard.health import OK, ReadinessReport, broker_queue_depths, readiness_report
from dashboard.keys.models import ApiKey
from dashboard.live import heartbeat, registry
from dashboard.live.lag import LAG_WINDOW_MINUTES, poll_lag_recent
from dashboard.live.models import TrackedOperation
from dashboard.system.service_probe import ServiceProbe
from dashboard.version import console_version
from dashboard.web import local_formats
from dashboard.web.local_formats import integer

# Recent errors are counted over this window.
ERRORS_WINDOW = timedelta(hours=1)
MIGRATIONS_CACHE_KEY = "system:pending-migrations"
# Reading the migration graph costs more than the rest of the page; migrations
# change only with a deploy, so once a minute is enough.
MIGRATIONS_CACHE_SECONDS = 60
QUEUE_DEPTHS_CACHE_KEY = "system:queue-depths"
QUEUE_DEPTHS_CACHE_SECONDS = 5
BROKER_TIMEOUT = 2.0

OK_STATE = "ok"
PROBLEM_STATE = "problem"

PART_NAMES = {
    "database": "Database",
    "broker": "Task broker",
    "cache": "Shared cache",
    "beat": "Celery beat (the scheduler)",
    "worker": "Worker of the poller's queue",
    "streams": "Worker of the stream queue (chat answers, Studio progress)",
    "poller": "Live updates (oldest due operation)",
    "leases": "Live updates (operations held but not polled)",
}


@dataclass(frozen=True)
class StatusRow:
    head: str  # the row's header cell
    cells: tuple[str, ...]
    state: str = ""  # OK_STATE, PROBLEM_STATE or "" (information only)


@dataclass(frozen=True)
class StatusTable:
    slug: str  # the table's id on the page
    title: str
    caption: str
    columns: tuple[str, ...]
    rows: list[StatusRow]
    empty: str = "Nothing to show."

    @property
    def lines(self) -> list[tuple[StatusRow, list[tuple[str, str]]]]:
        """Each row with its cells beside their column names: a phone shows
        every row as a small card, each cell labelled (`data-label`)."""
        return [(row, list(zip(self.columns[1:], row.cells, strict=False))) for row in self.rows]


@dataclass(frozen=True)
class SystemStatus:
    ready: bool
    down: list[str]
    tables: list[StatusTable] = field(default_factory=list)

    @property
    def version(self) -> str:
        """A hash of everything shown: unchanged words, unchanged version."""
        digest = hashlib.sha256(repr((self.ready, self.down, self.tables)).encode())
        return digest.hexdigest()[:16]


# --- words --------------------------------------------------------------------------


def age_words(seconds: float | None) -> str:
    """An age in steps that stay put between polls."""
    if seconds is None:
        return "never seen"
    if seconds < 15:
        return "less than 15 s ago"
    if seconds < 60:
        return "less than a minute ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 48 * 3600:
        return f"{int(seconds // 3600)} h ago"
    return f"{int(seconds // 86400)} days ago"


def wait_words(seconds: float | None) -> str:
    if not seconds:
        return "none waiting"
    if seconds < 15:
        return "less than 15 s"
    if seconds < 60:
        return "less than a minute"
    return f"{int(seconds // 60)} min"


def check_words(check: str) -> str:
    """A check's answer for a person: "ok", or what went wrong by its name."""
    if check == OK:
        return "working"
    name = check.removeprefix("error: ")
    return {
        "HeartbeatMissing": "no heartbeat seen: not started, or stopped long ago",
        "HeartbeatStale": "heartbeat too old: stopped or stuck",
        "PollerBehind": "operations wait longer than they should",
        "LeaseStale": "operations held by a poll have gone two intervals without one",
        "CacheDidNotKeepValue": "answers but does not keep what is written",
    }.get(name, f"failing ({name})")


def _state(check: str) -> str:
    return OK_STATE if check == OK else PROBLEM_STATE


def _age(moment: datetime | None, now: datetime) -> float | None:
    return None if moment is None else max((now - moment).total_seconds(), 0.0)


def cause_of_status(status: int | None) -> str:
    """The catalogue's title for a write's outcome, with its status."""
    if status is None:
        cls: type[errors.ApiError] = errors.ApiConnectionError
    else:
        cls = errors.error_class_for(status=status, error_type=None)
    title = gettext(catalogue_entry(cls).title)
    if status is None:
        return gettext("%(title)s (no answer)") % {"title": title}
    return f"{title} ({status})"


# --- reads ---------------------------------------------------------------------------


def pending_migrations() -> list[str]:
    """ "app.name" of every migration not applied yet (cached a minute)."""
    names = cache.get(MIGRATIONS_CACHE_KEY)
    if isinstance(names, list):
        return names
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    names = [f"{migration.app_label}.{migration.name}" for migration, backwards in plan if not backwards]
    cache.set(MIGRATIONS_CACHE_KEY, names, MIGRATIONS_CACHE_SECONDS)
    return names


def watched_queues() -> list[str]:
    """The poller's queue, then the stream queues the settings name."""
    queues = [heartbeat.default_queue()]
    for queue in (settings.CELERY_STREAM_QUEUE, settings.AGENTS_STREAM_QUEUE):
        if queue and queue not in queues:
            queues.append(queue)
    return queues


def queue_depths(queues: list[str]) -> dict[str, int | None]:
    """Messages waiting per queue, remembered a few seconds (one broker
    connection however many administrators look)."""
    depths = cache.get(QUEUE_DEPTHS_CACHE_KEY)
    if isinstance(depths, dict) and set(depths) == set(queues):
        return depths
    depths = broker_queue_depths(queues, timeout=BROKER_TIMEOUT)
    cache.set(QUEUE_DEPTHS_CACHE_KEY, depths, QUEUE_DEPTHS_CACHE_SECONDS)
    return depths


# --- tables ----------------------------------------------------------------------------


def _readiness_table(report: ReadinessReport) -> StatusTable:
    ages = {name: report.seconds.get(name) for name in ("beat", "worker", "streams")}
    rows = []
    for name, check in report.parts.items():
        detail = check_words(check)
        if name in ages:
            detail = f"{detail}; last heartbeat {age_words(ages[name])}"
        if name == "poller":
            oldest = report.seconds.get("oldest_due")
            detail = f"{detail}; longest wait {wait_words(oldest)}" if oldest else f"{detail}; nothing waiting"
        if name == "leases":
            detail = f"{detail}; {_held_words(report)}"
        rows.append(StatusRow(PART_NAMES.get(name, name), ("OK" if check == OK else "Down", detail), _state(check)))
    return StatusTable(
        slug="readiness",
        title="Readiness",
        caption="What /readyz checks, part by part",
        columns=("Part", "State", "Detail"),
        rows=rows,
    )


def _held_words(report: ReadinessReport) -> str:
    count = report.counts.get("stale_leased")
    if count is None:
        return "unknown (the database is not answering)"
    if count == 0:
        return "none"
    return f"{integer(count)}, the longest due for {wait_words(report.seconds.get('stale_lease'))}"


def _console_table() -> StatusTable:
    pending = pending_migrations()
    rows = [StatusRow("Version", (console_version(),))]
    if pending:
        shown = ", ".join(pending[:5]) + (f" and {len(pending) - 5} more" if len(pending) > 5 else "")
        rows.append(StatusRow("Pending migrations", (f"{len(pending)}",), PROBLEM_STATE))
        rows.append(StatusRow("Not applied yet", (f"{shown} (run manage.py migrate)",)))
    else:
        rows.append(StatusRow("Pending migrations", ("none",), OK_STATE))
    return StatusTable(
        slug="console",
        title="This console",
        caption="The version running and its database schema",
        columns=("What", "Now"),
        rows=rows,
    )


def _background_table(now: datetime) -> StatusTable:
    queues = watched_queues()
    rows = [StatusRow("Celery beat last scheduled", (age_words(_age(heartbeat.beat_last_seen(), now)),))]
    for queue in queues:
        seen = _age(heartbeat.worker_last_seen(queue), now)
        fresh = seen is not None and seen <= settings.READY_WORKER_MAX_AGE
        rows.append(
            StatusRow(
                f"Worker of the queue {queue!r} last alive", (age_words(seen),), OK_STATE if fresh else PROBLEM_STATE
            )
        )
    rows.append(
        StatusRow("Poller's last tick (live.tick ran)", (age_words(_age(heartbeat.heartbeat_last_seen(), now)),))
    )
    for queue, depth in queue_depths(queues).items():
        rows.append(
            StatusRow(
                f"Messages waiting in {queue!r}",
                ("unknown (broker not answering)" if depth is None else integer(depth),),
            )
        )
    return StatusTable(
        slug="background",
        title="Workers, beat and the task queue",
        caption="Heartbeats of the background processes and messages waiting in the broker",
        columns=("What", "Now"),
        rows=rows,
    )


def _live_tables(report: ReadinessReport, now: datetime) -> list[StatusTable]:
    lag = poll_lag_recent(now=now)
    if lag.p95_at_most is None:
        lag_words = f"no polls in the last {LAG_WINDOW_MINUTES} minutes"
    elif lag.p95_at_most == float("inf"):
        lag_words = f"95% of {integer(lag.polls)} polls within more than 5 min"
    else:
        lag_words = f"95% of {integer(lag.polls)} polls within {lag.p95_at_most:g} s of falling due"
    summary = StatusTable(
        slug="polling",
        title="Live updates",
        caption=f"How promptly tracked operations are polled (last {LAG_WINDOW_MINUTES} minutes)",
        columns=("What", "Now"),
        rows=[
            StatusRow("Poll lag, 95th percentile", (lag_words,)),
            StatusRow(
                "Oldest due operation waiting",
                (wait_words(report.seconds.get("oldest_due")),),
                _state(report.parts.get("poller", OK)),
            ),
            StatusRow(
                "Operations held but not polled for two intervals",
                (_held_words(report),),
                _state(report.parts.get("leases", OK)),
            ),
        ],
    )
    by_state = (
        TrackedOperation.objects.filter(is_final=False)
        .values("kind", "status")
        .annotate(count=Count("id"))
        .order_by("kind", "status")
    )
    rows = []
    for row in by_state:
        kind = registry.get_kind(row["kind"])
        rows.append(StatusRow(kind.title if kind else row["kind"], (row["status"], integer(row["count"]))))
    operations = StatusTable(
        slug="operations",
        title="Tracked operations not finished",
        caption="Operations the poller follows, by kind and status",
        columns=("Kind", "Status", "Operations"),
        rows=rows,
        empty="No operation is being followed.",
    )
    return [summary, operations]


def _area_tables() -> list[StatusTable]:
    tables = []
    for index, part in enumerate(status_parts()):
        rows = [
            StatusRow(label, (integer(value) if isinstance(value, int) else str(value),))
            for label, value in part.rows()
        ]
        tables.append(
            StatusTable(
                slug=f"area-{index}",
                title=part.title,
                caption=part.caption,
                columns=("What", "How many"),
                rows=rows,
                empty=part.empty,
            )
        )
    return tables


def _refused_keys_table() -> StatusTable:
    refused = (
        ApiKey.objects.filter(refused_at__isnull=False)
        .values("workspace_id", "workspace_name")
        .annotate(count=Count("id"), latest=Max("refused_at"))
        .order_by("workspace_name", "workspace_id")
    )
    rows = [
        StatusRow(
            row["workspace_name"] or row["workspace_id"],
            (integer(row["count"]), local_formats.active().day(row["latest"]) if row["latest"] else ""),
            PROBLEM_STATE,
        )
        for row in refused
    ]
    return StatusTable(
        slug="refused-keys",
        title="Stored keys the service refused",
        caption="Stored API keys the service answered 401 to, by workspace (their owners see no workspace data until they check or replace them)",
        columns=("Workspace", "Keys refused", "Latest refusal"),
        rows=rows,
        empty="No stored key is refused.",
    )


def _service_table(probe: ServiceProbe | None, now: datetime) -> StatusTable:
    if probe is None:
        rows = [StatusRow("Reachable", ("not measured yet: a worker measures it while this page is open",))]
    else:
        if probe.reachable and probe.check == OK:
            reachable, answer = "yes", f"{probe.http_status} to a request without a key, as expected"
        elif probe.reachable:
            reachable, answer = "with errors", f"{probe.http_status}: the service failed"
        else:
            reachable, answer = "no", f"none ({probe.check.removeprefix('error: ')})"
        latency = "none (no answer)" if probe.milliseconds is None else f"{_latency_step(probe.milliseconds)}"
        rows = [
            StatusRow("Reachable", (reachable,), _state(probe.check)),
            StatusRow("Answer", (answer,)),
            StatusRow("Latency", (latency,)),
            StatusRow("Measured", (age_words(_age(probe.measured, now)),)),
        ]
    return StatusTable(
        slug="service",
        title="The remote service",
        caption="One request to the service, made at most every 15 seconds",
        columns=("What", "Now"),
        rows=rows,
    )


def _latency_step(milliseconds: int) -> str:
    """Latency to the nearest 10 ms (100 ms past a second): steadier between probes."""
    if milliseconds < 1000:
        return f"{max(10, round(milliseconds, -1))} ms"
    return f"{round(milliseconds / 1000, 1):g} s"


def _errors_table(now: datetime) -> StatusTable:
    since = now - ERRORS_WINDOW
    writes = (
        AuditEntry.objects.filter(created_at__gte=since, kind=AuditEntry.KIND_WRITE)
        .filter(Q(status__gte=400) | Q(status__isnull=True))
        .values("status")
        .annotate(count=Count("id"))
        .order_by()
    )
    by_cause: dict[tuple[str, str], int] = {}
    for row in writes:
        cause = (cause_of_status(row["status"]), "Writes")
        by_cause[cause] = by_cause.get(cause, 0) + row["count"]
    # Rows still followed whose last poll failed: the catalogue's sentence is the cause.
    failing = (
        TrackedOperation.objects.filter(is_final=False, error_count__gt=0, last_polled_at__gte=since)
        .values("last_error")
        .annotate(count=Count("id"))
        .order_by()
    )
    for row in failing:
        cause = ((row["last_error"] or "The last check failed")[:160], "Polls of tracked operations")
        by_cause[cause] = by_cause.get(cause, 0) + row["count"]
    rows = [
        StatusRow(cause, (where, integer(count)))
        for (cause, where), count in sorted(by_cause.items(), key=lambda item: (-item[1], item[0]))
    ]
    return StatusTable(
        slug="errors",
        title="Errors in the last hour",
        caption="Failed writes (from the audit trail) and tracked operations whose last poll failed, by cause",
        columns=("Cause", "Where", "How many"),
        rows=rows,
        empty="No errors in the last hour.",
    )


def _unreadable(slug: str, title: str, exc: Exception) -> StatusTable:
    return StatusTable(
        slug=slug,
        title=title,
        caption=f"{title}: could not be read",
        columns=("What", "Now"),
        rows=[StatusRow("Could not be read", (f"failing ({type(exc).__name__})",), PROBLEM_STATE)],
    )


def _each_part(parts: Iterable[tuple[str, str, Callable[[], list[StatusTable]]]]) -> list[StatusTable]:
    """The tables of every part; one that can't be read (the cache or the
    database failing under it) says so by class name in its place, and the rest
    of the page stands: this page is read precisely when things break."""
    tables: list[StatusTable] = []
    for slug, title, build in parts:
        try:
            tables.extend(build())
        except Exception as exc:
            tables.append(_unreadable(slug, title, exc))
    return tables


def system_status(*, probe: ServiceProbe | None, now: datetime | None = None) -> SystemStatus:
    """Every table of the page, in words. `probe`: the service's stored result."""
    moment = now or timezone.now()
    # Every check of the report already answers "error: <Class>" instead of raising.
    report = readiness_report(now=moment, broker_timeout=BROKER_TIMEOUT)
    tables = _each_part(
        [
            ("readiness", "Readiness", lambda: [_readiness_table(report)]),
            ("console", "This console", lambda: [_console_table()]),
            ("background", "Workers, beat and the task queue", lambda: [_background_table(moment)]),
            ("polling", "Live updates", lambda: _live_tables(report, moment)),
            ("areas", "Areas", _area_tables),
            ("refused-keys", "Stored keys the service refused", lambda: [_refused_keys_table()]),
            ("service", "The remote service", lambda: [_service_table(probe, moment)]),
            ("errors", "Errors in the last hour", lambda: [_errors_table(moment)]),
        ]
    )
    return SystemStatus(ready=report.ready, down=[PART_NAMES.get(name, name) for name in report.down], tables=tables)
