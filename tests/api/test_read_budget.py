"""The read budget: the reads of one web request share SERVICE_READ_BUDGET
seconds, retries and waits included. A hung service is simulated with respx
side effects that raise a timeout after moving a fake clock by the timeout
the transport asked for; nothing sleeps and nothing is timed."""

from __future__ import annotations

import httpx
import pytest

from dashboard.api import errors
from dashboard.api.attempts import read_budget
from tests.api.support import API_KEY
from tests.html import one, text_of


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake_clock(monkeypatch, slept):
    clock = FakeClock()
    monkeypatch.setattr("dashboard.api.attempts.clock", clock)

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.now += seconds

    monkeypatch.setattr("dashboard.api.attempts.sleep_before_retry", sleep)
    return clock


def hung_service(clock: FakeClock, asked: list[float]):
    """A side effect: the service never answers; the attempt ends when its read timeout runs out."""

    def side_effect(request: httpx.Request):
        read_timeout = request.extensions["timeout"]["read"]
        asked.append(read_timeout)
        clock.now += read_timeout
        raise httpx.ReadTimeout("timed out", request=request)

    return side_effect


def test_a_hung_service_fails_a_read_within_the_budget_not_after_three_full_timeouts(remote, service, fake_clock):
    asked: list[float] = []
    route = remote.get("/v1/me").mock(side_effect=hung_service(fake_clock, asked))

    with read_budget(10.0) as budget, pytest.raises(errors.ApiTimeoutError) as caught:
        service.get("/v1/me")

    assert route.call_count == 1  # the first attempt used all 10 s; no retry fits
    assert asked == [10.0]  # not the 30 s SERVICE_TIMEOUT
    assert budget.spent == pytest.approx(10.0)
    assert "within 10 seconds" in caught.value.message


def test_without_a_budget_a_read_keeps_its_timeout_and_retries(remote, service, fake_clock, slept):
    asked: list[float] = []
    route = remote.get("/v1/me").mock(side_effect=hung_service(fake_clock, asked))

    with pytest.raises(errors.ApiTimeoutError):
        service.get("/v1/me")

    assert route.call_count == 3  # SERVICE_MAX_RETRIES=2: a worker or a script waits as configured
    assert asked == [30.0, 30.0, 30.0]


def test_retries_get_what_is_left_and_later_reads_share_the_same_budget(
    remote, service, fake_clock, slept, monkeypatch
):
    monkeypatch.setattr("dashboard.api.attempts.backoff_delay", lambda attempt: 1.0)
    asked: list[float] = []

    def slow_failure(request: httpx.Request):
        read_timeout = request.extensions["timeout"]["read"]
        asked.append(read_timeout)
        fake_clock.now += min(3.0, read_timeout)  # each attempt takes 3 s to fail, or its whole timeout
        return httpx.Response(503, json={"error": {"type": "server_error", "message": "busy"}})

    remote.get("/v1/me").mock(side_effect=slow_failure)
    agents = remote.get("/v1/agents").mock(return_value=httpx.Response(200, json={"data": [], "next_cursor": None}))

    with read_budget(10.0) as budget:
        with pytest.raises(errors.ServerError):  # the real cause, not a made-up timeout
            service.get("/v1/me")
        # 3 s, wait 1 s, 3 s, wait 1 s, then only 2 s were left for the last attempt.
        assert asked == [10.0, 6.0, 2.0]
        assert slept == [1.0, 1.0]
        assert budget.spent == pytest.approx(10.0)
        with pytest.raises(errors.ApiTimeoutError):
            service.get("/v1/agents")

    assert agents.call_count == 0  # a spent budget fails at once, without calling


def test_a_retry_whose_wait_does_not_fit_is_not_made(remote, service, fake_clock, slept):
    route = remote.get("/v1/me").mock(
        return_value=httpx.Response(
            429, headers={"Retry-After": "8"}, json={"error": {"type": "rate_limited", "message": "slow down"}}
        )
    )

    with read_budget(10.0) as budget, pytest.raises(errors.RateLimitedError) as caught:
        budget.spent = 4.0
        service.get("/v1/me")

    assert route.call_count == 1 and slept == []  # 8 s of waiting do not fit in the 6 s left
    assert caught.value.retry_after == 8.0  # the page counts down and retries itself


def test_a_spent_budget_fails_the_next_read_at_once_without_calling(remote, service, fake_clock):
    route = remote.get("/v1/me").mock(return_value=httpx.Response(200, json={}))

    with read_budget(10.0) as budget:
        budget.spent = 10.0
        with pytest.raises(errors.ApiTimeoutError):
            service.get("/v1/me")

    assert route.call_count == 0


def test_writes_are_outside_the_budget(remote, service, fake_clock):
    asked: list[float] = []
    route = remote.post("/v1/agents").mock(side_effect=hung_service(fake_clock, asked))

    with read_budget(10.0) as budget, pytest.raises(errors.ApiTimeoutError):
        service.post("/v1/agents", json={"message": "x"}, slow=True)

    assert route.call_count == 1  # a slow write's read timeout is not retried
    assert asked == [800.0]  # its own timeout, not the page's budget
    assert budget.spent == 0.0


@pytest.mark.urls("tests.api.urls")
@pytest.mark.django_db
def test_a_page_on_a_hung_service_shows_the_error_page_within_the_budget(
    logged_in_client, remote, settings, fake_clock
):
    settings.SERVICE_READ_BUDGET = 10.0
    asked: list[float] = []
    route = remote.get("/v1/me").mock(side_effect=hung_service(fake_clock, asked))
    started = fake_clock.now

    response = logged_in_client.get("/test-remote-call/")

    assert response.status_code == 502
    assert route.call_count == 1
    assert fake_clock.now - started == pytest.approx(10.0)  # simulated time: 10 s, not 90 s
    assert "slow" in text_of(one(response.content, "h1")).lower()
    assert API_KEY not in response.content.decode()
