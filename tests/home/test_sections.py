"""The areas' home sections from the console's rows alone (no service): the
Agents section's window and its rows of odd ids, the ages in words, and the
one-minute memory of a remote read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.urls import reverse
from django.utils import timezone

from dashboard.frame.home import HomeViewer, waited_words
from dashboard.inbox.models import WaitingItem
from dashboard.keys.testing import stored_api_key
from tests.home.support import home_page, section
from tests.html import texts

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def stored_run(workspace_id: str, run_id: str, *, kind: str, since, **run) -> WaitingItem:
    return WaitingItem.objects.create(
        workspace_id=workspace_id,
        source="agents",
        remote_id=f"run:{run_id}",
        kind=kind,
        data={"run": {"id": run_id, "status": kind, **run}, "agent_id": "agent-1", "agent_name": "Lead qualifier"},
        since=since,
        refreshed_at=timezone.now(),
    )


def test_runs_of_the_last_day_are_shown_newest_first_and_an_id_no_path_can_carry_is_left_out(user, logged_in_client):
    key = stored_api_key(user=user, secret="svc_sk_hometest000000000000000000wxyz", workspace_id="ws-home")
    now = timezone.now()
    stored_run(key.workspace_id, "run-failed", kind="failed", since=now - timedelta(hours=2), error={"message": "Boom"})
    stored_run(
        key.workspace_id,
        "run-waiting",
        kind="waiting",
        since=now - timedelta(minutes=5),
        waiting_for={"kind": "approval", "approval_id": "ap-1"},
    )
    stored_run(key.workspace_id, "run-old", kind="failed", since=now - timedelta(days=2))
    stored_run(key.workspace_id, "odd/id", kind="failed", since=now - timedelta(hours=1))

    page = home_page(logged_in_client.get(reverse("home")).content)
    runs = section(page, "Runs that failed or wait (last 24 hours)")
    assert texts(runs, ".home-list__meta") == ["waits for an approval · 5 min ago", "Boom · 2 h ago"]
    assert [a["href"] for a in runs.select(".home-list__title")] == [
        reverse("agents:run", args=["run-waiting"]),
        reverse("agents:run", args=["run-failed"]),
    ]


def test_ages_are_short_words():
    assert waited_words(None, NOW) == ""
    assert waited_words(NOW - timedelta(seconds=20), NOW) == "under a minute"
    assert waited_words(NOW - timedelta(minutes=7), NOW) == "7 min"
    assert waited_words(NOW - timedelta(hours=2, minutes=59), NOW) == "2 h"
    assert waited_words(NOW - timedelta(hours=47), NOW) == "47 h"
    assert waited_words(NOW - timedelta(days=3, hours=1), NOW) == "3 days"


def test_a_remote_read_is_remembered_a_minute_per_person_and_workspace(user, other_user, db):
    reads: list[str] = []

    def viewer(person, workspace_id: str) -> HomeViewer:
        return HomeViewer(
            user=person, workspace_id=workspace_id, zone=UTC, can_write=True, now=NOW, client_of=lambda: None
        )

    def read(name: str):
        def go():
            reads.append(name)
            return [name]

        return go

    assert viewer(user, "ws-1").remembered("objects", read("first")) == ["first"]
    assert viewer(user, "ws-1").remembered("objects", read("again")) == ["first"]
    assert viewer(user, "ws-1").remembered_only("objects") == ["first"]
    # Another person, or another workspace, reads for themselves.
    assert viewer(other_user, "ws-1").remembered("objects", read("other person")) == ["other person"]
    assert viewer(user, "ws-2").remembered("objects", read("other workspace")) == ["other workspace"]
    assert viewer(user, "ws-3").remembered_only("objects") is None
    assert reads == ["first", "other person", "other workspace"]
