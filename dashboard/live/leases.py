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

import uuid
from datetime import datetime, timedelta

from django.db.models import Q, QuerySet
from django.utils import timezone


def lease_is_free(now: datetime) -> Q:
    """Rows whose lease nobody holds at `now`."""
    return Q(lease_until__isnull=True) | Q(lease_until__lte=now)


def lease_take(rows: QuerySet, *, seconds: float, now: datetime | None = None) -> str | None:
    """Lease the rows of `rows` that are free, for `seconds`, in one UPDATE.
    The new token, or None when none was free."""
    now = now or timezone.now()
    token = uuid.uuid4().hex
    taken = rows.filter(lease_is_free(now)).update(lease_until=now + timedelta(seconds=seconds), lease_token=token)
    return token if taken else None


def lease_renew(rows: QuerySet, *, token: str, seconds: float, now: datetime | None = None) -> bool:
    """Extend the lease `token` holds on `rows`. False when it holds none of
    them any more (taken by another after it ran out): the holder stops. A
    lease that ran out but that nobody took is renewed: nobody else read the
    row meanwhile."""
    now = now or timezone.now()
    return bool(rows.filter(lease_token=token).update(lease_until=now + timedelta(seconds=seconds)))
