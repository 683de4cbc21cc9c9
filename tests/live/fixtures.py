"""Fixtures shared by tests/live and tests/studio (imported by both conftests):
a fake service address (mocked by `remote`, tests/conftest.py), stored API
keys for two users, and a factory of tracked turns."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.helpers import use_fake_service

SERVICE_URL = "https://service.test"
SECRET = "svc_sk_live0123456789abcdefghijklmnopqrstuvwxyzABCD"
OTHER_SECRET = "svc_sk_bobs9876543210zyxwvutsrqponmlkjihgfedcbaWXYZ"
TURN_ID = "3f0c6a52-8f1e-4c1b-9a51-2a7e0d3c9b11"
CONVERSATION_ID = "c0ffee00-1111-4222-8333-444455556666"


@pytest.fixture(autouse=True)
def service_settings(settings):
    # Web requests retry; the poller must not (the next poll is its retry),
    # which the call counts in these tests check.
    return use_fake_service(settings, SERVICE_URL, max_retries=2, SERVICE_RETRY_AFTER_CAP=10.0)


@pytest.fixture(autouse=True)
def never_sleep(monkeypatch):
    monkeypatch.setattr("dashboard.api.client.sleep_before_retry", lambda seconds: None)


def store_key(user, secret: str, workspace: str = "Acme Marketing"):
    """A stored, active API key for `user` (as if checked with /v1/me)."""
    from dashboard.keys.testing import stored_api_key

    return stored_api_key(
        user=user,
        secret=secret,
        label=f"{workspace} key",
        workspace_id=f"ws-{workspace}",
        workspace_name=workspace,
        key_id=f"key-{user.pk}-{workspace}",
    )


@pytest.fixture
def api_key(user):
    return store_key(user, SECRET, "Acme Marketing")


@pytest.fixture
def other_api_key(other_user):
    return store_key(other_user, OTHER_SECRET, "Globex Research")


def turn_body(status: str = "building", turn_id: str = TURN_ID, **extra) -> dict:
    body = {
        "id": turn_id,
        "object": "studio.turn",
        "status": status,
        "studio": "website",
        "conversation_id": CONVERSATION_ID,
        "message": "",
        "created_at": "2026-11-22T00:00:00.000Z",
    }
    body.update(extra)
    return body


@pytest.fixture
def make_turn(api_key, user):
    """A tracked Studio turn, due for polling now unless told otherwise."""
    from dashboard.live.models import TrackedOperation
    from dashboard.live.services import operation_track

    def make(*, remote_id: str = TURN_ID, status: str = "building", due: bool = True, **fields) -> TrackedOperation:
        op = operation_track(
            owner_key=fields.pop("owner_key", api_key),
            user=fields.pop("user", user),
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
