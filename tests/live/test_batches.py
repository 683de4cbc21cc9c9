"""The poller in batches: one task polls many rows, concurrently within bounds
per key and per service, writes them in a constant number of queries, never
writes a row whose lease it lost, and a 429 puts off only its key's rows.

Concurrency is observed, not timed: the fake service holds the first calls
until every thread of the pool is in a call or waiting for a slot, and
records the most calls it saw in flight at once (FirstWave)."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import httpx
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.live import claims, gate, services, tasks
from dashboard.live.models import TrackedOperation
from tests.live.support import OTHER_SECRET, SECRET, store_key, turn_body

TURNS = r"/v1/turns/.+"
THIRD_SECRET = "svc_sk_init1357924680acegikmoqsuwyBDFHJLNPRTVXZ0246"


def answer_building(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json=turn_body("building", turn_id=request.url.path.rsplit("/", 1)[-1]))


def secret_of(request: httpx.Request) -> str:
    return request.headers["Authorization"].removeprefix("Bearer ")


class FirstWave:
    """The fake service's answer, and the poller's slots, watched together.

    The first calls are held until every thread of the pool is either in a
    call or waiting for a slot (of its key or of the service): then the most
    calls in flight at once is what the bounds allowed, not what timing did.
    Later calls go straight through."""

    def __init__(self, threads: int, *, per: str) -> None:
        self.changed = threading.Condition()
        self.threads = threads
        self.per = per
        self.inside: Counter[str] = Counter()
        self.most: Counter[str] = Counter()
        self.waiting = 0
        self.released = False

    def semaphore(self, size: int) -> threading.BoundedSemaphore:
        wave = self

        class Watched(threading.BoundedSemaphore):
            def acquire(self, blocking: bool = True, timeout: float | None = None) -> bool:
                if super().acquire(blocking=False):
                    return True
                with wave.changed:
                    wave.waiting += 1
                    wave.changed.notify_all()
                try:
                    return super().acquire(blocking, timeout)
                finally:
                    with wave.changed:
                        wave.waiting -= 1

            __enter__ = acquire

        return Watched(size)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        name = secret_of(request) if self.per == "key" else "service"
        with self.changed:
            self.inside[name] += 1
            self.most[name] = max(self.most[name], self.inside[name])
            self.changed.notify_all()
            # A safety timeout only: the checks below are on counts.
            self.changed.wait_for(
                lambda: self.released or sum(self.inside.values()) + self.waiting >= self.threads, timeout=30
            )
            self.released = True
            self.changed.notify_all()
        try:
            return answer_building(request)
        finally:
            with self.changed:
                self.inside[name] -= 1


@pytest.fixture
def first_wave(monkeypatch):
    """Fresh slots that report their waiting threads to a FirstWave."""

    def watch(threads: int, *, per: str = "key") -> FirstWave:
        wave = FirstWave(threads, per=per)
        monkeypatch.setattr(gate, "_semaphores", {})
        monkeypatch.setattr(gate, "new_semaphore", wave.semaphore)
        return wave

    return watch


def test_one_poll_task_polls_a_whole_batch_with_one_remote_call_per_row(
    db, remote, make_turn, other_api_key, eager_celery, settings, monkeypatch
):
    settings.LIVE_POLL_BATCH = 50
    route = remote.get(url__regex=TURNS).mock(side_effect=answer_building)
    for number in range(15):
        make_turn(remote_id=f"turn-a{number}")
        make_turn(remote_id=f"turn-b{number}", owner_key=other_api_key)
    sent = []
    monkeypatch.setattr(tasks.poll_due, "apply_async", lambda *args, **kwargs: sent.append(kwargs))

    assert tasks.tick() == 30
    assert len(sent) == 1  # 30 due rows: one task of up to 50
    assert tasks.poll_due() == 30

    assert route.call_count == 30
    assert sorted(call.request.url.path for call in route.calls) == sorted(
        f"/v1/turns/{op.remote_id}" for op in TrackedOperation.objects.all()
    )
    assert set(TrackedOperation.objects.values_list("poll_count", "lease_token", "status")) == {(1, "", "building")}
    # Nothing is due any more: the next tick sends nothing.
    sent.clear()
    assert tasks.tick() == 0 and sent == []


def test_the_tick_sends_one_task_per_batch_of_due_rows_up_to_its_limit(db, remote, make_turn, settings, monkeypatch):
    settings.LIVE_POLL_BATCH = 4
    settings.LIVE_POLL_MAX_QUEUED = 1
    sent = []
    monkeypatch.setattr(tasks.poll_due, "apply_async", lambda *args, **kwargs: sent.append(kwargs))
    for number in range(5):
        make_turn(remote_id=f"turn-{number}")
    assert tasks.tick() == 4  # counted only as far as the free slots can take
    assert len(sent) == 1
    settings.LIVE_POLL_MAX_QUEUED = 10
    sent.clear()
    tasks.tick()
    assert len(sent) == 1  # ceil(5 / 4), less the one still queued
    assert remote.calls.call_count == 0


def test_a_batch_costs_the_same_queries_whatever_its_size(db, remote, make_turn, api_key, other_api_key, settings):
    settings.LIVE_POLL_BATCH = 100
    remote.get(url__regex=TURNS).mock(side_effect=answer_building)

    def queries_for(rows: int) -> int:
        for number in range(rows):
            make_turn(remote_id=f"turn-{rows}-{number}", owner_key=other_api_key if number % 2 else api_key)
        with CaptureQueriesContext(connection) as queries:
            report = services.operations_poll_due()
        assert (report.claimed, report.polled, report.written) == (rows, rows, rows)
        TrackedOperation.objects.update(next_poll_at=None)  # out of the next batch's way
        return len(queries)

    assert queries_for(4) == queries_for(40)


def test_a_batch_larger_than_one_update_can_carry_is_written_whole(db, remote, make_turn, settings, monkeypatch):
    settings.LIVE_POLL_BATCH = 30
    # A database that takes 99 parameters per query: a few rows per UPDATE.
    monkeypatch.setattr(connection.features, "max_query_params", 99)
    remote.get(url__regex=TURNS).mock(side_effect=answer_building)
    for number in range(30):
        make_turn(remote_id=f"turn-{number}")
    with CaptureQueriesContext(connection) as queries:
        report = services.operations_poll_due()
    assert (report.claimed, report.polled, report.written) == (30, 30, 30)
    updates = sum(query["sql"].startswith("UPDATE") for query in queries)
    assert updates > 1 + 2  # the claim's, then the results in several
    assert set(TrackedOperation.objects.values_list("poll_count", "lease_token")) == {(1, "")}


def test_calls_per_key_stay_within_the_bound_while_two_keys_poll_side_by_side(
    db, remote, make_turn, other_api_key, settings, first_wave
):
    settings.LIVE_POLL_PER_KEY = 3
    settings.LIVE_POLL_THREADS = 8
    answer = first_wave(8)
    route = remote.get(url__regex=TURNS).mock(side_effect=answer)
    for number in range(12):
        make_turn(remote_id=f"turn-a{number}")
        make_turn(remote_id=f"turn-b{number}", owner_key=other_api_key)

    report = services.operations_poll_due()

    assert report.polled == 24 and route.call_count == 24
    # Eight threads tried at once: three calls of each key, the other two waited.
    assert answer.most == {SECRET: 3, OTHER_SECRET: 3}
    assert set(TrackedOperation.objects.values_list("poll_count", "error_count")) == {(1, 0)}


def test_calls_to_the_service_stay_within_its_bound(db, remote, make_turn, settings, first_wave):
    settings.LIVE_POLL_PER_SERVICE = 2
    settings.LIVE_POLL_PER_KEY = 8
    settings.LIVE_POLL_THREADS = 8
    answer = first_wave(8, per="service")
    remote.get(url__regex=TURNS).mock(side_effect=answer)
    for number in range(8):
        make_turn(remote_id=f"turn-{number}")

    assert services.operations_poll_due().polled == 8
    assert answer.most == {"service": 2}


def test_a_row_whose_lease_was_lost_during_its_poll_is_not_written(db, remote, make_turn, settings):
    settings.LIVE_POLL_THREADS = 1  # the fake service's database write runs in the test's own thread
    kept = make_turn(remote_id="turn-kept")
    lost = make_turn(remote_id="turn-lost")

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("turn-lost"):
            # Meanwhile our lease ran out and another poller claimed the row.
            TrackedOperation.objects.filter(pk=lost.pk).update(lease_token="another-poller")
        return httpx.Response(200, json=turn_body("completed", turn_id=request.url.path.rsplit("/", 1)[-1]))

    route = remote.get(url__regex=TURNS).mock(side_effect=answer)
    report = services.operations_poll_due()

    assert (report.claimed, report.polled, report.written) == (2, 2, 1)
    assert route.call_count == 2
    kept.refresh_from_db()
    lost.refresh_from_db()
    assert (kept.status, kept.is_final, kept.poll_count, kept.lease_token) == ("completed", True, 1, "")
    # Untouched: the other poller owns it and will write its own result.
    assert (lost.status, lost.is_final, lost.poll_count, lost.lease_token) == ("building", False, 0, "another-poller")


def test_a_429_puts_off_every_row_of_its_key_and_no_other(db, remote, make_turn, other_api_key, settings):
    settings.LIVE_POLL_PER_KEY = 1
    settings.LIVE_POLL_THREADS = 4
    limited = remote.get(url__regex=TURNS, headers={"Authorization": f"Bearer {SECRET}"}).mock(
        return_value=httpx.Response(
            429,
            headers={"Retry-After": "30"},
            json={"error": {"type": "rate_limited", "message": "Too many requests"}, "request_id": "req_429"},
        )
    )
    fine = remote.get(url__regex=TURNS, headers={"Authorization": f"Bearer {OTHER_SECRET}"}).mock(
        side_effect=answer_building
    )
    now = timezone.now()
    slowed = [make_turn(remote_id=f"turn-a{number}") for number in range(3)]
    # Not due in this batch, but of the same key: it must wait too.
    later = make_turn(remote_id="turn-a-later", next_poll_at=now + timedelta(seconds=3))
    others = [make_turn(remote_id=f"turn-b{number}", owner_key=other_api_key) for number in range(3)]

    services.operations_poll_due(now=now)

    # One call of the limited key (one at a time): the rest were put off without one.
    assert limited.call_count == 1
    assert fine.call_count == 3
    for op in [*slowed, later]:
        op.refresh_from_db()
        assert op.next_poll_at == now + timedelta(seconds=31)
        assert (op.lease_token, op.is_final, op.poll_count) == ("", False, 0)
    assert sorted(op.error_count for op in slowed) == [0, 0, 1]
    for op in others:
        op.refresh_from_db()
        assert (op.poll_count, op.error_count, op.next_poll_at) == (1, 0, now + timedelta(seconds=5))
    # The key's rows come due again only after Retry-After.
    claimed = claims.operations_claim_due(now=now + timedelta(seconds=30))
    assert {claim.operation_id for claim in claimed} == {op.pk for op in others}


def test_failed_polls_in_a_row_stop_the_row_with_a_message(db, remote, make_turn, settings, eager_celery):
    settings.LIVE_MAX_FAILURES = 3
    route = remote.get(url__regex=TURNS).mock(
        return_value=httpx.Response(
            503, json={"error": {"type": "server_error", "message": "down"}, "request_id": "req_down"}
        )
    )
    op = make_turn()
    now = timezone.now()
    for attempt in (1, 2):
        op = services.operation_poll(operation_id=op.pk, now=now)
        assert (op.is_final, op.error_count, op.lease_token) == (False, attempt, "")
        now = op.next_poll_at

    op = services.operation_poll(operation_id=op.pk, now=now)
    assert (op.status, op.is_final, op.next_poll_at, op.error_count) == (TrackedOperation.STATUS_STOPPED, True, None, 3)
    assert op.last_error == "The last 3 checks all failed (the service had a problem)."
    assert op.last_error_request_id == "req_down"
    # Never asked again, however often the tick runs.
    TrackedOperation.objects.filter(pk=op.pk).update(next_poll_at=timezone.now())
    assert tasks.tick() == 0
    assert route.call_count == 3


def test_a_service_that_keeps_rate_limiting_never_stops_a_row(db, remote, make_turn, settings):
    """A 429 asks to wait: after more of them than LIVE_MAX_FAILURES the row
    still waits for the service instead of giving up."""
    settings.LIVE_MAX_FAILURES = 2
    remote.get(url__regex=TURNS).mock(
        return_value=httpx.Response(
            429, json={"error": {"type": "rate_limited", "message": "slow"}}, headers={"Retry-After": "3"}
        )
    )
    op = make_turn()
    now = timezone.now()
    for attempt in (1, 2, 3):
        op = services.operation_poll(operation_id=op.pk, now=now)
        assert (op.is_final, op.error_count) == (False, attempt)
        assert op.next_poll_at > now + timedelta(seconds=3)  # past Retry-After
        now = op.next_poll_at


@pytest.mark.parametrize("polled", [0, 1])
def test_a_poll_task_ends_when_a_batch_polls_nothing(db, remote, make_turn, settings, polled):
    """A row that can't be polled (no kind to follow it) is stopped without a
    call, and the task ends there instead of claiming again and again."""
    settings.LIVE_POLL_BATCH = 1
    remote.get(url__regex=TURNS).mock(side_effect=answer_building)
    if polled:
        make_turn(remote_id="turn-polled", next_poll_at=timezone.now() - timedelta(seconds=2))
    unknown = make_turn(remote_id="turn-unknown")
    TrackedOperation.objects.filter(pk=unknown.pk).update(kind="nobody.knows")

    assert tasks.poll_due() == polled
    unknown.refresh_from_db()
    assert unknown.is_final and "doesn't know how to follow" in unknown.last_error
    assert remote.calls.call_count == polled


def test_a_key_that_cannot_be_used_fails_or_stops_its_rows_and_the_batch_goes_on(
    db, remote, make_turn, api_key, other_api_key, other_user, monkeypatch
):
    from dashboard.keys.errors import KeyDecryptionError
    from dashboard.keys.models import ApiKey

    route = remote.get(url__regex=TURNS).mock(side_effect=answer_building)
    unreadable = make_turn(remote_id="turn-unreadable")
    broken = make_turn(remote_id="turn-broken", owner_key=other_api_key)
    fine = make_turn(remote_id="turn-fine", owner_key=store_key(other_user, THIRD_SECRET, "Initech"))
    client = ApiKey.client

    def client_of(key, **kwargs):
        if key.pk == api_key.pk:
            raise KeyDecryptionError()
        if key.pk == other_api_key.pk:
            raise RuntimeError("something unexpected")
        return client(key, **kwargs)

    monkeypatch.setattr(ApiKey, "client", client_of)
    report = services.operations_poll_due()

    assert (report.claimed, report.polled, report.written) == (3, 1, 3)
    assert route.call_count == 1
    for op in (unreadable, broken, fine):
        op.refresh_from_db()
    assert unreadable.is_final and "can't be read" in unreadable.last_error
    assert (broken.is_final, broken.error_count, broken.lease_token) == (False, 1, "")
    assert (fine.poll_count, fine.lease_token) == (1, "")
