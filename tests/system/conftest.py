"""System tests: the fake service address (mocked by `remote`), a broker file
of their own, and heartbeats set by hand (never by sleeping)."""

from __future__ import annotations

import pytest

from dashboard.live import heartbeat


@pytest.fixture(autouse=True)
def fake_service(fake_service_settings, never_sleep, settings, tmp_path):
    """The fake service address; the embedded broker in a file of this test's."""
    settings.CELERY_BROKER_URL = f"sqlite:///{tmp_path / 'broker.sqlite3'}"
    return fake_service_settings


@pytest.fixture
def alive():
    """Beat and a worker of the poller's queue both seen just now."""
    heartbeat.beat_heartbeat_record()
    heartbeat.worker_heartbeat_record(queues=[heartbeat.default_queue()])
