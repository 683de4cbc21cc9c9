"""The sandbox clock: real UTC time plus a time scale for simulated durations.

Durations in the spec ("a website builds in 2-5 minutes") are *service
seconds*. `time_scale` turns them into real seconds: with 0.055 a 3-minute
build takes ~10 s, with 0.002 (tests) ~0.36 s. State machines are computed
lazily on read from stored timestamps: `clock.reached(started_at, 180)`.

Every read of "now" goes through the clock, so `clock.advance(seconds)`
(tests) moves every state machine forward at once: real time keeps flowing
underneath, and requests held open until a moment wake up when it comes.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta


def iso(dt: datetime) -> str:
    """ISO 8601 UTC with milliseconds and a `Z`: 2026-01-31T12:00:00.123Z."""
    dt = dt.astimezone(UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def parse_iso(text: str) -> datetime:
    """Parse an ISO 8601 timestamp (a trailing Z allowed); naive means UTC."""
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    dt = datetime.fromisoformat(value)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


# The longest a request is held open waiting for its work (real seconds).
MAX_WAIT_SECONDS = 800


class Clock:
    def __init__(self, time_scale: float = 1.0):
        self.time_scale = float(time_scale)
        self._offset = timedelta(0)
        # Guards the offset; `advance` notifies requests waiting in `sleep_until`.
        self._advanced = threading.Condition()

    def now(self) -> datetime:
        """Real UTC time plus everything `advance` has added."""
        with self._advanced:
            return datetime.now(UTC) + self._offset

    def advance(self, seconds: float) -> None:
        """Move `now()` forward by `seconds` real seconds, for every thread at
        once (real time keeps flowing too). Work started earlier is then that
        much further on: tests skip a build instead of sleeping through it.
        `clock.advance(clock.real_seconds(180))` skips 180 service seconds."""
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        with self._advanced:
            self._offset += timedelta(seconds=seconds)
            self._advanced.notify_all()

    def sleep_until(self, moment: datetime | str | None) -> None:
        """Hold the calling thread until `now()` reaches `moment` (at most
        MAX_WAIT_SECONDS of real time); an `advance` past it ends the wait."""
        if moment is None:
            return
        if isinstance(moment, str):
            moment = parse_iso(moment)
        deadline = time.monotonic() + MAX_WAIT_SECONDS
        with self._advanced:
            while True:
                remaining = (moment - (datetime.now(UTC) + self._offset)).total_seconds()
                left = deadline - time.monotonic()
                if remaining <= 0 or left <= 0:
                    return
                self._advanced.wait(min(remaining, left))

    def iso(self, dt: datetime | None = None) -> str:
        return iso(dt or self.now())

    def real_seconds(self, service_seconds: float) -> float:
        """How long `service_seconds` of simulated work takes in real time."""
        return service_seconds * self.time_scale

    def at(self, started_at: str, service_seconds: float) -> str:
        """The ISO time at which work started at `started_at` and lasting
        `service_seconds` (scaled) is done."""
        return iso(parse_iso(started_at) + timedelta(seconds=self.real_seconds(service_seconds)))

    def reached(self, started_at: str, service_seconds: float) -> bool:
        """True once `service_seconds` (scaled) have passed since `started_at`."""
        return self.now() >= parse_iso(started_at) + timedelta(seconds=self.real_seconds(service_seconds))

    def progress(self, started_at: str, service_seconds: float) -> float:
        """0.0 .. 1.0: how far work lasting `service_seconds` has come."""
        total = self.real_seconds(service_seconds)
        if total <= 0:
            return 1.0
        done = (self.now() - parse_iso(started_at)).total_seconds()
        return max(0.0, min(1.0, done / total))
