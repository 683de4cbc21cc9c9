"""The sandbox clock moved on by hand: `Clock.advance` shifts "now" for every
reader while real time keeps flowing, wakes requests held open until a
moment, and through `start_sandbox(...).advance` finishes work a test would
otherwise wait for."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from sandbox.clock import Clock
from sandbox.studio import DIRECTOR_SECONDS
from tests.helpers import running_sandbox
from tests.sandbox.support import http_client


def test_advance_moves_now_forward_and_real_time_keeps_flowing():
    clock = Clock(time_scale=1.0)
    before = clock.now()
    clock.advance(3600)
    after = clock.now()
    # At least the hour added; the rest is the real time the two calls took.
    assert timedelta(hours=1) <= after - before < timedelta(hours=1, minutes=1)
    assert clock.now() >= after


def test_work_is_reached_once_the_clock_is_advanced_past_it():
    # A service second is a real second here: nothing finishes on its own.
    clock = Clock(time_scale=1.0)
    started = clock.iso()
    assert not clock.reached(started, 600)
    assert clock.progress(started, 600) < 0.5

    clock.advance(clock.real_seconds(300))
    assert not clock.reached(started, 600)
    assert 0.5 <= clock.progress(started, 600) < 1.0

    clock.advance(clock.real_seconds(300))
    assert clock.reached(started, 600)
    assert clock.progress(started, 600) == 1.0


def test_advance_refuses_to_move_backwards():
    clock = Clock()
    with pytest.raises(ValueError):
        clock.advance(-1)


def test_an_advance_past_the_moment_ends_a_wait_at_once():
    clock = Clock(time_scale=1.0)
    moment = clock.now() + timedelta(minutes=10)
    waiter = threading.Thread(target=clock.sleep_until, args=(clock.iso(moment),), daemon=True)
    waiter.start()
    waiter.join(timeout=0.2)
    assert waiter.is_alive(), "the wait lasts until the moment"

    clock.advance(600)
    # A bound, not a timing: the wait ends on the advance, ten real minutes early.
    waiter.join(timeout=10)
    assert not waiter.is_alive()
    assert clock.now() >= moment


def test_advancing_a_running_sandbox_finishes_its_work_on_the_next_read():
    # Unscaled time: the director takes its real seconds, so the turn stays
    # `building` until the test moves the server's clock.
    with running_sandbox(time_scale=1.0) as handle, http_client(handle, handle.demo_key) as api:
        created = api.post(
            "/v1/studio/app/turns",
            json={"message": "Build an app to log the hours of each volunteer", "background": True},
        )
        assert created.status_code == 202
        turn_url = f"/v1/turns/{created.json()['id']}"
        assert api.get(turn_url).json()["status"] == "building"

        handle.advance(service_seconds=DIRECTOR_SECONDS["app"])

        done = api.get(turn_url).json()
        assert done["status"] == "completed" and done["artifact"]["type"] == "app"
