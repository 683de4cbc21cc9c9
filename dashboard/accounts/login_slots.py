"""A bounded number of password checks at once, per web process.

A password hash (PBKDF2, about half a second of one core by design) is the
most expensive thing a request does. Fifty people logging in within ten
seconds on two cores made every login wait about 12 s, and every other
person's page waited behind them. So a login's password check takes a slot:
LOGIN_HASHES_AT_ONCE per process, with at most LOGIN_HASH_QUEUE more
requests waiting for one (a waiting thread uses no CPU), each for at most
LOGIN_HASH_WAIT_SECONDS. A burst then keeps at most that many of a
process's cores and threads, and the rest serve pages; a login that finds
the queue full, or waits too long, gets the login page again with its
username and words saying when to try (429, Retry-After), and nothing is
counted against the account (no password was checked).

A queue, not only a refusal: a person logging in during a burst usually
waits a second or two and is in, instead of being told to come back. Per
process, not shared: the resource guarded is this process's share of the
machine's cores, and a shared counter would need a lock held across the
hash.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

_lock = threading.Lock()
_slots: threading.BoundedSemaphore | None = None
_slots_size = 0
_waiting = 0


def _semaphore() -> threading.BoundedSemaphore:
    global _slots, _slots_size
    size = max(1, settings.LOGIN_HASHES_AT_ONCE)
    with _lock:
        if _slots is None or _slots_size != size:  # settings changed (tests): a new set of slots
            _slots, _slots_size = threading.BoundedSemaphore(size), size
        return _slots


def busy_retry_after() -> int:
    """What a refused login is told to wait: about the time the queue takes to drain."""
    return max(1, math.ceil(settings.LOGIN_HASH_WAIT_SECONDS / 2))


@contextmanager
def password_check_slot() -> Iterator[bool]:
    """Hold a slot for one password check; yields False (holding nothing)
    when the queue is full or no slot freed in time."""
    global _waiting
    slots = _semaphore()
    if not slots.acquire(blocking=False):
        with _lock:
            if _waiting >= settings.LOGIN_HASH_QUEUE:
                yield False
                return
            _waiting += 1
        try:
            got = slots.acquire(timeout=settings.LOGIN_HASH_WAIT_SECONDS)
        finally:
            with _lock:
                _waiting -= 1
        if not got:
            yield False
            return
    try:
        yield True
    finally:
        slots.release()
