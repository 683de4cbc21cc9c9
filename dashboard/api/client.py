"""The one HTTP client of the remote service. It makes each call (the URL,
the headers, the key, the write hook) and hands it to its attempts
(dashboard/api/attempts.py: the retry loop, the waits, the read budget).

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
  sleeping goes through `attempts.sleep_before_retry()`, which tests patch.
- A read budget: inside `read_budget(seconds)` (every web request, see
  `dashboard.frame.remote_errors.RemoteErrorMiddleware`) the reads (GET) of
  that request share a total of `settings.SERVICE_READ_BUDGET` seconds
  (10), attempts and waits between them included. Each attempt's timeouts
  are cut to what is left, a retry whose wait does not fit is not made, and
  a read that finds the budget spent fails at once with `ApiTimeoutError`.
  So a hung service gives the error page in about 10 s, not 3 x 30 s.
  Writes keep their own timeouts (a turn may take minutes), and workers and
  pollers, outside any budget, keep theirs. Time is read through `attempts.clock()`,
  which tests patch with the sleep to simulate a hung service.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from django.conf import settings

from dashboard.api import errors
from dashboard.api.attempts import Call, attempts, loggable_path, response_request_id
from dashboard.api.hooks import KeyRefusal, RemoteWrite, key_refused, remote_write_done
from dashboard.api.pagination import Page, items_from_body, next_cursor_from_body
from dashboard.api.sse import ServerSentEvent, iter_events
from dashboard.idempotency import new_idempotency_key
from dashboard.observability.context import current_request_id, current_via, new_request_id

USER_AGENT = "workspace-console/0.1"
KEYED_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})
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


def call_request_id() -> str:
    """The `X-Request-Id` of a call made now: the current request's or task's, else a fresh one."""
    return current_request_id() or new_request_id()


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
    ) -> Call:
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
        return Call(
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

    def _request(self, call: Call) -> httpx.Response:
        """The one retry loop. Returns a successful response (still open when
        `call.stream`), or raises a typed `ApiError`. A write is reported to
        the write hook once, after its last attempt; a 401 to a stored key,
        to the refused-key hook (whatever the method)."""
        try:
            response = attempts(call, http=shared_http_client(), auth=self._auth, max_retries=self._max_retries)
        except errors.ApiError as exc:
            if exc.status == 401 and self.stored_key_id is not None:
                key_refused(KeyRefusal(stored_key_id=self.stored_key_id, request_id=exc.request_id))
            if call.method in KEYED_METHODS:
                self._report_write(call, status=exc.status, request_id=exc.request_id, error=type(exc).__name__)
            raise
        if call.method not in KEYED_METHODS:
            return response
        self._report_write(call, status=response.status_code, request_id=response_request_id(response, call))
        return response

    def _report_write(self, call: Call, *, status: int | None, request_id: str | None, error: str = "") -> None:
        remote_write_done(
            RemoteWrite(
                acting_user_id=self.acting_user_id,
                stored_key_id=self.stored_key_id,
                method=call.method,
                path=loggable_path(call.path),
                idempotency_key=call.headers.get("Idempotency-Key", ""),
                status=status,
                request_id=request_id,
                error=error,
                via=current_via(),
            )
        )


# --------------------------------------------------------------------------
# Reading responses


def _success_body(response: httpx.Response, call: Call) -> Any:
    if not response.content or response.status_code == 204:
        return None
    try:
        return response.json()
    except ValueError:
        raise errors.ServerError(
            "The service sent an answer the console could not read.",
            status=response.status_code,
            request_id=response_request_id(response, call),
        ) from None


__all__ = [
    "ApiResponse",
    "Page",
    "ServerSentEvent",
    "ServiceClient",
    "close_shared_http_client",
    "new_request_id",
    "shared_http_client",
]
