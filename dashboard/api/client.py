"""The one HTTP client of the remote service.

Choices worth knowing (each one is also tested in tests/api/):

- One module-level `httpx.Client` for the process (connection pooling, one
  `User-Agent`), created lazily under a lock and forgotten in a forked child
  (gunicorn/Celery prefork) so that no two processes share a socket. Its
  `base_url` is not fixed: `settings.SERVICE_BASE_URL` is read on every call,
  so tests and the sandbox can point the console elsewhere at run time.
- The API key travels only inside an `httpx.Auth` object that adds
  `Authorization: Bearer ...` to each outgoing request. It is never in a log
  line, an exception, a repr, or a plain local variable of the retry loop (so
  not even Django's DEBUG traceback page can show it). `ServiceClient` refuses
  to be pickled, so it cannot end up in a Celery task's arguments or a cache.
- `X-Request-Id`: the id of the work in hand (dashboard/observability/
  context.py): the web request's, or the task run's, so the service's logs,
  ours and the worker's share one id from the browser to the service (the
  sandbox adopts it as its own request id; the contract allows a client's).
  Every call and retry of that request carries it; the log line's path and
  `attempt=` tell them apart. Outside any request or task (a shell, a
  management command) each logical call gets a fresh one, the same on its
  retries. The server's own id (response header, or `request_id` in an error
  body) wins wherever one is reported, and each log line has both
  (`request_id=` ours, `service_request_id=` the answer's).
- `Idempotency-Key`: POST/PATCH/PUT/DELETE always carry one. When the caller
  gives none it is minted once, before the retry loop, so every attempt of
  the same logical write carries the same key and the service never does the
  work twice.
- Retries (at most `settings.SERVICE_MAX_RETRIES`): connection errors, 429,
  5xx, and timeouts. Every request is safe to repeat (reads are idempotent,
  writes are keyed). A read timeout of a slow call (up to 800 s) is NOT
  retried: the user would wait another 800 s; the key lets them retry by hand.
  Delays are exponential backoff with full jitter, or the server's
  `Retry-After` (seconds or an HTTP date) when present. A `Retry-After` longer
  than `settings.SERVICE_RETRY_AFTER_CAP` (10 s) is not slept inside a web
  request: `RateLimitedError` is raised with `.retry_after` at once. All
  sleeping goes through `sleep_before_retry()`, which tests patch.
- A read budget: inside `read_budget(seconds)` (every web request, see
  `dashboard.frame.remote_errors.RemoteErrorMiddleware`) the reads (GET) of
  that request share a total of `settings.SERVICE_READ_BUDGET` seconds
  (10), attempts and waits between them included. Each attempt's timeouts
  are cut to what is left, a retry whose wait does not fit is not made, and
  a read that finds the budget spent fails at once with `ApiTimeoutError`.
  So a hung service gives the error page in about 10 s, not 3 x 30 s.
  Writes keep their own timeouts (a turn may take minutes), and workers and
  pollers, outside any budget, keep theirs. Time is read through `clock()`,
  which tests patch with the sleep to simulate a hung service.
"""

from __future__ import annotations

import contextvars
import logging
import math
import os
import random
import threading
import time
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from django.conf import settings

from dashboard.api import errors
from dashboard.api.hooks import (
    KeyRefusal,
    RemoteAttempt,
    RemoteWrite,
    key_refused,
    remote_attempt_done,
    remote_write_done,
)
from dashboard.api.pagination import Page, items_from_body, next_cursor_from_body
from dashboard.api.sse import ServerSentEvent, iter_events
from dashboard.idempotency import new_idempotency_key
from dashboard.logging import redact
from dashboard.metrics.endpoints import endpoint_template
from dashboard.observability.context import current_request_id, new_request_id

logger = logging.getLogger("dashboard.api")

