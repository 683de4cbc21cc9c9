"""The request id (and the acting user's id) of the work in hand.

One id ties together a web request, every task it sends and every call to
the service they make: it is made at the web edge (`middleware.py`), carried
in task headers (`tasks.py`), sent as `X-Request-Id` by the transport
(`dashboard/api/client.py`) and written on every log line
(`dashboard/logging.py`). Contextvars, so that threads of one gunicorn
worker, eager tasks inside a request and a thread pool given a copied
context each see their own.

Plain stdlib: imported by the logging setup before Django is ready.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token

_request_id: ContextVar[str | None] = ContextVar("console_request_id", default=None)
_user_id: ContextVar[int | None] = ContextVar("console_user_id", default=None)
# The path a request acts through when it is not the person's browser ("token Release script").
_acting_via: ContextVar[str] = ContextVar("console_acting_via", default="")

# What an id taken from outside (a proxy's header, a task header) may look
# like: short, and only characters that are safe in a log line, a header and a
# URL (no spaces, quotes, newlines or control characters: no log injection,
# no header splitting). Anything else is replaced by an id of our own.
REQUEST_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:\-]{0,127}")


def new_request_id() -> str:
    """A fresh id, shaped like the service's own (`req_...`) so that both read alike."""
    return f"req_console_{secrets.token_hex(16)}"


def valid_request_id(value: object) -> str | None:
    """`value` when it is an id of the accepted shape, else None."""
    if isinstance(value, str) and REQUEST_ID_PATTERN.fullmatch(value):
        return value
    return None


def current_request_id() -> str | None:
    return _request_id.get()


def current_user_id() -> int | None:
    return _user_id.get()


def current_via() -> str:
    return _acting_via.get()


def acting_via(via: str) -> Token[str]:
    """Make `via` current (the console API's token); reset with the returned token."""
    return _acting_via.set(via)


def acting_via_reset(token: Token[str]) -> None:
    _acting_via.reset(token)


def set_user_id(user_id: int | None) -> None:
    """The person the current request acts for (set once authentication has run;
    undone with the request id's scope: the token of `bind` resets both)."""
    _user_id.set(user_id)


class Bound:
    """The tokens of one `bind()`: `reset()` puts back what was there before."""

    def __init__(self, request_id: Token[str | None], user_id: Token[int | None]) -> None:
        self._request_id = request_id
        self._user_id = user_id

    def reset(self) -> None:
        try:
            _user_id.reset(self._user_id)
            _request_id.reset(self._request_id)
        except (ValueError, RuntimeError):
            # Reset from another context than the one bound (a task pool that
            # ran prerun and postrun apart): nothing to put back there, but no
            # id may outlive its work either.
            _user_id.set(None)
            _request_id.set(None)


def bind(request_id: str, *, user_id: int | None = None) -> Bound:
    """Make `request_id` (and `user_id`) current until the returned `Bound` is reset."""
    return Bound(_request_id.set(request_id), _user_id.set(user_id))


@contextmanager
def request_id_scope(request_id: str | None = None, *, user_id: int | None = None) -> Iterator[str]:
    """Work done inside carries `request_id` (a new one when not given)."""
    request_id = request_id or new_request_id()
    bound = bind(request_id, user_id=user_id)
    try:
        yield request_id
    finally:
        bound.reset()
