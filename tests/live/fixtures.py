"""Fixtures shared by tests/live, tests/studio and tests/agents, registered
for every folder with `pytest_plugins` in tests/conftest.py: a fake service
address (mocked by `remote`, tests/conftest.py) with no sleeping between
retries, stored API keys for two users, and a factory of tracked turns.

None of them is autouse, so folders that never asked for them are untouched;
a folder opts in to the fake service with an autouse fixture of its own that
requests `fake_service_settings` and `never_sleep`. Constants and plain
helpers are in tests/live/support.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.helpers import use_fake_service
from tests.live.support import OTHER_SECRET, SECRET, SERVICE_URL, TURN_ID, store_key


@pytest.fixture
def fake_service_settings(settings):
    # Web requests retry; the poller must not (the next poll is its retry),
    # which the call counts in these tests check.
    return use_fake_service(settings, SERVICE_URL, max_retries=2, SERVICE_RETRY_AFTER_CAP=10.0)


@pytest.fixture
def never_sleep(monkeypatch):
    monkeypatch.setattr("dashboard.api.attempts.sleep_before_retry", lambda seconds: None)


@pytest.fixture
def api_key(user):
    return store_key(user, SECRET, "Acme Marketing")


@pytest.fixture
def other_api_key(other_user):
    return store_key(other_user, OTHER_SECRET, "Globex Research")


@pytest.fixture
def make_turn(api_key, user):
    """A tracked Studio turn, due for polling now unless told otherwise."""
    from dashboard.live.models import TrackedOperation
    from dashboard.live.services import operation_track

    def make(*, remote_id: str = TURN_ID, status: str = "building", due: bool = True, **fields) -> TrackedOperation:
        op = operation_track(
            owner_key=fields.pop("owner_key", api_key),
            kind="studio.turn",
            remote_id=remote_id,
            title="Build a landing page for our spring sale",
            snapshot={"id": remote_id, "status": status},
            context={"studio": "website"},
        )
        if due:
            fields.setdefault("next_poll_at", timezone.now() - timedelta(seconds=1))
        if fields:
            TrackedOperation.objects.filter(pk=op.pk).update(**fields)
            op.refresh_from_db()
        return op

    return make
