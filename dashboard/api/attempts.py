"""The attempts of one remote call (dashboard/api/client.py makes the call,
this module tries it): when to try again and how long to wait (exponential
backoff with full jitter, or the service's `Retry-After`), the read budget a
web request's reads share, a typed error from an answer, and the log line
and metrics hook of every attempt. The client module's docstring says why
each choice is what it is.

`sleep_before_retry()` is the only place the transport sleeps and `clock()`
what it measures with: tests replace both here.
"""

from __future__ import annotations

import contextvars
import logging
import math
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from django.conf import settings

from dashboard.api import errors
from dashboard.api.hooks import RemoteAttempt, remote_attempt_done
from dashboard.logging import redact
from dashboard.metrics.endpoints import endpoint_template

logger = logging.getLogger("dashboard.api")

BACKOFF_BASE_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 8.0


@dataclass
class Call:
    """One logical call: what stays the same over its attempts."""

    method: str
    path: str
    url: str
    params: Any
    json: Any
    headers: dict[str, str]
    timeout: httpx.Timeout
    slow: bool
    stream: bool
    request_id: str


def sleep_before_retry(seconds: float) -> None:
    """The only place the transport sleeps; tests replace it."""
    time.sleep(seconds)


def clock() -> float:
    """Seconds on a monotonic clock: what the read budget measures; tests replace it."""
    return time.monotonic()


# --------------------------------------------------------------------------
# The read budget of a web request


@dataclass
class ReadBudget:
    """The seconds the reads of one web request may still take, all together."""

    seconds: float
    spent: float = 0.0

    @property
    def left(self) -> float:
        return max(0.0, self.seconds - self.spent)


_read_budget: contextvars.ContextVar[ReadBudget | None] = contextvars.ContextVar("read_budget", default=None)


@contextmanager
def read_budget(seconds: float) -> Iterator[ReadBudget]:
    """Reads made inside share `seconds` in total (retries and their waits
    included). Nested budgets keep the outer one."""
    current = _read_budget.get()
    if current is not None:
        yield current
        return
    budget = ReadBudget(seconds=max(0.0, float(seconds)))
    token = _read_budget.set(budget)
    try:
        yield budget
    finally:
        _read_budget.reset(token)


@contextmanager
def separate_read_budget(seconds: float) -> Iterator[ReadBudget]:
    """A budget of its own for reads run beside a request's (the command
    palette's sources, each in a thread of its own): `seconds`, never more than
    what the request's budget has left. Unlike `read_budget` it does not join
    an open budget, so one slow source stops at its own limit while the others
    and the page go on."""
    outer = _read_budget.get()
    limit = max(0.0, float(seconds))
    if outer is not None:
        limit = min(limit, outer.left)
    budget = ReadBudget(seconds=limit)
    token = _read_budget.set(budget)
    try:
        yield budget
    finally:
        _read_budget.reset(token)


def _budget_for(call: Call) -> ReadBudget | None:
    return _read_budget.get() if call.method == "GET" and not call.stream else None


def _budget_spent_error(call: Call, budget: ReadBudget) -> errors.ApiTimeoutError:
    return errors.ApiTimeoutError(
        f"The service did not answer within {budget.seconds:g} seconds; the page stopped waiting.",
        request_id=call.request_id,
    )


def _timeout_within(timeout: httpx.Timeout, seconds: float) -> httpx.Timeout:
    def cut(value: float | None) -> float:
        return seconds if value is None else min(value, seconds)

    return httpx.Timeout(
        connect=cut(timeout.connect), read=cut(timeout.read), write=cut(timeout.write), pool=cut(timeout.pool)
    )


def _utcnow() -> datetime:
    return datetime.now(UTC)


def backoff_delay(attempt: int) -> float:
    """Full jitter: uniform in [0, min(cap, base * 2**(attempt-1))]."""
    ceiling = min(BACKOFF_MAX_SECONDS, BACKOFF_BASE_SECONDS * (2 ** (attempt - 1)))
    return random.uniform(0, ceiling)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a `Retry-After` header: an integer (decimals
    tolerated) or an HTTP date. None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - _utcnow()).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def loggable_path(path: str) -> str:
    # Query strings may carry search text; the path alone says what was called.
    return redact(path.split("?", 1)[0])


# --------------------------------------------------------------------------
# The attempts


