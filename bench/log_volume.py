"""Log volume bench: bytes of log an operator keeps, before and after the
poller's routine calls went to DEBUG and beat's ticks off INFO (#31).

    .venv/bin/python bench/log_volume.py [--ops 300] [--polls 1000] [--json]

Two figures, each side by side in one run:

* Per 1,000 polls: `--ops` tracked Studio turns polled in batches by the
  poller's own code (`operations_poll_due`) against a mocked service (the
  log lines are the transport's, whatever answers), every line written by
  the console's JSON formatter at LOG_LEVEL=INFO, as compose runs it.
  "info" is the old design (each poll's remote line at INFO), "debug" the
  new one (`quiet_calls`: only failures and retries at WARNING).
* Beat idle, per day: beat's line for each tick (every 0.5 s) through the
  `celery.beat` logger at INFO (the old behaviour) and as configured now
  (CELERY_BEAT_LOG_LEVEL, WARNING by default), scaled to a day.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import sys
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import django_in, throwaway  # noqa: E402

DAY = 24 * 3600


def poll_log_bytes(*, ops: int, polls: int) -> dict[str, float]:
    import httpx
    import respx
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from dashboard.keys.testing import stored_api_key
    from dashboard.live import services
    from dashboard.live.services import operation_track

    user = get_user_model().objects.create_user(username="bench-logs")
    # Never sent anywhere real (the service is mocked); made here so no key-shaped text is committed.
    key = stored_api_key(user=user, secret="svc_sk_" + os.urandom(20).hex(), workspace_id="ws-logs")
    for number in range(ops):
        operation_track(owner_key=key, kind="studio.turn", remote_id=f"turn-{number:04d}", title="Bench turn")

    console = logging.getLogger("dashboard")
    console.setLevel(logging.INFO)
    stream = _captured(console)

    def turn(request: httpx.Request) -> httpx.Response:
        turn_id = request.url.path.rsplit("/", 1)[-1]
        return httpx.Response(200, json={"id": turn_id, "object": "studio.turn", "status": "building"})

    rounds: dict[str, list[float]] = {"info": [], "debug": []}
    now = timezone.now()
    try:
        with respx.mock(base_url=settings.SERVICE_BASE_URL, assert_all_called=False) as remote:
            remote.get(url__regex=r"/v1/turns/.+").mock(side_effect=turn)
            for design in ("info", "debug", "info", "debug"):  # turn about, twice
                quiet = services.quiet_calls if design == "debug" else contextlib.nullcontext
                saved = services.quiet_calls
                services.quiet_calls = quiet  # type: ignore[assignment]
                stream.seek(0)
                stream.truncate()
                done = 0
                try:
                    while done < polls:
                        now += timedelta(seconds=15)  # every row due again
                        report = services.operations_poll_due(now=now, limit=min(50, polls - done))
                        done += report.polled
                finally:
                    services.quiet_calls = saved  # type: ignore[assignment]
                rounds[design].append(len(stream.getvalue().encode()) * 1000 / done)
    finally:
        _release(console)
    return {design: sum(values) / len(values) for design, values in rounds.items()}


def beat_bytes_per_day(*, ticks: int = 1000) -> dict[str, float]:
    """Beat's lines per day when idle: the line celery.beat writes for every
    tick ("Scheduler: Sending due task ..." at INFO, celery/beat.py), sent
    through the `celery.beat` logger as configured (settings.LOGGING,
    CELERY_BEAT_LOG_LEVEL) and at INFO (the old behaviour), formatted by the
    console's JSON formatter, scaled to a day of ticks every
    CELERY_BEAT_TICK_SECONDS. In-process: a real beat needs a broker and
    half a minute to start on a busy machine, and writes nothing else."""
    from django.conf import settings

    beat_logger = logging.getLogger("celery.beat")
    configured = beat_logger.level
    per_day = DAY / float(settings.CELERY_BEAT_TICK_SECONDS)
    figures: dict[str, float] = {}
    for design, level in (("info", logging.INFO), ("now", configured)):
        stream = _captured(beat_logger)
        beat_logger.setLevel(level)
        try:
            for _ in range(ticks):
                beat_logger.info("Scheduler: Sending due task %s (%s)", "live-tick", "live.tick")
        finally:
            beat_logger.setLevel(configured)
            _release(beat_logger)
        figures[design] = len(stream.getvalue().encode()) * per_day / ticks
    return figures


def _captured(logger: logging.Logger) -> io.StringIO:
    """The console's JSON lines of `logger`, into a string (and nowhere else meanwhile)."""
    from dashboard.logging import JsonFormatter, RedactApiKeys, RequestContext

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestContext())
    handler.addFilter(RedactApiKeys())
    logger.addHandler(handler)
    logger.propagate = False
    return stream


def _release(logger: logging.Logger) -> None:
    for handler in list(logger.handlers):
        if isinstance(handler, logging.StreamHandler) and isinstance(handler.stream, io.StringIO):
            logger.removeHandler(handler)
    logger.propagate = True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=300, help="tracked operations (default 300)")
    parser.add_argument("--polls", type=int, default=1000, help="polls per design and round (default 1000)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    os.environ["LOG_LEVEL"] = "INFO"
    os.environ["LOG_FORMAT"] = "json"
    with throwaway() as tmp, django_in(tmp):
        polls = poll_log_bytes(ops=args.ops, polls=args.polls)
        beat = beat_bytes_per_day()
    # A day at `ops` operations polled every 10 s (the later interval).
    per_day = {design: value * args.ops * DAY / 10 / 1000 for design, value in polls.items()}
    figures = {
        "poll_bytes_per_1000": polls,
        "poll_bytes_per_day": per_day,
        "beat_idle_bytes_per_day": beat,
        "ops": args.ops,
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"Log bytes per 1,000 polls: {polls['info']:,.0f} at INFO (before), {polls['debug']:,.0f} now")
    print(
        f"  a day at {args.ops} operations polled every 10 s: "
        f"{per_day['info'] / 1e6:,.1f} MB before, {per_day['debug'] / 1e6:,.2f} MB now"
    )
    print(f"Beat idle, bytes per day: {beat['info'] / 1e6:,.1f} MB at INFO (before), {beat['now'] / 1e6:,.3f} MB now")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
