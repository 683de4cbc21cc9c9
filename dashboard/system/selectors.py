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
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext

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
    "database": gettext_lazy("Database"),
    "broker": gettext_lazy("Task broker"),
    "cache": gettext_lazy("Shared cache"),
    "beat": gettext_lazy("Celery beat (the scheduler)"),
    "worker": gettext_lazy("Worker of the poller's queue"),
    "streams": gettext_lazy("Worker of the stream queue (chat answers, Studio progress)"),
    "poller": gettext_lazy("Live updates (oldest due operation)"),
    "leases": gettext_lazy("Live updates (operations held but not polled)"),
}


def part_name(name: str) -> str:
    """A readiness part by its name on the page (an unknown part by its own name)."""
    return str(PART_NAMES.get(name, name))


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
    empty: str = field(default_factory=lambda: gettext("Nothing to show."))

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
        return gettext("never seen")
    if seconds < 15:
        return gettext("less than 15 s ago")
    if seconds < 60:
        return gettext("less than a minute ago")
    if seconds < 3600:
        return gettext("%(count)s min ago") % {"count": int(seconds // 60)}
    if seconds < 48 * 3600:
        return gettext("%(count)s h ago") % {"count": int(seconds // 3600)}
    days = int(seconds // 86400)
    return ngettext("%(count)s day ago", "%(count)s days ago", days) % {"count": days}


def wait_words(seconds: float | None) -> str:
    if not seconds:
        return gettext("none waiting")
    if seconds < 15:
        return gettext("less than 15 s")
    if seconds < 60:
        return gettext("less than a minute")
    return gettext("%(count)s min") % {"count": int(seconds // 60)}


CHECK_WORDS_MISSING = gettext_lazy("no heartbeat seen: not started, or stopped long ago")
CHECK_WORDS_STALE = gettext_lazy("heartbeat too old: stopped or stuck")
CHECK_WORDS_BEHIND = gettext_lazy("operations wait longer than they should")
CHECK_WORDS_LEASE = gettext_lazy("operations held by a poll have gone two intervals without one")
CHECK_WORDS_CACHE = gettext_lazy("answers but does not keep what is written")


def check_words(check: str) -> str:
    """A check's answer for a person: "ok", or what went wrong by its name."""
    if check == OK:
        return gettext("working")
    name = check.removeprefix("error: ")
    known = {
        "HeartbeatMissing": CHECK_WORDS_MISSING,
        "HeartbeatStale": CHECK_WORDS_STALE,
        "PollerBehind": CHECK_WORDS_BEHIND,
        "LeaseStale": CHECK_WORDS_LEASE,
        "CacheDidNotKeepValue": CHECK_WORDS_CACHE,
    }.get(name)
    return str(known) if known else failing_words(name)


def failing_words(name: str) -> str:
    """A check failing by a class name (the name is code: never translated)."""
    return gettext("failing (%(name)s)") % {"name": name}


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
            detail = gettext("%(detail)s; last heartbeat %(age)s") % {"detail": detail, "age": age_words(ages[name])}
        if name == "poller":
            oldest = report.seconds.get("oldest_due")
            detail = (
                gettext("%(detail)s; longest wait %(wait)s") % {"detail": detail, "wait": wait_words(oldest)}
                if oldest
                else gettext("%(detail)s; nothing waiting") % {"detail": detail}
            )
        if name == "leases":
            detail = f"{detail}; {_held_words(report)}"
        state = pgettext("readiness", "OK") if check == OK else pgettext("readiness", "Down")
        rows.append(StatusRow(part_name(name), (state, detail), _state(check)))
    return StatusTable(
        slug="readiness",
        title=gettext("Readiness"),
        caption=gettext("What /readyz checks, part by part"),
        columns=(gettext("Part"), gettext("State"), gettext("Detail")),
        rows=rows,
    )


def _held_words(report: ReadinessReport) -> str:
    count = report.counts.get("stale_leased")
    if count is None:
        return gettext("unknown (the database is not answering)")
    if count == 0:
        return pgettext("none held", "none")
    return gettext("%(count)s, the longest due for %(wait)s") % {
        "count": integer(count),
        "wait": wait_words(report.seconds.get("stale_lease")),
    }


def _console_table() -> StatusTable:
    pending = pending_migrations()
    rows = [StatusRow(gettext("Version"), (console_version(),))]
    if pending:
        shown = ", ".join(pending[:5])
        if len(pending) > 5:
            shown = gettext("%(names)s and %(more)s more") % {"names": shown, "more": len(pending) - 5}
        rows.append(StatusRow(gettext("Pending migrations"), (f"{len(pending)}",), PROBLEM_STATE))
        rows.append(
            StatusRow(gettext("Not applied yet"), (gettext("%(names)s (run manage.py migrate)") % {"names": shown},))
        )
    else:
        rows.append(StatusRow(gettext("Pending migrations"), (pgettext("none pending", "none"),), OK_STATE))
    return StatusTable(
        slug="console",
        title=gettext("This console"),
        caption=gettext("The version running and its database schema"),
        columns=(gettext("What"), gettext("Now")),
        rows=rows,
    )


def _background_table(now: datetime) -> StatusTable:
    queues = watched_queues()
    rows = [StatusRow(gettext("Celery beat last scheduled"), (age_words(_age(heartbeat.beat_last_seen(), now)),))]
    for queue in queues:
        seen = _age(heartbeat.worker_last_seen(queue), now)
        fresh = seen is not None and seen <= settings.READY_WORKER_MAX_AGE
        rows.append(
            StatusRow(
                gettext("Worker of the queue %(queue)s last alive") % {"queue": repr(queue)},
                (age_words(seen),),
                OK_STATE if fresh else PROBLEM_STATE,
            )
        )
    rows.append(
        StatusRow(
            gettext("Poller's last tick (live.tick ran)"), (age_words(_age(heartbeat.heartbeat_last_seen(), now)),)
        )
    )
    for queue, depth in queue_depths(queues).items():
        rows.append(
            StatusRow(
                gettext("Messages waiting in %(queue)s") % {"queue": repr(queue)},
                (gettext("unknown (broker not answering)") if depth is None else integer(depth),),
            )
        )
    return StatusTable(
        slug="background",
        title=gettext("Workers, beat and the task queue"),
        caption=gettext("Heartbeats of the background processes and messages waiting in the broker"),
        columns=(gettext("What"), gettext("Now")),
        rows=rows,
    )


def _live_tables(report: ReadinessReport, now: datetime) -> list[StatusTable]:
    lag = poll_lag_recent(now=now)
    if lag.p95_at_most is None:
        lag_words = gettext("no polls in the last %(minutes)s minutes") % {"minutes": LAG_WINDOW_MINUTES}
    elif lag.p95_at_most == float("inf"):
        lag_words = gettext("95%% of %(polls)s polls within more than 5 min") % {"polls": integer(lag.polls)}
    else:
        lag_words = gettext("95%% of %(polls)s polls within %(seconds)s s of falling due") % {
            "polls": integer(lag.polls),
            "seconds": f"{lag.p95_at_most:g}",
        }
    summary = StatusTable(
        slug="polling",
        title=gettext("Live updates"),
        caption=gettext("How promptly tracked operations are polled (last %(minutes)s minutes)")
        % {"minutes": LAG_WINDOW_MINUTES},
        columns=(gettext("What"), gettext("Now")),
        rows=[
            StatusRow(gettext("Poll lag, 95th percentile"), (lag_words,)),
            StatusRow(
                gettext("Oldest due operation waiting"),
                (wait_words(report.seconds.get("oldest_due")),),
                _state(report.parts.get("poller", OK)),
            ),
            StatusRow(
                gettext("Operations held but not polled for two intervals"),
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
        title=gettext("Tracked operations not finished"),
        caption=gettext("Operations the poller follows, by kind and status"),
        columns=(gettext("Kind"), gettext("Status"), gettext("Operations")),
        rows=rows,
        empty=gettext("No operation is being followed."),
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
                columns=(gettext("What"), gettext("How many")),
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
        title=gettext("Stored keys the service refused"),
        caption=gettext(
            "Stored API keys the service answered 401 to, by workspace "
            "(their owners see no workspace data until they check or replace them)"
        ),
        columns=(gettext("Workspace"), gettext("Keys refused"), gettext("Latest refusal")),
        rows=rows,
        empty=gettext("No stored key is refused."),
    )


def _service_table(probe: ServiceProbe | None, now: datetime) -> StatusTable:
    if probe is None:
        rows = [
            StatusRow(
                gettext("Reachable"), (gettext("not measured yet: a worker measures it while this page is open"),)
            )
        ]
    else:
        status = {"status": probe.http_status}
        if probe.reachable and probe.check == OK:
            reachable = pgettext("reachable", "yes")
            answer = gettext("%(status)s to a request without a key, as expected") % status
        elif probe.reachable:
            reachable, answer = pgettext("reachable", "with errors"), gettext("%(status)s: the service failed") % status
        else:
            reachable = pgettext("reachable", "no")
            answer = gettext("none (%(name)s)") % {"name": probe.check.removeprefix("error: ")}
        latency = gettext("none (no answer)") if probe.milliseconds is None else _latency_step(probe.milliseconds)
        rows = [
            StatusRow(gettext("Reachable"), (reachable,), _state(probe.check)),
            StatusRow(gettext("Answer"), (answer,)),
            StatusRow(gettext("Latency"), (latency,)),
            StatusRow(gettext("Measured"), (age_words(_age(probe.measured, now)),)),
        ]
    return StatusTable(
        slug="service",
        title=gettext("The remote service"),
        caption=gettext("One request to the service, made at most every 15 seconds"),
        columns=(gettext("What"), gettext("Now")),
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
        cause = (cause_of_status(row["status"]), gettext("Writes"))
        by_cause[cause] = by_cause.get(cause, 0) + row["count"]
    # Rows still followed whose last poll failed: the catalogue's sentence is the cause.
    failing = (
        TrackedOperation.objects.filter(is_final=False, error_count__gt=0, last_polled_at__gte=since)
        .values("last_error")
        .annotate(count=Count("id"))
        .order_by()
    )
    for row in failing:
        # The stored error is English for operators (stored_meaning_of); shown as it was stored.
        cause = ((row["last_error"] or gettext("The last check failed"))[:160], gettext("Polls of tracked operations"))
        by_cause[cause] = by_cause.get(cause, 0) + row["count"]
    rows = [
        StatusRow(cause, (where, integer(count)))
        for (cause, where), count in sorted(by_cause.items(), key=lambda item: (-item[1], item[0]))
    ]
    return StatusTable(
        slug="errors",
        title=gettext("Errors in the last hour"),
        caption=gettext("Failed writes (from the audit trail) and tracked operations whose last poll failed, by cause"),
        columns=(gettext("Cause"), gettext("Where"), gettext("How many")),
        rows=rows,
        empty=gettext("No errors in the last hour."),
    )


def _unreadable(slug: str, title: str, exc: Exception) -> StatusTable:
    return StatusTable(
        slug=slug,
        title=title,
        caption=gettext("%(title)s: could not be read") % {"title": title},
        columns=(gettext("What"), gettext("Now")),
        rows=[StatusRow(gettext("Could not be read"), (failing_words(type(exc).__name__),), PROBLEM_STATE)],
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
            ("readiness", gettext("Readiness"), lambda: [_readiness_table(report)]),
            ("console", gettext("This console"), lambda: [_console_table()]),
            ("background", gettext("Workers, beat and the task queue"), lambda: [_background_table(moment)]),
            ("polling", gettext("Live updates"), lambda: _live_tables(report, moment)),
            ("areas", gettext("Areas"), _area_tables),
            ("refused-keys", gettext("Stored keys the service refused"), lambda: [_refused_keys_table()]),
            ("service", gettext("The remote service"), lambda: [_service_table(probe, moment)]),
            ("errors", gettext("Errors in the last hour"), lambda: [_errors_table(moment)]),
        ]
    )
    return SystemStatus(ready=report.ready, down=[part_name(name) for name in report.down], tables=tables)