def attempts(call: Call, *, http: httpx.Client, auth: httpx.Auth, max_retries: int | None) -> httpx.Response:
    """The one retry loop of a call: its attempts until one answers below 300
    (returned, still open when `call.stream`) or a typed `ApiError` is raised.
    `max_retries` None means `settings.SERVICE_MAX_RETRIES`."""
    configured = settings.SERVICE_MAX_RETRIES if max_retries is None else max_retries
    retries = max(0, int(configured))
    retry_after_cap = float(settings.SERVICE_RETRY_AFTER_CAP)
    tries = retries + 1
    attempt = 0
    budget = _budget_for(call)
    while True:
        attempt += 1
        timeout = call.timeout
        if budget is not None:
            if budget.left <= 0:
                raise _budget_spent_error(call, budget)
            timeout = _timeout_within(timeout, budget.left)
        started = clock()
        error: errors.ApiError
        retryable: bool
        status_text: str
        try:
            outgoing = http.build_request(
                call.method,
                call.url,
                params=call.params,
                json=call.json,
                headers=call.headers,
                timeout=timeout,
            )
            response = http.send(outgoing, auth=auth, stream=call.stream)
        except httpx.TimeoutException as exc:
            error = errors.ApiTimeoutError(request_id=call.request_id)
            # A slow call that timed out reading already waited up to 800 s.
            retryable = not (call.slow and isinstance(exc, httpx.ReadTimeout))
            status_text = type(exc).__name__
        except httpx.UnsupportedProtocol as exc:
            error = errors.ApiConnectionError("The service address is not usable.", request_id=call.request_id)
            retryable = False
            status_text = type(exc).__name__
        except httpx.TransportError as exc:
            error = errors.ApiConnectionError(request_id=call.request_id)
            retryable = True
            status_text = type(exc).__name__
        except httpx.HTTPError as exc:
            error = errors.ApiConnectionError(request_id=call.request_id)
            retryable = False
            status_text = type(exc).__name__
        else:
            if budget is not None:
                budget.spent += clock() - started
            if response.status_code < 300:
                log_attempt(
                    call,
                    attempt,
                    tries,
                    started,
                    str(response.status_code),
                    response_request_id(response, call),
                    logging.INFO,
                )
                return response
            if call.stream:
                response.read()
                response.close()
            error = error_from_response(response, fallback_request_id=call.request_id)
            retryable = response.status_code == 429 or response.status_code >= 500
            status_text = str(response.status_code)
        if budget is not None and not status_text.isdigit():
            budget.spent += clock() - started  # the attempt that failed to get an answer

        will_retry = retryable and attempt < tries
        delay = None
        if will_retry:
            delay = error.retry_after if error.retry_after is not None else backoff_delay(attempt)
            if error.retry_after is not None and error.retry_after > retry_after_cap:
                # Too long to hold a web request: let the caller show "try again in N s".
                will_retry = False
            elif budget is not None and delay >= budget.left:
                # The wait and another attempt do not fit in what is left of the page's budget.
                will_retry = False
                if isinstance(error, errors.ApiTimeoutError):
                    error = _budget_spent_error(call, budget)
        log_attempt(
            call,
            attempt,
            tries,
            started,
            status_text,
            error.request_id,
            logging.WARNING,
            retry_in=delay if will_retry else None,
        )
        if not will_retry or delay is None:
            if budget is not None and isinstance(error, errors.ApiTimeoutError) and budget.left <= 0:
                error = _budget_spent_error(call, budget)
            raise error
        sleep_before_retry(delay)
        if budget is not None:
            budget.spent += delay


_quiet: contextvars.ContextVar[bool] = contextvars.ContextVar("quiet_remote_calls", default=False)


@contextmanager
def quiet_calls() -> Iterator[None]:
    """Calls made inside log their successful attempts at DEBUG, not INFO: a
    poller's routine reads, one per row every few seconds, which the metrics
    count (console_remote_requests_total) and no operator reads line by line.
    Failures and retries keep their WARNING. Contextual: copied into the
    threads a batch fetches in (dashboard/live/services.py)."""
    token = _quiet.set(True)
    try:
        yield
    finally:
        _quiet.reset(token)


def log_attempt(
    call: Call,
    attempt: int,
    attempts: int,
    started: float,
    status: str,
    request_id: str | None,
    level: int,
    retry_in: float | None = None,
) -> None:
    # `request_id` is what we sent, `service_request_id` what the answer named (the
    # same when the service adopts ours): either one finds the call in the other's logs.
    elapsed = clock() - started
    path = loggable_path(call.path)
    message = "remote %s %s status=%s request_id=%s service_request_id=%s attempt=%d/%d elapsed=%.3fs"
    args: list[Any] = [call.method, path, status, call.request_id, request_id or "-", attempt, attempts, elapsed]
    # The same as fields of their own (a JSON line's keys), for a log system to filter
    # on: the endpoint as the contract names it (ids replaced), as the metrics label it.
    fields: dict[str, Any] = {
        "method": call.method,
        "endpoint": endpoint_template(path),
        "status": status,
        "service_request_id": request_id,
        "attempt": attempt,
        "attempts": attempts,
        "elapsed_ms": round(elapsed * 1000, 1),
    }
    if retry_in is not None:
        message += " retry_in=%.2fs"
        args.append(retry_in)
        fields["retry_in_s"] = round(retry_in, 2)
    if level == logging.INFO and _quiet.get():
        level = logging.DEBUG
    logger.log(level, message, *args, extra=fields)
    # Every attempt, where it is logged: what metrics count (dashboard/api/hooks.py).
    remote_attempt_done(RemoteAttempt(call.method, call.path, status, clock() - started, retry_in is not None))


# --------------------------------------------------------------------------
# Reading an answer


def response_request_id(response: httpx.Response, call: Call) -> str:
    return response.headers.get("X-Request-Id") or call.request_id


def error_from_response(response: httpx.Response, *, fallback_request_id: str | None = None) -> errors.ApiError:
    """A typed error from an error response, JSON or not."""
    body: Any = None
    try:
        body = response.json()
    except ValueError:
        body = None
    error_body = body.get("error") if isinstance(body, dict) else None
    message = error_type = details = None
    if isinstance(error_body, dict):
        message = error_body.get("message")
        error_type = error_body.get("type")
        details = error_body.get("details")
    elif isinstance(error_body, str):
        message = error_body
    if not isinstance(message, str) or not message.strip():
        # An HTML page from a proxy, or an empty body: say what happened, not the page.
        message = f"The service answered {response.status_code} {response.reason_phrase}".strip() + "."
    request_id = (
        (body.get("request_id") if isinstance(body, dict) else None)
        or response.headers.get("X-Request-Id")
        or fallback_request_id
    )
    error_class = errors.error_class_for(status=response.status_code, error_type=error_type)
    return error_class(
        message,
        status=response.status_code,
        type=error_type,
        details=details,
        request_id=request_id,
        retry_after=parse_retry_after(response.headers.get("Retry-After")),
    )
