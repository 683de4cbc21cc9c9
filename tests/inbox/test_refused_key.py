"""Access follows the key, against a real sandbox: a member whose key the
service revoked sees none of the workspace's data the console keeps (Studio
conversations, the inbox and its count, runs, approvals, the audit trail);
her teammates' inbox keeps refreshing with their own working key; a check of
her restored key gives her access back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from dashboard.api.testing import RemoteCallCounter
from dashboard.audit.models import AuditEntry
from dashboard.audit.testing import make_approver
from dashboard.inbox.models import WaitingItem, WorkspaceRefresh
from dashboard.inbox.tasks import refresh_workspace
from dashboard.keys.models import ApiKey
from dashboard.live.services import operation_track
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from tests.html import one, parse, select
from tests.inbox.support import HTMX, sandbox_key_revoked, sandbox_member

APPROVAL_TEXT = "Delete records in deals."
TURN_TITLE = "Secret spring launch plan"
AUDIT_PATH = "/v1/objects/deals/records/secret-audit-row"


@pytest.fixture
def team(inbox_sandbox, settings, django_user_model):
    """Mona (an admin's key) and Bob (a member's key) of one workspace; the
    workspace's approvals read into the console, a Studio turn of Mona's and
    an audit entry kept. Mona's key was checked last, so the refresh tries it first."""
    settings.SERVICE_BASE_URL = inbox_sandbox.base_url
    # Mona decides approvals and reads the audit trail: an Administrator.
    mona = django_user_model.objects.create_user(username="mona", password="x" * 20)
    person_role_set(user=mona, role=Role.ADMINISTRATOR)
    bob = make_approver(django_user_model.objects.create_user(username="bob", password="y" * 20))
    mona_key = sandbox_member(mona, inbox_sandbox)
    bob_key = sandbox_member(bob, inbox_sandbox, "member")
    now = timezone.now()
    ApiKey.objects.filter(pk=mona_key.pk).update(last_verified_at=now)
    ApiKey.objects.filter(pk=bob_key.pk).update(last_verified_at=now - timedelta(hours=1))
    refresh_workspace(mona_key.workspace_id)
    turn = operation_track(
        owner_key=mona_key,
        kind="studio.turn",
        remote_id="turn-secret",
        title=TURN_TITLE,
        snapshot={"id": "turn-secret", "status": "completed", "conversation_id": "conv-secret"},
        context={"studio": "website"},
    )
    AuditEntry.objects.create(
        user=mona, username="mona", workspace_id=mona_key.workspace_id, method="PATCH", path=AUDIT_PATH, status=200
    )
    yield mona, mona_key, bob, bob_key, turn
    sandbox_key_revoked(inbox_sandbox, mona_key.key_id, revoked=False)


def pages(turn) -> list[str]:
    return [
        reverse("studio:index"),
        reverse("studio:turn", args=[turn.pk]),
        reverse("inbox:index"),
        reverse("agents:runs"),
        reverse("agents:approvals"),
        reverse("audit:index"),
        reverse("live:index"),
        reverse("live:detail", args=[turn.pk]),
    ]


def test_a_revoked_key_sees_no_workspace_data_and_the_teammates_inbox_keeps_refreshing(inbox_sandbox, team):
    mona, mona_key, bob, bob_key, turn = team
    browser = Client()
    browser.force_login(mona)
    # While her key works, she sees it all (what the rest of the test looks for).
    assert TURN_TITLE in browser.get(reverse("studio:index")).content.decode()
    assert APPROVAL_TEXT in browser.get(reverse("inbox:index")).content.decode()
    assert AUDIT_PATH in browser.get(reverse("audit:index")).content.decode()

    sandbox_key_revoked(inbox_sandbox, mona_key.key_id)
    # The next call with her key (the approvals page reads the service) is refused: marked at once.
    refused = browser.get(reverse("agents:approvals"))
    assert refused.status_code == 401
    mona_key.refresh_from_db()
    assert mona_key.refused_at is not None and mona_key.refused_request_id

    with RemoteCallCounter() as calls:
        for url in pages(turn):
            response = browser.get(url)
            content = response.content.decode()
            html = parse(content)
            assert response.status_code == 401, url
            box = one(html, "[data-remote-error]")
            assert box.get("data-request-id") == mona_key.refused_request_id, url
            assert select(box, f'a[href="{reverse("keys:list")}"]'), url
            for secret in (TURN_TITLE, APPROVAL_TEXT, AUDIT_PATH):
                assert secret not in content, (url, secret)
            assert select(html, "#inbox-header") == [], url  # no count in the header
        # The header's poll answers quietly and stops.
        header = browser.get(reverse("inbox:header") + "?v=old", **HTMX)
        assert header.status_code == 286 and "data-inbox-count" not in header.content.decode()
    assert calls.count == 0  # her refused key is asked nothing more

    # The workspace's refresh: her key (tried first) is skipped; Bob's works.
    WaitingItem.objects.filter(workspace_id=mona_key.workspace_id).delete()
    refresh_workspace(mona_key.workspace_id)
    refresh = WorkspaceRefresh.objects.get(workspace_id=mona_key.workspace_id)
    assert refresh.error == "" and refresh.refreshed_at == refresh.tried_at
    bob_browser = Client()
    bob_browser.force_login(bob)
    assert APPROVAL_TEXT in bob_browser.get(reverse("inbox:index")).content.decode()

    # Restored at the service and checked again on the keys page: access is back.
    sandbox_key_revoked(inbox_sandbox, mona_key.key_id, revoked=False)
    browser.post(reverse("keys:check", args=[mona_key.pk]))
    mona_key.refresh_from_db()
    assert mona_key.refused_at is None
    assert TURN_TITLE in browser.get(reverse("studio:index")).content.decode()
    assert APPROVAL_TEXT in browser.get(reverse("inbox:index")).content.decode()


def test_a_refusal_during_the_refresh_gives_way_to_the_next_working_key_in_the_same_run(inbox_sandbox, team):
    mona, mona_key, bob, bob_key, turn = team
    sandbox_key_revoked(inbox_sandbox, mona_key.key_id)  # not yet known to the console
    WaitingItem.objects.filter(workspace_id=mona_key.workspace_id).delete()

    kept = refresh_workspace(mona_key.workspace_id)

    assert kept > 0
    mona_key.refresh_from_db()
    assert mona_key.refused_at is not None
    assert WorkspaceRefresh.objects.get(workspace_id=mona_key.workspace_id).error == ""
    assert WaitingItem.objects.filter(workspace_id=mona_key.workspace_id, kind="approval").exists()


def test_with_no_working_key_left_the_refresh_names_the_refused_keys_for_administrators(inbox_sandbox, team):
    mona, mona_key, bob, bob_key, turn = team
    sandbox_key_revoked(inbox_sandbox, mona_key.key_id)
    sandbox_key_revoked(inbox_sandbox, bob_key.key_id)
    try:
        assert refresh_workspace(mona_key.workspace_id) == 0
    finally:
        sandbox_key_revoked(inbox_sandbox, bob_key.key_id, revoked=False)

    error = WorkspaceRefresh.objects.get(workspace_id=mona_key.workspace_id).error
    assert "No working key of this workspace" in error
    assert f"mona's {mona_key.masked}" in error and f"bob's {bob_key.masked}" in error
    assert "your" not in error.lower()
    # The rows the last good refresh kept stay.
    assert WaitingItem.objects.filter(workspace_id=mona_key.workspace_id, kind="approval").exists()
