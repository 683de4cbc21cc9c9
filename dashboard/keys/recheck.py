"""Asking the service again whether a stored key still works (`GET /v1/me`).

Access follows the key: the console keeps a workspace's data (conversations,
approvals, the audit trail) in its own tables and shows it only to someone
holding a working key of it. The service says so only when asked: a key
revoked in the product answers 401 from then on, and the console learns it
from the first call made with it. Two askers make sure that call comes soon:

- a page (`dashboard/frame/key_gate.py`): before showing the workspace's
  data, the person's active key is asked again once its last check is
  `KEY_RECHECK_SECONDS` old (`api_key_recheck`): at most one call per person
  per interval, and a revoked key sees the refusal from the next page on;
- beat (`keys.recheck_due`, `api_keys_recheck_due`): every stored key of an
  active person at least every `KEY_SWEEP_SECONDS`, a slice of them per run,
  one call at a time, so a departed member's key is marked refused within
  minutes even if she never opens a page again, and the workspace's
  background work (the inbox refresh, insights) stops picking it.

`checked_at` is the claim: one conditional UPDATE sets it before the call, so
two requests of one person (or a page and beat) never both ask. A 401 marks
the key refused (the transport's refused-key hook, and here again: it is
idempotent). When the service does not say (slow, down, rate-limited) the
last answer stands and the key is asked again after a short wait (its
Retry-After for a 429): the console cannot tell a revoked key from a
service that is away, and refusing everyone's kept data during a blip would
be the worse failure; any call a page makes meanwhile is answered 401 if the
key was revoked, and that refuses the page at once.
"""

from __future__ import annotations

import enum
import math
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.cache import cache
from django.db.models import F, Q
from django.utils import timezone

from dashboard.api import errors
from dashboard.api.hooks import KeyRefusal
from dashboard.keys.errors import KeyDecryptionError
from dashboard.keys.models import ApiKey
from dashboard.keys.selectors import account_identity_fetch
from dashboard.keys.services import api_key_identity_apply, api_key_refused

# After an answer that said nothing (a 5xx, a timeout), the key is asked
# again this many seconds later (a 429: after its Retry-After), not a whole
# interval later: the check is still owed.
RETRY_SECONDS = 10.0
# Beat's sweep waits this long after a 429 when the service names no Retry-After.
SWEEP_PAUSE_SECONDS = 60.0
SWEEP_PAUSED_UNTIL = "keys:sweep-paused-until"

# What a check changes on the row: what /v1/me says, and when (never the
# refusal: a key is re-checked only while it is not refused, and a 401 that
# arrives meanwhile must not be undone by this save).
IDENTITY_FIELDS = [
    "workspace_id",
    "workspace_name",
    "workspace_timezone",
    "member_id",
    "member_role",
    "key_id",
    "key_name",
    "key_created_at",
    "prefix",
    "last4",
    "last_verified_at",
    "checked_at",
]


class Recheck(enum.Enum):
    FRESH = "fresh"  # checked within the interval, or being checked right now: nothing asked
    WORKS = "works"  # /v1/me answered: the key works, its identity is stored again
    REFUSED = "refused"  # 401: the key is marked refused
    UNKNOWN = "unknown"  # the service did not say (slow, down, rate-limited, unreadable key)


@dataclass(frozen=True)
class RecheckResult:
    outcome: Recheck
    # Set for a 429: how long the service asked the console to wait.
    retry_after: float | None = None

    @property
    def refused(self) -> bool:
        return self.outcome is Recheck.REFUSED


def recheck_due(key: ApiKey, *, every_seconds: float, now: datetime | None = None) -> bool:
    """Whether `key` was last asked about `every_seconds` ago or more (no query)."""
    now = now or timezone.now()
    return key.checked_at is None or key.checked_at <= now - timedelta(seconds=every_seconds)


def _due(every_seconds: float, now: datetime) -> Q:
    return Q(checked_at__isnull=True) | Q(checked_at__lte=now - timedelta(seconds=every_seconds))