USER_AGENT = "workspace-console/0.1"
KEYED_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})
BACKOFF_BASE_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 8.0
PAGINATE_PAGE_SIZE = 100  # the contract's maximum: fewest round trips
PAGINATE_MAX_PAGES = 10_000  # a server that loops its cursors cannot hang a worker


# --------------------------------------------------------------------------
# The shared httpx.Client


_shared_client: httpx.Client | None = None
_shared_client_lock = threading.Lock()


def shared_http_client() -> httpx.Client:
    global _shared_client
    client = _shared_client
    if client is None:
        with _shared_client_lock:
            client = _shared_client
            if client is None:
                client = httpx.Client(
                    headers={"User-Agent": USER_AGENT},
                    limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
                    follow_redirects=False,
                )
                _shared_client = client
    return client


def close_shared_http_client() -> None:
    global _shared_client
    with _shared_client_lock:
        client, _shared_client = _shared_client, None
    if client is not None:
        client.close()


def _forget_shared_client_in_child() -> None:
    # The parent's sockets must not be used (nor closed) by the child: start over.
    global _shared_client, _shared_client_lock
    _shared_client = None
    _shared_client_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_shared_client_in_child)


# --------------------------------------------------------------------------
# Small patchable helpers


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


def _budget_for(call: _Call) -> ReadBudget | None:
    return _read_budget.get() if call.method == "GET" and not call.stream else None


def _budget_spent_error(call: _Call, budget: ReadBudget) -> errors.ApiTimeoutError:
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


def call_request_id() -> str:
    """The `X-Request-Id` of a call made now: the current request's or task's, else a fresh one."""
    return current_request_id() or new_request_id()


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


def _loggable_path(path: str) -> str:
    # Query strings may carry search text; the path alone says what was called.
    return redact(path.split("?", 1)[0])


# --------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class ApiResponse:
    status_code: int
    data: Any
    headers: httpx.Headers = field(repr=False)
    request_id: str | None = None


class _BearerToken(httpx.Auth):
    """Adds the key to each outgoing request; shows nothing of it."""

    def __init__(self, secret: str) -> None:
        self._secret = secret

    def auth_flow(self, request: httpx.Request):
        request.headers["Authorization"] = "Bearer " + self._secret
        yield request

    def __repr__(self) -> str:
        return "<BearerToken [hidden]>"

    def __reduce__(self):
        raise TypeError("an API key must not be pickled")


@dataclass
class _Call:
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


# --------------------------------------------------------------------------
# The client


