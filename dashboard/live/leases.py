"""Leases: which worker holds a row right now, for how long.

One shape for every row a worker takes for a while (a tracked operation a
poller or a stream follower holds, an object job's step): two columns,
`lease_until` and `lease_token`. A lease is taken by one conditional UPDATE
(only where it is free: never taken, or run out), so two workers never both
hold a row, on any database. Every write of the holder names its token, so a
holder whose lease ran out and was taken by another writes nothing. A holder
that dies simply lets its lease run out.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import connections
from django.db.models import Q, QuerySet
from django.utils import timezone

logger = logging.getLogger("dashboard.live")


def lease_is_free(now: datetime) -> Q:
    """Rows whose lease nobody holds at `now`."""
    return Q(lease_until__isnull=True) | Q(lease_until__lte=now)


def lease_token_new(prefix: str = "") -> str:
    """A new lease token; `prefix` names the kind of holder (a poll batch's
    "poll:"), so a reader can tell whose leases it counts."""
    return f"{prefix}{uuid.uuid4().hex}"


def lease_take(rows: QuerySet, *, seconds: float, now: datetime | None = None, token: str | None = None) -> str | None:
    """Lease the rows of `rows` that are free, for `seconds`, in one UPDATE.
    The token (a new one unless given), or None when none was free."""
    now = now or timezone.now()
    token = token or lease_token_new()
    taken = rows.filter(lease_is_free(now)).update(lease_until=now + timedelta(seconds=seconds), lease_token=token)
    return token if taken else None


def lease_renew(rows: QuerySet, *, token: str, seconds: float, now: datetime | None = None) -> bool:
    """Extend the lease `token` holds on `rows`. False when it holds none of
    them any more (taken by another after it ran out): the holder stops. A
    lease that ran out but that nobody took is renewed: nobody else read the
    row meanwhile."""
    now = now or timezone.now()
    return bool(rows.filter(lease_token=token).update(lease_until=now + timedelta(seconds=seconds)))


class LeaseRenewal:
    """Renews a lease while its holder works: a daemon thread renews `rows`
    every third of `seconds` (`renew()` may be called too), for `longest`
    seconds at most, so a holder stuck past any reasonable time lets its rows
    go like a dead one. When the process dies the thread dies with it and the
    lease runs out within `seconds`. `lost` turns true once a renewal finds
    none of the rows still held: the holder should start nothing more.

    `rows` is a callable returning the queryset, read anew at each renewal
    (the rows the holder has given back meanwhile drop out of it by their
    token); `clock` is the holder's, so that a holder with a fixed clock (a
    test, a replay) renews on its own timeline."""

    def __init__(
        self,
        rows: Callable[[], QuerySet],
        *,
        token: str,
        seconds: float,
        longest: float | None = None,
        clock: Callable[[], datetime] = timezone.now,
        name: str = "lease",
    ) -> None:
        self.rows = rows
        self.token = token
        self.seconds = seconds
        self.longest = longest
        self.clock = clock
        self.lost = False
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def __enter__(self) -> LeaseRenewal:
        self._started = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.seconds)

    def renew(self) -> bool:
        if not self.lost and not lease_renew(self.rows(), token=self.token, seconds=self.seconds, now=self.clock()):
            self.lost = True
        return not self.lost

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.seconds / 3) and not self.lost:
                if self.longest is not None and time.monotonic() - self._started > self.longest:
                    logger.warning("live: %s held past %.0f s; no longer renewed", self._thread.name, self.longest)
                    return
                try:
                    self.renew()
                except Exception:
                    # A database hiccup is not a lost lease: the next renewal tries again.
                    logger.warning("live: renewing %s failed", self._thread.name, exc_info=True)
        finally:
            connections.close_all()  # this thread's own connections