def api_key_recheck(*, key: ApiKey, every_seconds: float, now: datetime | None = None) -> RecheckResult:
    """Ask `GET /v1/me` about `key` when its last check is `every_seconds`
    old; `key` (the caller's object) is updated with what was learnt.

    FRESH without a query when it is not due; else one conditional UPDATE
    claims the check (FRESH when another request or beat holds it), then one
    call without retries (a retry is the next page or run)."""
    now = now or timezone.now()
    if key.is_refused:
        return RecheckResult(Recheck.REFUSED)
    if not recheck_due(key, every_seconds=every_seconds, now=now):
        return RecheckResult(Recheck.FRESH)
    claimed = ApiKey.objects.filter(_due(every_seconds, now), pk=key.pk, refused_at__isnull=True).update(checked_at=now)
    if not claimed:
        return RecheckResult(Recheck.FRESH)
    key.checked_at = now
    try:
        secret = key.secret()
        identity = account_identity_fetch(client=key.client(max_retries=0))
    except errors.AuthenticationError as exc:
        # The transport's hook marked it already; marking again is idempotent
        # and holds even where the hook is not registered.
        api_key_refused(KeyRefusal(stored_key_id=key.pk, request_id=exc.request_id))
        key.refresh_from_db(fields=["refused_at", "refused_request_id"])
        return RecheckResult(Recheck.REFUSED if key.is_refused else Recheck.UNKNOWN)
    except KeyDecryptionError:
        return RecheckResult(Recheck.UNKNOWN)  # the page says so itself (`require_key`)
    except errors.ApiError as exc:
        limited = isinstance(exc, errors.RateLimitedError)
        asked_wait = exc.retry_after if limited else None
        wait = min(every_seconds, asked_wait if asked_wait is not None else RETRY_SECONDS)
        retry_at = now - timedelta(seconds=every_seconds) + timedelta(seconds=max(wait, 0.0))
        ApiKey.objects.filter(pk=key.pk, checked_at=now).update(checked_at=retry_at)
        key.checked_at = retry_at
        return RecheckResult(Recheck.UNKNOWN, retry_after=(asked_wait or SWEEP_PAUSE_SECONDS) if limited else None)
    kept = (key.refused_at, key.refused_request_id, key.key_id)
    api_key_identity_apply(key, identity, secret)
    # A body without the key's id (read tolerantly) leaves the stored one.
    key.refused_at, key.refused_request_id, key.key_id = kept[0], kept[1], identity.key_id or kept[2]
    key.save(update_fields=IDENTITY_FIELDS)
    return RecheckResult(Recheck.WORKS)


@dataclass
class KeySweep:
    """What one run of beat's sweep did."""

    asked: int = 0
    refused: int = 0
    # Why the run stopped before its slice was done ("" when it was not).
    stopped: str = ""


def sweep_keys() -> Q:
    """The keys the sweep keeps checking: not refused (a refused key stays so
    until its owner checks it on the keys page), of a person still active
    (a deactivated person's keys are used by nothing)."""
    return Q(refused_at__isnull=True, user__is_active=True)


def api_keys_recheck_due(*, window_seconds: float, run_seconds: float, now: datetime | None = None) -> KeySweep:
    """One run of beat's sweep: the keys whose last check is `window_seconds`
    old, oldest first, at most the share of all keys one run must take for
    each to be asked within the window (`run_seconds` apart: 1,000 keys, a
    5-minute window and a run every 15 s make 50 a run), asked one after
    another, never all at once. A 429 pauses the sweep for its Retry-After
    and ends the run; a service that is down ends it too (the next run is the
    retry); a run never takes longer than half its interval."""
    now = now or timezone.now()
    sweep = KeySweep()
    paused_until = cache.get(SWEEP_PAUSED_UNTIL)
    if paused_until is not None and paused_until > time.time():
        sweep.stopped = "paused after the service asked the console to slow down"
        return sweep
    keys = ApiKey.objects.filter(sweep_keys())
    share = math.ceil(keys.count() * run_seconds / max(window_seconds, 1.0))
    if share == 0:
        return sweep
    due = list(keys.filter(_due(window_seconds, now)).order_by(F("checked_at").asc(nulls_first=True), "pk")[:share])
    started = time.monotonic()
    for key in due:
        if time.monotonic() - started > run_seconds / 2:
            sweep.stopped = "out of time for this run"
            break
        result = api_key_recheck(key=key, every_seconds=window_seconds, now=timezone.now())
        if result.outcome is Recheck.FRESH:
            continue  # a page asked in between
        sweep.asked += 1
        if result.refused:
            sweep.refused += 1
        elif result.outcome is Recheck.UNKNOWN and key.is_readable:
            if result.retry_after is not None:
                cache.set(SWEEP_PAUSED_UNTIL, time.time() + result.retry_after, timeout=math.ceil(result.retry_after))
                sweep.stopped = "the service asked the console to slow down"
            else:
                sweep.stopped = "the service did not answer"
            break
    return sweep
