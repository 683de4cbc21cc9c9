"""Whether the remote service answers, and how fast: one GET of `/v1/me`
without a key.

Why without a key: every endpoint of the contract needs one, and a missing
key is answered 401 (`error.type` = authentication) by the service itself,
after its TLS, routing and authentication layers ran. So any HTTP answer below
500 proves the service is reachable and gives its latency, with no key near
the probe: none to leak, none to get marked refused, and no dependence on
which administrator looks (or whether they stored a key). A 5xx is "answering
with errors", a connection error or timeout "unreachable" (its class name).

The probe is made by a worker (`system.probe_service`, every
SERVICE_PROBE_SECONDS by beat) only while someone has the System status page
open (`probe_wanted`), and by the page itself when no fresh result exists; the
page's 5-second poll only reads the result from the cache, so a poll never
calls the service. At most one probe per SERVICE_PROBE_SECONDS, whoever asks.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

import httpx
from django.conf import settings
from django.core.cache import cache

from dashboard.api.client import shared_http_client
from dashboard.probes import OK, error_word

logger = logging.getLogger("dashboard.system")

PROBE_PATH = "/v1/me"
PROBE_TIMEOUT = 3.0  # seconds, connect and read: a slow answer is news in itself
SERVICE_PROBE_SECONDS = 15
PROBE_CACHE_KEY = "system:service-probe"
WANTED_CACHE_KEY = "system:service-probe:wanted"
# The page polls every 5 s; a minute without a poll means nobody is looking.
WANTED_SECONDS = 60
# A result is shown for this long; older, the page says it is not measured.
PROBE_KEEP_SECONDS = 5 * 60


@dataclass(frozen=True)
class ServiceProbe:
    check: str  # "ok", "error: ServerError" (a 5xx), or "error: <exception class>"
    http_status: int | None
    milliseconds: int | None  # None when nothing answered
    measured_at: float  # epoch seconds

    @property
    def reachable(self) -> bool:
        return self.http_status is not None

    @property
    def measured(self) -> datetime:
        return datetime.fromtimestamp(self.measured_at, UTC)


def service_probe_measure() -> ServiceProbe:
    """One GET, no retries, PROBE_TIMEOUT; stored for the page and answered."""
    started = time.monotonic()
    try:
        response = shared_http_client().get(
            f"{settings.SERVICE_BASE_URL}{PROBE_PATH}", timeout=httpx.Timeout(PROBE_TIMEOUT)
        )
    except Exception as exc:  # unreachable, refused, timed out: the class says which
        probe = ServiceProbe(check=error_word(exc), http_status=None, milliseconds=None, measured_at=time.time())
    else:
        milliseconds = round((time.monotonic() - started) * 1000)
        check = OK if response.status_code < 500 else "error: ServerError"
        probe = ServiceProbe(
            check=check, http_status=response.status_code, milliseconds=milliseconds, measured_at=time.time()
        )
    try:
        cache.set(PROBE_CACHE_KEY, asdict(probe), timeout=PROBE_KEEP_SECONDS)
    except Exception:  # the cache down: shown once; the page names the cache
        logger.warning("system: the service probe's result could not be stored", exc_info=True)
    return probe


def service_probe_last() -> ServiceProbe | None:
    """The latest stored result, or None (never measured, too long ago, or the cache failing)."""
    try:
        value = cache.get(PROBE_CACHE_KEY)
    except Exception:
        return None
    if not isinstance(value, dict):
        return None
    try:
        return ServiceProbe(**value)
    except TypeError:  # stored by another version of this module
        return None


def service_probe_fresh(*, now: float | None = None) -> ServiceProbe:
    """The latest result when younger than SERVICE_PROBE_SECONDS, else a new
    measurement (the page's full load; never its poll)."""
    last = service_probe_last()
    if last is not None and (now or time.time()) - last.measured_at < SERVICE_PROBE_SECONDS:
        return last
    return service_probe_measure()


def probe_wanted_mark() -> None:
    """Someone has the status page open: the worker keeps the probe fresh.
    A failing cache must not fail the page that reports it."""
    try:
        cache.set(WANTED_CACHE_KEY, True, timeout=WANTED_SECONDS)
    except Exception:
        logger.warning("system: the status page's watch could not be recorded", exc_info=True)


def probe_wanted() -> bool:
    return bool(cache.get(WANTED_CACHE_KEY))
