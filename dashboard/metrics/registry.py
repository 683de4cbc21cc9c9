"""The metric objects every process writes to, and the small functions that write them.

Callers (the middleware, the transport's attempt hook, the poller, object
jobs, Celery and login signals) call a function here, never a metric object:
the label values are made bounded in one place (view names, endpoint
templates, a fixed vocabulary of states), and nothing is written while
metrics are off (`METRICS_ENABLED`): `enable()` is called by the app's
ready() only when they are on, so a console without metrics pays one
boolean test per call site and never touches PROMETHEUS_MULTIPROC_DIR.

Multiprocess mode: prometheus_client picks its value class when it is first
imported, from PROMETHEUS_MULTIPROC_DIR in the environment (settings put a
`.env` value there before any app loads). Then each process (gunicorn
worker, Celery prefork child) writes its own mmap files in that directory and
a scrape adds them up (`scrape.py`). Only counters and histograms live here:
every gauge is read from the database at scrape time (`collect.py`), so no
gauge needs a multiprocess mode and a dead process leaves nothing stale.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from dashboard.metrics.endpoints import endpoint_template

# Requests are mostly polls answered in milliseconds; pages that read the
# service take up to the read budget (10 s).
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
# A remote call: tens of milliseconds to minutes (a turn, a builder run: up to 800 s).
REMOTE_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 800.0)
# Due -> polled: a tick every 0.5 s, polls 5-10 s apart; a wedged poller is minutes late.
POLL_LAG_BUCKETS = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0)
TASK_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 1800.0)

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED_VIEW = "unmatched"  # no URL pattern matched (a 404 before any view)

http_requests = Counter(
    "console_http_requests",
    "Web requests answered, by view (the URL pattern's name), method and status.",
    ["view", "method", "status"],
)
http_request_seconds = Histogram(
    "console_http_request_duration_seconds",
    "Time to answer a web request, by view and method (the whole middleware stack inside the metrics middleware).",
    ["view", "method"],
    buckets=REQUEST_BUCKETS,
)
remote_calls = Counter(
    "console_remote_calls",
    "Attempts of remote service calls, by endpoint template, method and status "
    "(an HTTP status, or timeout / connection_error when no answer came).",
    ["endpoint", "method", "status"],
)
remote_call_seconds = Histogram(
    "console_remote_call_duration_seconds",
    "Time of one attempt of a remote call, by endpoint template and method.",
    ["endpoint", "method"],
    buckets=REMOTE_BUCKETS,
)
remote_retries = Counter(
    "console_remote_retries",
    "Attempts that were retried (the transport waited and called again), by endpoint template and method.",
    ["endpoint", "method"],
)
remote_rate_limited = Counter(
    "console_remote_rate_limited",
    "Answers 429 (rate limited) from the service, by endpoint template and method.",
    ["endpoint", "method"],
)
poll_lag_seconds = Histogram(
    "console_live_poll_lag_seconds",
    "How late the poller called the service for a tracked operation: from its next_poll_at (due) to the call.",
    ["kind"],
    buckets=POLL_LAG_BUCKETS,
)
operations_finished = Counter(
    "console_live_operations_finished",
    "Tracked operations the poller saw end, by kind and final state (stopped: the console gave up following).",
    ["kind", "state"],
)
object_job_rows = Counter(
    "console_object_job_rows",
    "Rows (records or import lines) object jobs handled, by job kind and phase; rate() gives rows per second.",
    ["kind", "phase"],
)
tasks = Counter(
    "console_tasks",
    "Celery tasks run, by task name and outcome (success, failure, retry).",
    ["task", "outcome"],
)
task_seconds = Histogram(
    "console_task_duration_seconds",
    "Time a Celery task ran, by task name.",
    ["task"],
    buckets=TASK_BUCKETS,
)
login_failures = Counter("console_login_failures", "Failed logins (wrong username or password).")
login_lockouts = Counter(
    "console_login_lockouts", "Logins refused because the account or the address is locked out (django-axes)."
)

# Tracked operations' states: the contract's words (../shared/api-spec.md,
# "States and transitions") and the console's own; whatever else the service
# sends counts as `other`, so a state label never grows with the data. A
# registered kind's own final states are kept too (`state_label(..., also=)`).
STATES = {
    "pending",
    "stopped",
    "queued",
    "building",
    "running",
    "waiting",
    "needs_input",
    "completed",
    "complete",
    "succeeded",
    "failed",
    "cancelled",
}
OTHER = "other"

_enabled = False


def enable() -> None:
    """Start writing metrics in this process (the app's ready(), when METRICS_ENABLED)."""
    global _enabled
    _enabled = True


def disable() -> None:
    global _enabled
    _enabled = False


def enabled() -> bool:
    return _enabled


def state_label(status: object, also: frozenset[str] | set[str] = frozenset()) -> str:
    """`status` when it is one of the known states (or of `also`: a kind's own
    final states), else `other`."""
    text = str(status or "")
    return text if text in STATES or text in also else OTHER


def method_label(method: str) -> str:
    method = (method or "").upper()
    return method if method in METHODS else OTHER


# --- what callers call --------------------------------------------------------


def request_observed(*, view: str, method: str, status: int, seconds: float) -> None:
    if not _enabled:
        return
    method = method_label(method)
    http_requests.labels(view, method, str(status)).inc()
    http_request_seconds.labels(view, method).observe(seconds)


def remote_attempt_observed(*, method: str, path: str, status: str, seconds: float, retried: bool) -> None:
    """One attempt of a remote call (`status`: the HTTP status, or the class of
    error when nothing was answered)."""
    if not _enabled:
        return
    endpoint, method = endpoint_template(path), method_label(method)
    remote_calls.labels(endpoint, method, status).inc()
    remote_call_seconds.labels(endpoint, method).observe(max(0.0, seconds))
    if status == "429":
        remote_rate_limited.labels(endpoint, method).inc()
    if retried:
        remote_retries.labels(endpoint, method).inc()


def poll_observed(
    *, kind: str, lag_seconds: float | None, final_state: str | None, final_states: frozenset[str] = frozenset()
) -> None:
    """One row of a registered kind the poller called the service for: how
    late (None: it was not due yet, a poll asked for early) and the state it
    ended in, if it did (`final_states`: the kind's own)."""
    if not _enabled:
        return
    if lag_seconds is not None:
        poll_lag_seconds.labels(kind).observe(max(0.0, lag_seconds))
    if final_state is not None:
        operations_finished.labels(kind, state_label(final_state, also=final_states)).inc()


def object_job_rows_handled(*, kind: str, phase: str, rows: int) -> None:
    if not _enabled or rows <= 0:
        return
    object_job_rows.labels(kind, phase).inc(rows)


def task_observed(*, task: str, outcome: str, seconds: float | None) -> None:
    if not _enabled:
        return
    tasks.labels(task, outcome).inc()
    if seconds is not None:
        task_seconds.labels(task).observe(max(0.0, seconds))


def login_failed() -> None:
    if _enabled:
        login_failures.inc()


def login_locked_out() -> None:
    if _enabled:
        login_lockouts.inc()
