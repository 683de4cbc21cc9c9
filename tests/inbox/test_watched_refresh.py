"""A workspace someone is looking at (respx): the quick refresh reads its
pending approvals only (one call) and keeps the other rows; one refresh of a
workspace at a time; a 429 holds the next one until Retry-After; beat sends
one quick refresh per watched workspace, by id."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.utils import timezone

from dashboard.inbox import services, tasks
from dashboard.inbox.models import WaitingItem, WorkspaceRefresh
from tests.inbox.support import APPROVAL_ID, FAILED_RUN_ID, approval_body, mock_workspace
from tests.live.support import SECRET, store_key

NEW_ID = "aaaaaaaa-0000-4000-8000-0000000000ff"


@pytest.fixture
def api_key(user):
    return store_key(user, SECRET, "Acme Marketing")


def kept(workspace_id: str) -> set[str]:
    return set(WaitingItem.objects.filter(workspace_id=workspace_id).values_list("remote_id", flat=True))


def test_the_quick_refresh_reads_pending_approvals_only_and_keeps_the_other_rows(remote, api_key):
    mock_workspace(remote, now=timezone.now())
    tasks.refresh_workspace(api_key.workspace_id)  # the full one: names, approvals, runs
    before = kept(api_key.workspace_id)
    assert f"run:{FAILED_RUN_ID}" in before
    listing = remote.get("/v1/approvals").mock(
        return_value=httpx.Response(200, json={"data": [approval_body(), approval_body(approval_id=NEW_ID)]})
    )
    calls, listed = len(remote.calls), listing.call_count

    tasks.refresh_watched_workspace(api_key.workspace_id)

    assert len(remote.calls) - calls == 1 and listing.call_count - listed == 1  # one call: the pending list
    assert kept(api_key.workspace_id) == before | {f"approval:{NEW_ID}"}
    new = WaitingItem.objects.get(remote_id=f"approval:{NEW_ID}")
    assert new.data["agent_name"] == "Stale deal cleaner"  # named from the full refresh's names

    # An approval decided elsewhere leaves with the next quick refresh; the runs stay.
    listing.mock(return_value=httpx.Response(200, json={"data": [approval_body(approval_id=NEW_ID)]}))
    tasks.refresh_watched_workspace(api_key.workspace_id)
    assert kept(api_key.workspace_id) == before - {f"approval:{APPROVAL_ID}"} | {f"approval:{NEW_ID}"}


def test_one_refresh_of_a_workspace_at_a_time(remote, api_key):
    mock_workspace(remote, now=timezone.now())
    WorkspaceRefresh.objects.create(
        workspace_id=api_key.workspace_id, lease_until=timezone.now() + timedelta(seconds=60), lease_token="other"
    )
    assert tasks.refresh_watched_workspace(api_key.workspace_id) == 0
    assert tasks.refresh_workspace(api_key.workspace_id) == 0
    assert not remote.calls
    # Once it is over (its lease let go), the next one reads.
    WorkspaceRefresh.objects.update(lease_until=None, lease_token="")
    assert tasks.refresh_watched_workspace(api_key.workspace_id) == 1
    assert WorkspaceRefresh.objects.get().lease_until is None


def test_a_429_holds_the_workspace_until_the_services_retry_after(remote, api_key):
    remote.get("/v1/approvals").mock(
        return_value=httpx.Response(
            429,
            json={"error": {"type": "rate_limited", "message": "Slow down"}, "request_id": "req_429"},
            headers={"Retry-After": "30"},
        )
    )
    before = timezone.now()
    tasks.refresh_watched_workspace(api_key.workspace_id)
    refresh = WorkspaceRefresh.objects.get()
    assert refresh.lease_until is not None and refresh.lease_until >= before + timedelta(seconds=29)
    assert "req_429" in refresh.error
    calls = len(remote.calls)
    assert tasks.refresh_watched_workspace(api_key.workspace_id) == 0
    assert len(remote.calls) == calls  # nothing read before the service said


def test_beat_sends_one_quick_refresh_per_watched_workspace_by_id(api_key, monkeypatch):
    sent = []
    monkeypatch.setattr(
        tasks.refresh_watched_workspace, "apply_async", lambda args, expires: sent.append((args, expires))
    )
    monkeypatch.setattr(services, "_marked", {})
    assert tasks.refresh_watched() == 0  # nobody looking: the interval's sweep only
    services.workspace_watched(api_key.workspace_id)
    services.workspace_watched(api_key.workspace_id)  # marked once
    assert tasks.refresh_watched() == 1
    assert sent == [([api_key.workspace_id], 10.0)]
    # Nobody looking for INBOX_WATCHED_SECONDS: back to the interval's sweep only.
    WorkspaceRefresh.objects.update(watched_at=timezone.now() - timedelta(seconds=31))
    sent.clear()
    assert tasks.refresh_watched() == 0 and sent == []
