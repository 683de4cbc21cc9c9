"""The refresh task with the service mocked (respx): what it keeps, what it
leaves out, a failed read, the hook that settles a decided approval at once
and has the workspace read again, and a key that never travels in a task."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone

from dashboard.audit.testing import make_approver
from dashboard.inbox import services, tasks
from dashboard.inbox.models import WaitingItem, WorkspaceRefresh
from tests.html import one, parse, select, text_of
from tests.inbox.support import (
    APPROVAL_ID,
    FAILED_RUN_ID,
    HTMX,
    RUN_ID,
    approval_decision_ready,
    mock_workspace,
)
from tests.live.support import SECRET, store_key


@pytest.fixture
def api_key(user):
    return store_key(user, SECRET, "Acme Marketing")


def kept(workspace_id: str) -> dict[str, str]:
    return dict(WaitingItem.objects.filter(workspace_id=workspace_id).values_list("remote_id", "kind"))


def test_a_refresh_keeps_pending_approvals_and_runs_waiting_for_a_person_or_failed_lately(remote, api_key):
    mock_workspace(remote, now=timezone.now())

    tasks.refresh_workspace(api_key.workspace_id)

    items = kept(api_key.workspace_id)
    assert items == {
        "agent-names": "agent-names",
        f"approval:{APPROVAL_ID}": "approval",
        f"run:{RUN_ID}": "waiting",
        f"run:{FAILED_RUN_ID}": "failed",
    }  # not the run waiting for a time, nor the one that failed in 2020
    approval = WaitingItem.objects.get(remote_id=f"approval:{APPROVAL_ID}")
    assert approval.settle_path == f"/v1/approvals/{APPROVAL_ID}"
    refresh = WorkspaceRefresh.objects.get(workspace_id=api_key.workspace_id)
    assert refresh.refreshed_at is not None and refresh.error == ""

    # Run twice, the same rows (idempotent); what the service no longer says goes.
    mock_workspace(remote, now=timezone.now(), approvals=[])
    tasks.refresh_workspace(api_key.workspace_id)
    assert f"approval:{APPROVAL_ID}" not in kept(api_key.workspace_id)


def test_the_inbox_shows_what_the_refresh_kept_and_covers_a_run_by_its_approval(remote, api_key, logged_in_client):
    make_approver(api_key.user)
    mock_workspace(remote, now=timezone.now())
    tasks.refresh_workspace(api_key.workspace_id)
    calls_before = remote.calls.call_count

    html = parse(logged_in_client.get(reverse("inbox:index")).content.decode())

    assert remote.calls.call_count == calls_before
    items = select(html, "[data-inbox-item]")
    assert [item.get("data-kind") for item in items] == ["approval", "failed"]  # oldest first; the run is covered
    failed = text_of(items[1])
    assert "A run of Weekly pipeline report failed: The CRM did not answer." in failed
    assert "Started by a webhook" in failed
    assert one(items[1], "a[data-inbox-primary]").get("href") == reverse("agents:run", args=[FAILED_RUN_ID])
    # The approval is decided on its card in the approvals queue: the line leads to exactly it.
    decide = one(items[0], "a[data-inbox-primary]").get("href")
    assert decide.startswith(reverse("agents:approvals")) and f"approval={APPROVAL_ID}" in decide


def test_a_failed_read_keeps_the_last_rows_and_says_so(remote, api_key, logged_in_client):
    mock_workspace(remote, now=timezone.now())
    tasks.refresh_workspace(api_key.workspace_id)
    before = kept(api_key.workspace_id)
    remote.get("/v1/agents").mock(return_value=httpx.Response(503, json={"error": {"type": "unavailable"}}))

    tasks.refresh_workspace(api_key.workspace_id)

    assert kept(api_key.workspace_id) == before
    refresh = WorkspaceRefresh.objects.get(workspace_id=api_key.workspace_id)
    assert refresh.error
    html = parse(logged_in_client.get(reverse("inbox:index")).content.decode())
    assert "The last reading failed" in text_of(one(html, ".inbox-tools"))


def test_the_interval_sends_one_refresh_per_workspace_with_its_id_never_a_key(api_key, other_api_key, monkeypatch):
    sent = []
    monkeypatch.setattr(tasks.refresh_workspace, "apply_async", lambda **options: sent.append(options))

    assert tasks.refresh_all() == 2

    assert sorted(options["args"] for options in sent) == [[api_key.workspace_id], [other_api_key.workspace_id]]
    assert all(SECRET not in repr(options) for options in sent)


def test_a_decision_settles_its_item_at_once_and_reads_the_workspace_again(
    remote, api_key, logged_in_client, eager_celery, django_capture_on_commit_callbacks
):
    # The service, read again after the decision, no longer lists it.
    form, fields, _decide = approval_decision_ready(remote, api_key, logged_in_client)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = logged_in_client.post(
            form.get("action"), {**fields, "decision": "approve-confirmed", "note": "Checked."}, **HTMX
        )
    assert response.status_code == 200
    # At once, before any refresh: the approval and the run waiting for it are
    # gone, so every header count drops on its next poll.
    assert kept(api_key.workspace_id) == {"agent-names": "agent-names", f"run:{FAILED_RUN_ID}": "failed"}
    # After the commit: the audit feed's log lines (dashboard/audit/feed.py), and one task sent.
    (refresh,) = [callback for callback in callbacks if "outbox_send" in callback.__qualname__]
    refresh()  # the refresh, sent when the decision's transaction commits (run inline here)
    assert kept(api_key.workspace_id) == {"agent-names": "agent-names"}


def test_a_refused_write_settles_nothing(api_key):
    WaitingItem.objects.create(
        workspace_id=api_key.workspace_id,
        source="agents",
        remote_id=f"approval:{APPROVAL_ID}",
        kind="approval",
        settle_path=f"/v1/approvals/{APPROVAL_ID}",
        refreshed_at=timezone.now(),
    )
    from dashboard.api.hooks import RemoteWrite

    for status in (None, 403, 500):
        services.inbox_after_write(
            RemoteWrite(
                acting_user_id=api_key.user_id,
                stored_key_id=api_key.pk,
                method="POST",
                path=f"/v1/approvals/{APPROVAL_ID}",
                idempotency_key="k",
                status=status,
                request_id=None,
            )
        )
    assert WaitingItem.objects.filter(kind="approval").count() == 1


def test_read_again_now_sends_one_refresh_per_workspace_at_a_time(api_key, logged_in_client, monkeypatch):
    asked = []
    monkeypatch.setattr(services, "refresh_soon", asked.append)

    first = logged_in_client.post(reverse("inbox:refresh"), follow=True)
    second = logged_in_client.post(reverse("inbox:refresh"), follow=True)

    assert asked == [api_key.workspace_id]
    assert "reading the service again" in text_of(one(parse(first.content.decode()), "#messages"))
    assert "already reading" in text_of(one(parse(second.content.decode()), "#messages"))
