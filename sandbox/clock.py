"""The sandbox clock: real UTC time plus a time scale for simulated durations.

Durations in the spec ("a website builds in 2-5 minutes") are *service
seconds*. `time_scale` turns them into real seconds: with 0.055 a 3-minute
build takes ~10 s, with 0.002 (tests) ~0.36 s. State machines are computed
lazily on read from stored timestamps: `clock.reached(started_at, 180)`.
"""

from __future__ import annotations

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


class Clock:
    def __init__(self, time_scale: float = 1.0):
        self.time_scale = float(time_scale)

    def now(self) -> datetime:
        return datetime.now(UTC)

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
