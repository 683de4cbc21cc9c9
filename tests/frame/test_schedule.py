"""The one beat schedule (dashboard/schedule.py): the core's periodic work and
every area's `Periodic`, composed into Celery's `beat_schedule` once the app
is finalized (dashboard/celery.py)."""

from __future__ import annotations

import pytest

from dashboard.frame.areas import Area, Periodic, register_area, unregister_area
from dashboard.schedule import beat_schedule


def test_the_schedule_holds_the_core_and_every_area(settings):
    schedule = beat_schedule()

    tick = settings.CELERY_BEAT_TICK_SECONDS
    assert schedule["live.tick"] == {"task": "live.tick", "schedule": tick, "options": {"expires": max(tick * 4, 2.0)}}
    assert schedule["audit.prune"] == {"task": "audit.prune", "schedule": 24 * 3600.0}
    assert schedule["outbox.sweep"]["options"] == {"expires": settings.OUTBOX_SWEEP_SECONDS * 2}
    # One of each area's (agents, objects, studio, the System page).
    assert schedule["agents.insights_refresh_due"]["schedule"] == settings.AGENTS_INSIGHTS_REFRESH_SECONDS
    # Every kind of stepped job has one watch, the core's (dashboard/jobs).
    assert schedule["jobs.watch"] == {
        "task": "jobs.watch",
        "schedule": settings.JOBS_WATCH_SECONDS,
        "options": {"expires": settings.JOBS_WATCH_SECONDS},
    }
    assert "objects.jobs_watch" not in schedule
    assert schedule["studio.zips_prune"]["schedule"] == 3600.0
    assert schedule["system.probe_service"]["task"] == "system.probe_service"
    # The core's sweep of stored keys (dashboard/keys/recheck.py).
    assert schedule["keys.recheck_due"]["schedule"] == settings.KEY_SWEEP_RUN_SECONDS
    # Approval rules' outcomes at the deadline (agents/deadline_outcomes.py).
    assert schedule["agents.deadline_outcomes_due"]["schedule"] == settings.APPROVAL_OUTCOMES_SWEEP_SECONDS
    # Outbound events' delivery sweep and their daily pruning (dashboard/events).
    assert schedule["events.deliver_due"]["schedule"] == settings.EVENTS_SWEEP_SECONDS
    assert schedule["events.prune"]["schedule"] == 24 * 3600.0
    # Alert rules on aggregates, from the console's own rows (agents/alerts.py).
    assert schedule["agents.alerts_evaluate"] == {
        "task": "agents.alerts_evaluate",
        "schedule": settings.ALERTS_EVALUATE_SECONDS,
        "options": {"expires": settings.ALERTS_EVALUATE_SECONDS},
    }
    # Presence rows long past their last beat (objects/presence.py).
    assert schedule["objects.presence_prune"] == {"task": "objects.presence_prune", "schedule": 3600.0}
    assert len(schedule) == 18


def test_the_celery_app_runs_the_composed_schedule():
    from dashboard.celery import app

    app.finalize()  # what beat does once Django is set up
    assert {name: app.conf.beat_schedule[name] for name in beat_schedule()} == beat_schedule()


def test_an_area_registered_later_adds_its_periodic_work():
    register_area(Area(name="gardening", order=99, periodic=(Periodic("gardening.water", every=30.0, expires=25.0),)))
    try:
        assert beat_schedule()["gardening.water"] == {
            "task": "gardening.water",
            "schedule": 30.0,
            "options": {"expires": 25.0},
        }
    finally:
        unregister_area("gardening")
    assert "gardening.water" not in beat_schedule()


def test_a_task_declared_twice_is_refused():
    register_area(Area(name="gardening", order=99, periodic=(Periodic("live.tick", every=30.0),)))
    try:
        with pytest.raises(ValueError, match="live.tick"):
            beat_schedule()
    finally:
        unregister_area("gardening")
