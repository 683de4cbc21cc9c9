"""Fixtures of the transport tests: a fake service address (mocked by
`remote`, tests/conftest.py), a recorded (never slept) retry delay, and a
client with a recognisable key (the constants in tests/api/support.py)."""

from __future__ import annotations

import pytest

from tests.api.support import API_KEY, SERVICE_URL
from tests.helpers import use_fake_service


@pytest.fixture(autouse=True)
def service_settings(settings):
    return use_fake_service(
        settings,
        SERVICE_URL,
        max_retries=2,
        SERVICE_TIMEOUT=30.0,
        SERVICE_SLOW_TIMEOUT=800.0,
        SERVICE_RETRY_AFTER_CAP=10.0,
    )


@pytest.fixture(autouse=True)
def slept(monkeypatch):
    """Every delay the transport asked to sleep, in order; nothing sleeps."""
    delays: list[float] = []
    monkeypatch.setattr("dashboard.api.attempts.sleep_before_retry", delays.append)
    return delays


@pytest.fixture
def service():
    from dashboard.api import ServiceClient

    return ServiceClient(API_KEY)
