"""The one beat schedule: the core's periodic work, declared here, and each
area's, declared on its `Area(periodic=...)` (dashboard/frame/areas.py),
composed into Celery's `beat_schedule` here, and only here, once every area
has registered (`compose_beat_schedule`, connected by dashboard/apps.py).
Nothing else writes `beat_schedule` (tests/layout/test_one_home.py): new
periodic work is a `Periodic` in the list below (the core) or on its area,
never an `app.conf` edit in `ready()`.

It sits above the frame (it reads the area registry), so dashboard/celery.py,
which everything imports, cannot hold it.
"""

from __future__ import annotations

from typing import Any

from celery import Celery
from django.apps import apps
from django.conf import settings

from dashboard.frame.areas import Periodic, areas


def core_periodic() -> tuple[Periodic, ...]:
    """The core's periodic work. Read when the schedule is composed (its
    intervals are settings, and this module may be imported before they load)."""
    tick = float(settings.CELERY_BEAT_TICK_SECONDS)
    inbox = float(settings.INBOX_REFRESH_SECONDS)
    watched = float(settings.INBOX_WATCHED_REFRESH_SECONDS)
    outbox = float(settings.OUTBOX_SWEEP_SECONDS)
    reach = float(settings.REACH_SWEEP_SECONDS)
    keys = float(settings.KEY_SWEEP_RUN_SECONDS)
    jobs = float(settings.JOBS_WATCH_SECONDS)
    return (
        # The live poller (0.5 s by default: a row due just after a tick waits
        # at most that long; the tick itself is one count query). A tick that
        # waited a few intervals is worth nothing (a newer one is queued behind
        # it): it expires, so ticks alone never fill the queue of a slow worker.
        # Nothing depends on a given tick: poll messages never expire, and one
        # that ran out of budget with rows still due sends its successor itself.
        Periodic("live.tick", every=tick, expires=max(tick * 4, 2.0)),
        # The audit trail's retention, once a day.
        Periodic("audit.prune", every=24 * 3600.0),
        # The inbox reads each workspace's approvals and runs; workspaces
        # someone is looking at, more often (dashboard/inbox/services.py).
        Periodic("inbox.refresh_all", every=inbox, expires=inbox),
        Periodic("inbox.refresh_watched", every=watched, expires=watched),
        # Tasks a start stored while the broker could not take them (dashboard/outbox).
        Periodic("outbox.sweep", every=outbox, expires=outbox * 2),
        # Notifications whose time came: digests, quiet hours ended, retries (dashboard/reach).
        Periodic("reach.deliver_due", every=reach, expires=reach),
        # Every stored key asked again at least every KEY_SWEEP_SECONDS
        # (dashboard/keys/recheck.py): a slice of them per run, so a key revoked
        # in the product is refused within minutes even if its owner opens no
        # page. A run that waited longer than its interval is stale.
        Periodic("keys.recheck_due", every=keys, expires=keys),
        # Every kind of stepped job (dashboard/jobs): one whose step message was
        # lost, or whose worker died, is sent on. A watch that waited longer
        # than its interval expires unread (the next one does the same).
        Periodic("jobs.watch", every=jobs, expires=jobs),
    )


def periodic_work() -> list[Periodic]:
    """The core's periodic work, then every registered area's, in the areas' order."""
    return [*core_periodic(), *(work for area in areas() for work in area.periodic)]


def beat_schedule() -> dict[str, dict[str, Any]]:
    """Celery's `beat_schedule`: one entry per task, named after it."""
    schedule: dict[str, dict[str, Any]] = {}
    for work in periodic_work():
        if work.task in schedule:
            raise ValueError(f"periodic task {work.task!r} is declared twice")
        schedule[work.task] = work.entry()
    return schedule


def compose_beat_schedule(sender: Celery, **kwargs: Any) -> None:
    """Celery's on_after_finalize: beat finalizes the app after Django's setup,
    when every area has registered itself. Entries already there (none, once
    every module declares its work here) are kept."""
    if not apps.ready:  # a process that never set Django up runs no beat
        return
    sender.conf.beat_schedule = {**(sender.conf.beat_schedule or {}), **beat_schedule()}
