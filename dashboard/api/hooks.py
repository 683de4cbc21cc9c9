"""The one hook every remote write passes through.

The transport calls each registered hook once per logical write (POST,
PATCH, PUT, DELETE), after its last attempt, whatever the outcome: who acted,
with which stored key, what was called, the Idempotency-Key, the status and
the request id. An audit trail, notifications or metrics subscribe here
instead of wrapping every service function. A hook never breaks the write:
its exceptions are logged and swallowed. Hooks run in the calling thread
(a web request or a worker task), so they must be quick.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

logger = logging.getLogger("dashboard.api.writes")


@dataclass(frozen=True)
class RemoteWrite:
    acting_user_id: int | None  # the console user whose key was used
    stored_key_id: int | None  # the console's ApiKey row
    method: str
    path: str  # without the query string
    idempotency_key: str
    status: int | None  # None: no answer (unreachable, timed out)
    request_id: str | None
    error: str = ""  # the typed error's class name when it failed
    via: str = ""  # not the person's browser: "token <name>" (the console API)

    @property
    def succeeded(self) -> bool:
        return self.status is not None and self.status < 300


WriteHook = Callable[[RemoteWrite], object]  # what a hook returns is ignored
_hooks: list[WriteHook] = []


def on_remote_write(hook: WriteHook) -> WriteHook:
    """Register `hook` (again: harmless). Usable as a decorator."""
    if hook not in _hooks:
        _hooks.append(hook)
    return hook


def remove_write_hook(hook: WriteHook) -> None:
    if hook in _hooks:
        _hooks.remove(hook)


def remote_write_done(write: RemoteWrite) -> None:
    """Called by the transport; runs every hook."""
    for hook in list(_hooks):
        try:
            hook(write)
        except Exception:
            logger.exception("a remote-write hook failed (the write itself is unaffected)")


def log_remote_write(write: RemoteWrite) -> None:
    """The core's own hook: one line per write, with who did it."""
    logger.info(
        "remote write %s %s by user=%s key=%s status=%s request_id=%s idempotency_key=%s%s",
        write.method,
        write.path,
        write.acting_user_id,
        write.stored_key_id,
        write.status if write.status is not None else "none",
        write.request_id,
        write.idempotency_key,
        f" error={write.error}" if write.error else "",
    )


# --- refused keys ----------------------------------------------------------------
# The transport knows only a stored key's id; what a refusal means to the
# console (the key's row marked refused) belongs to the keys app, which
# registers here. Called for every call (read, write, stream) made with a
# stored key that the service answered 401, in the calling thread; a hook
# never breaks the call (its exceptions are logged and swallowed).


@dataclass(frozen=True)
class KeyRefusal:
    stored_key_id: int
    request_id: str | None


RefusalHook = Callable[[KeyRefusal], object]
_refusal_hooks: list[RefusalHook] = []


def on_key_refused(hook: RefusalHook) -> RefusalHook:
    """Register `hook` (again: harmless). Usable as a decorator."""
    if hook not in _refusal_hooks:
        _refusal_hooks.append(hook)
    return hook


def key_refused(refusal: KeyRefusal) -> None:
    """Called by the transport; runs every refusal hook."""
    for hook in list(_refusal_hooks):
        try:
            hook(refusal)
        except Exception:
            logger.exception("a refused-key hook failed (the call's own error is unaffected)")


# --- attempts (metrics) ------------------------------------------------------------
# Every attempt of every call (read, write, stream; each retry apart), once it
# has an answer or failed to get one: what metrics count (dashboard/metrics
# registers here when METRICS_ENABLED). Called in the calling thread, after the
# attempt's log line; with no hook registered it costs one empty loop.


@dataclass(frozen=True)
class RemoteAttempt:
    method: str
    path: str  # as called, ids and query included: a hook keeps only what it may label
    status: str  # the HTTP status, or the httpx error's class name when nothing was answered
    seconds: float
    retried: bool  # the transport waits and calls again after this one


AttemptHook = Callable[[RemoteAttempt], object]
_attempt_hooks: list[AttemptHook] = []


def on_remote_attempt(hook: AttemptHook) -> AttemptHook:
    """Register `hook` (again: harmless). Usable as a decorator."""
    if hook not in _attempt_hooks:
        _attempt_hooks.append(hook)
    return hook


def remove_attempt_hook(hook: AttemptHook) -> None:
    if hook in _attempt_hooks:
        _attempt_hooks.remove(hook)


def remote_attempt_done(attempt: RemoteAttempt) -> None:
    """Called by the transport; runs every attempt hook."""
    for hook in list(_attempt_hooks):
        try:
            hook(attempt)
        except Exception:
            logger.exception("a remote-attempt hook failed (the call itself is unaffected)")
