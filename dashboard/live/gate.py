"""How many remote calls the poller makes at once, per worker process.

A poll task fetches many rows at the same time from a thread pool; so may
several tasks in one process (a threads or eager pool). Every fetch takes a
slot of its API key (`LIVE_POLL_PER_KEY`) and then a slot of the service
(`LIVE_POLL_PER_SERVICE`), so one busy key cannot crowd out the others and
the service never sees more than the bound from one process. The key's slot
comes first: a thread waiting for its key holds no slot of the service.

Waiting for a slot is waiting for another call to end, not sleeping: the
calls of a poller make no retries (`ServiceClient(max_retries=0)`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings

_lock = threading.Lock()
# (scope, name, size) -> its semaphore. The size is part of the name so that a
# changed setting (tests override them) takes effect at once.
_semaphores: dict[tuple[str, str, int], threading.BoundedSemaphore] = {}
# How a slot is made: tests put in one that counts the threads waiting for it.
new_semaphore: Callable[[int], threading.BoundedSemaphore] = threading.BoundedSemaphore


def per_key_limit() -> int:
    return max(1, int(settings.LIVE_POLL_PER_KEY))


def per_service_limit() -> int:
    return max(1, int(settings.LIVE_POLL_PER_SERVICE))


def _semaphore(scope: str, name: str, size: int) -> threading.BoundedSemaphore:
    with _lock:
        semaphore = _semaphores.get((scope, name, size))
        if semaphore is None:
            semaphore = _semaphores[(scope, name, size)] = new_semaphore(size)
        return semaphore


@contextmanager
def call_slot(*, service: str, key: str) -> Iterator[None]:
    """Hold a slot of `key` and one of `service` for one remote call."""
    with _semaphore("key", key, per_key_limit()), _semaphore("service", service, per_service_limit()):
        yield


def _forget_in_child() -> None:
    # A forked worker process starts with its own, free slots (a parent's
    # thread may have held one at the moment of the fork).
    global _lock
    _lock = threading.Lock()
    _semaphores.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
