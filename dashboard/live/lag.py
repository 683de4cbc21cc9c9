"""Poll lag: how long after a row fell due it was polled (due -> polled),
kept cheaply enough to be recorded by every batch and read by the System
status page (its p95) and the metrics.

The row cannot tell: a poll overwrites `next_poll_at` with the next due
time. So each batch counts its rows' lags into fixed buckets of a per-minute
histogram in the shared cache: one `add` + `incr` per non-empty bucket (a
batch's rows mostly share one or two), atomic on Redis and locmem, so the
poller's processes never overwrite each other. Reading the last few minutes
is one `get_many`. The p95 is the upper bound of the bucket that holds it:
"95% of polls within 2 s", honest about the bucket's width.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from django.core.cache import cache

logger = logging.getLogger("dashboard.live")

# Upper bounds, seconds. A tick every 0.5 s and batches of 50 keep a healthy
# poller in the first buckets; minutes mean it is falling behind.
LAG_BUCKETS: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, float("inf"))
LAG_CACHE_KEY = "live:poll-lag:{minute}:{bucket}"
LAG_WINDOW_MINUTES = 5
# Kept a little past the window read.
LAG_KEEP_SECONDS = (LAG_WINDOW_MINUTES + 2) * 60


def _bucket(seconds: float) -> int:
    return next(index for index, bound in enumerate(LAG_BUCKETS) if seconds <= bound)


def _minute(moment: datetime) -> int:
    return int(moment.timestamp() // 60)


def poll_lag_record(lags: Iterable[float], *, now: datetime | None = None) -> None:
    """Count one batch's lags (seconds; a row polled before it was due, asked
    for at once, counts as 0). Never raises: the poll's result matters more."""
    counts: dict[int, int] = {}
    for seconds in lags:
        index = _bucket(max(seconds, 0.0))
        counts[index] = counts.get(index, 0) + 1
    if not counts:
        return
    minute = _minute(now or datetime.now(UTC))
    try:
        for index, count in counts.items():
            key = LAG_CACHE_KEY.format(minute=minute, bucket=index)
            cache.add(key, 0, timeout=LAG_KEEP_SECONDS)
            cache.incr(key, count)
    except Exception:
        logger.warning("live: the poll lag could not be recorded", exc_info=True)


@dataclass(frozen=True)
class PollLag:
    polls: int  # polls counted in the window
    p95_at_most: float | None  # seconds (inf: beyond the last bound); None: no polls


def poll_lag_recent(*, now: datetime | None = None, minutes: int = LAG_WINDOW_MINUTES) -> PollLag:
    """The lag of the polls of the last `minutes` (this minute included)."""
    last = _minute(now or datetime.now(UTC))
    keys = [
        LAG_CACHE_KEY.format(minute=minute, bucket=index)
        for minute in range(last - minutes + 1, last + 1)
        for index in range(len(LAG_BUCKETS))
    ]
    found = cache.get_many(keys)
    totals = [0] * len(LAG_BUCKETS)
    for key, value in found.items():
        if isinstance(value, int):
            totals[int(key.rsplit(":", 1)[1])] += value
    polls = sum(totals)
    if not polls:
        return PollLag(polls=0, p95_at_most=None)
    needed = 0.95 * polls
    running = 0
    for index, count in enumerate(totals):
        running += count
        if running >= needed:
            return PollLag(polls=polls, p95_at_most=LAG_BUCKETS[index])
    return PollLag(polls=polls, p95_at_most=LAG_BUCKETS[-1])