class ServiceClient:
    """A client acting with one API key. Cheap to make: all instances share
    the module's pooled `httpx.Client`."""

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None = None,
        max_retries: int | None = None,
        acting_user_id: int | None = None,
        stored_key_id: int | None = None,
    ) -> None:
        """`max_retries` overrides `settings.SERVICE_MAX_RETRIES`; background
        pollers pass 0 so that a worker never sleeps: the next poll is the retry.
        `acting_user_id` and `stored_key_id` say who writes (for the write hook)."""
        if not api_key:
            raise ValueError("ServiceClient needs an API key")
        self._auth = _BearerToken(api_key)
        self._base_url = base_url.rstrip("/") if base_url else None
        self._max_retries = max_retries
        self.acting_user_id = acting_user_id
        self.stored_key_id = stored_key_id

    def __repr__(self) -> str:
        return f"<ServiceClient base_url={self.base_url!r} key=[hidden]>"

    def __reduce__(self):
        raise TypeError(
            "ServiceClient holds an API key and must not be pickled; pass the stored key's id to tasks instead"
        )

    def __copy__(self) -> ServiceClient:
        return self

    def __deepcopy__(self, memo: dict) -> ServiceClient:
        return self

    @property
    def base_url(self) -> str:
        return self._base_url or settings.SERVICE_BASE_URL.rstrip("/")

    # -- the interface -----------------------------------------------------

    def get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        return self.request("GET", path, params=params).data

    def post(self, path: str, json: Any = None, idempotency_key: str | None = None, slow: bool = False) -> Any:
        return self.request("POST", path, json=json, idempotency_key=idempotency_key, slow=slow).data

    def patch(self, path: str, json: Any = None, idempotency_key: str | None = None, slow: bool = False) -> Any:
        return self.request("PATCH", path, json=json, idempotency_key=idempotency_key, slow=slow).data

    def delete(self, path: str, idempotency_key: str | None = None) -> Any:
        return self.request("DELETE", path, idempotency_key=idempotency_key).data

    def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        idempotency_key: str | None = None,
        slow: bool = False,
    ) -> ApiResponse:
        call = self._prepare(method, path, params=params, json=json, idempotency_key=idempotency_key, slow=slow)
        response = self._request(call)
        return ApiResponse(
            status_code=response.status_code,
            data=_success_body(response, call),
            headers=response.headers,
            request_id=response.headers.get("X-Request-Id") or call.request_id,
        )

    def page(self, path: str, params: dict[str, Any] | None = None, *, item_key: str | None = None) -> Page:
        response = self.request("GET", path, params=params)
        return Page(
            items=items_from_body(response.data, path=path, item_key=item_key),
            next_cursor=next_cursor_from_body(response.data),
            data=response.data,
            request_id=response.request_id,
        )

    def paginate(
        self,
        path: str,
        params: dict[str, Any] | None = None,
        *,
        item_key: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Every item over every page, following `next_cursor` to the end.
        Passes `limit` (the caller's, else the contract's maximum of 100)."""
        query = {key: value for key, value in (params or {}).items() if key != "cursor"}
        query.setdefault("limit", PAGINATE_PAGE_SIZE)
        cursor = (params or {}).get("cursor")
        seen_cursors: set[str] = set()
        for _ in range(PAGINATE_MAX_PAGES):
            if cursor:
                query["cursor"] = cursor
            page = self.page(path, query, item_key=item_key)
            yield from page.items
            cursor = page.next_cursor
            if not cursor or cursor in seen_cursors:
                return
            seen_cursors.add(cursor)

    def stream(
        self,
        path: str,
        json: Any = None,
        idempotency_key: str | None = None,
    ) -> Generator[ServerSentEvent, None, None]:
        """POST with `stream: true` and yield the server-sent events.

        Nothing is sent until the first event is asked for (a generator):
        iterate inside the `try` that handles `ApiError`. `stream: true` is
        added to the body. Opening the stream is retried like any call (same
        key); once events flow, a broken connection raises
        `ApiConnectionError` instead (the caller can repeat the call with the
        same key to get the result)."""
        body = {**(json or {}), "stream": True}
        call = self._prepare("POST", path, json=body, idempotency_key=idempotency_key, slow=True, stream=True)
        response = self._request(call)
        request_id = response.headers.get("X-Request-Id") or call.request_id
        try:
            content_type = response.headers.get("content-type", "")
            if "text/event-stream" not in content_type:
                # The server answered as a waiting call would: one result.
                response.read()
                yield ServerSentEvent(event="result", data=_success_body(response, call))
                return
            try:
                yield from iter_events(response, request_id=request_id)
            except httpx.TimeoutException as exc:
                raise errors.ApiTimeoutError(
                    "The service stopped sending events in time.", request_id=request_id
                ) from exc
            except httpx.HTTPError as exc:
                raise errors.ApiConnectionError(
                    "The connection to the service broke while events were streaming.", request_id=request_id
                ) from exc
        finally:
            response.close()

    # -- internals ------------------------------------------------------------

    def _url(self, path: str) -> str:
        if "://" in path or path.startswith("//"):
            # The key must only ever go to the configured service.
            raise ValueError("ServiceClient paths are relative to SERVICE_BASE_URL")
        return f"{self.base_url}/{path.lstrip('/')}"

    def _prepare(
        self,
        method: str,
        path: str,
        *,
        params: Any = None,
        json: Any = None,
        idempotency_key: str | None = None,
        slow: bool = False,
        stream: bool = False,
    ) -> _Call:
        method = method.upper()
        request_id = call_request_id()
        headers = {
            "Accept": "text/event-stream" if stream else "application/json",
            "X-Request-Id": request_id,
        }
        if stream:
            headers["Cache-Control"] = "no-store"
        if method in KEYED_METHODS:
            # Minted once here, before any attempt: every retry reuses it.
            headers["Idempotency-Key"] = idempotency_key or new_idempotency_key()
        read_timeout = settings.SERVICE_SLOW_TIMEOUT if slow else settings.SERVICE_TIMEOUT
        connect_timeout = settings.SERVICE_CONNECT_TIMEOUT
        return _Call(
            method=method,
            path=path,
            url=self._url(path),
            params=params,
            json=json,
            headers=headers,
            timeout=httpx.Timeout(read_timeout, connect=min(connect_timeout, read_timeout)),
            slow=slow,
            stream=stream,
            request_id=request_id,
        )

    def _request(self, call: _Call) -> httpx.Response:
        """The one retry loop. Returns a successful response (still open when
        `call.stream`), or raises a typed `ApiError`. A write is reported to
        the write hook once, after its last attempt; a 401 to a stored key,
        to the refused-key hook (whatever the method)."""
        try:
            response = self._attempts(call)
        except errors.ApiError as exc:
            if exc.status == 401 and self.stored_key_id is not None:
                key_refused(KeyRefusal(stored_key_id=self.stored_key_id, request_id=exc.request_id))
            if call.method in KEYED_METHODS:
                self._report_write(call, status=exc.status, request_id=exc.request_id, error=type(exc).__name__)
            raise
        if call.method not in KEYED_METHODS:
            return response
        self._report_write(call, status=response.status_code, request_id=_response_request_id(response, call))
        return response

    def _report_write(self, call: _Call, *, status: int | None, request_id: str | None, error: str = "") -> None:
        remote_write_done(
            RemoteWrite(
                acting_user_id=self.acting_user_id,
                stored_key_id=self.stored_key_id,
                method=call.method,
                path=_loggable_path(call.path),
                idempotency_key=call.headers.get("Idempotency-Key", ""),
                status=status,
                request_id=request_id,
                error=error,
            )
        )

    def _attempts(self, call: _Call) -> httpx.Response:
        http = shared_http_client()
        configured = settings.SERVICE_MAX_RETRIES if self._max_retries is None else self._max_retries
        max_retries = max(0, int(configured))
        retry_after_cap = float(settings.SERVICE_RETRY_AFTER_CAP)
        attempts = max_retries + 1
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
                response = http.send(outgoing, auth=self._auth, stream=call.stream)
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
                    self._log(
                        call,
                        attempt,
                        attempts,
                        started,
                        str(response.status_code),
                        _response_request_id(response, call),
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

            will_retry = retryable and attempt < attempts
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
            self._log(
                call,
                attempt,
                attempts,
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

    def _log(
        self,
        call: _Call,
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
        path = _loggable_path(call.path)
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
# Reading responses


def _response_request_id(response: httpx.Response, call: _Call) -> str:
    return response.headers.get("X-Request-Id") or call.request_id


def _success_body(response: httpx.Response, call: _Call) -> Any:
    if not response.content or response.status_code == 204:
        return None
    try:
        return response.json()
    except ValueError:
        raise errors.ServerError(
            "The service sent an answer the console could not read.",
            status=response.status_code,
            request_id=_response_request_id(response, call),
        ) from None


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


__all__ = [
    "ApiResponse",
    "Page",
    "ServerSentEvent",
    "ServiceClient",
    "backoff_delay",
    "close_shared_http_client",
    "error_from_response",
    "new_request_id",
    "parse_retry_after",
    "read_budget",
    "separate_read_budget",
    "shared_http_client",
    "sleep_before_retry",
]
