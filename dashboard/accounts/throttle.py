"""A fixed-window counter in the shared cache (every web process sees the
same counts): `throttle_hit` counts one use and says how long to wait when
the window's allowance is spent."""

from __future__ import annotations

import math
import time

from django.core.cache import cache


def throttle_hit(*, scope: str, ident: str, limit: int, window_seconds: float) -> int | None:
    """Count one use of `scope` by `ident`; None while within `limit` uses per
    window, else the seconds until the window ends."""
    now = time.time()
    window = int(now // window_seconds)
    key = f"throttle:{scope}:{ident}:{window}"
    timeout = math.ceil(window_seconds) + 1
    cache.add(key, 0, timeout=timeout)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=timeout)
        count = 1
    if count <= limit:
        return None
    return max(1, math.ceil((window + 1) * window_seconds - now))
