"""A fixed-window counter in the shared cache (every web process sees the
same counts): `throttle_hit` counts one use and says how long to wait when
the window's allowance is spent (key checks, password reset requests);
`lock_failure` / `lock_remaining` lock an account for a cool-off after
repeated failures (the second sign-in step's wrong codes)."""

from __future__ import annotations

import math
import time

from django.core.cache import cache


def count_one(key: str, *, timeout: int) -> int:
    """Add one to the shared counter `key` (made, expiring after `timeout`
    seconds, when it is not there); the count now."""
    cache.add(key, 0, timeout=timeout)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=timeout)
        return 1


def throttle_hit(*, scope: str, ident: str, limit: int, window_seconds: float) -> int | None:
    """Count one use of `scope` by `ident`; None while within `limit` uses per
    window, else the seconds until the window ends."""
    now = time.time()
    window = int(now // window_seconds)
    count = count_one(f"throttle:{scope}:{ident}:{window}", timeout=math.ceil(window_seconds) + 1)
    if count <= limit:
        return None
    return max(1, math.ceil((window + 1) * window_seconds - now))


# A lock after repeated failures (the second sign-in step's wrong codes): unlike
# the fixed window above, the pause lasts the whole cool-off from the failure
# that reached the limit, so guesses cannot be bunched across a window's edge.
# Wrong codes are forgotten a cool-off after the first of them.


def _lock_keys(scope: str, ident: str) -> tuple[str, str]:
    return f"lock:{scope}:{ident}:failures", f"lock:{scope}:{ident}:until"


def lock_remaining(*, scope: str, ident: str) -> int | None:
    """Seconds until `ident`'s lock in `scope` ends, or None when not locked."""
    until = cache.get(_lock_keys(scope, ident)[1])
    if until is None:
        return None
    left = until - time.time()
    return math.ceil(left) if left > 0 else None


def lock_failure(*, scope: str, ident: str, limit: int, cool_off_seconds: float) -> int | None:
    """Count one failure; at `limit` failures `ident` is locked for
    `cool_off_seconds` (the seconds are returned), else None."""
    failures_key, until_key = _lock_keys(scope, ident)
    timeout = math.ceil(cool_off_seconds) + 1
    count = count_one(failures_key, timeout=timeout)
    if count < limit:
        return None
    cache.set(until_key, time.time() + cool_off_seconds, timeout=timeout)
    cache.delete(failures_key)
    return math.ceil(cool_off_seconds)


def lock_clear(*, scope: str, ident: str) -> None:
    """Forget `ident`'s failures and lift its lock (a right code, an administrator's reset)."""
    cache.delete_many(list(_lock_keys(scope, ident)))
