"""Following a run is a choice (respx): seeing the runs list or a run's page
subscribes nobody; "Follow this run" does and "Stop following" undoes it;
one waiting chat message is one toast, however many rows track its run."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from agents.live import INVOCATION_KIND, RUN_KIND
from dashboard.inbox.models import Notice
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_track
from tests.agents.support import AGENT_ID, HTMX, RUN_ID, THREAD_ID
from tests.html import one, parse, select, text_of

WAITING = {
    "id": RUN_ID,
    "agent_id": AGENT_ID,
    "thread_id": THREAD_ID,
    "status": "waiting",
    "waiting_for": {"kind": "approval", "approval_id": "aaaaaaaa-0000-4000-8000-000000000001"},
    "event": {"kind": "chat", "message": "Qualify Ada"},
    "created_at": "2026-11-21T09:00:00Z",
    "steps": [{"kind": "trigger", "started_at": "2026-11-21T09:00:00Z", "finished_at": "2026-11-21T09:00:01Z"}],
}


@pytest.fixture
def waiting_run(remote, api_key):
    remote.get("/v1/agents").mock(
        return_value=httpx.Response(
            200, json={"data": [{"id": AGENT_ID, "name": "Lead qualifier"}], "next_cursor": None}
        )
    )
    remote.get(f"/v1/agents/{AGENT_ID}/runs").mock(
        return_value=httpx.Response(200, json={"data": [WAITING], "next_cursor": None})
    )
    return remote.get(f"/v1/runs/{RUN_ID}").mock(return_value=httpx.Response(200, json=WAITING))


def toasts(client) -> list[str]:
    page = parse(client.get(reverse("inbox:header"), **HTMX).content)
    return [toast["data-notice-text"] for toast in select(page, ".toast")]


def test_seeing_the_runs_list_and_a_run_page_subscribes_nobody(waiting_run, logged_in_client):
    logged_in_client.get(reverse("agents:runs"))
    page = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)
    # The rows exist to show the run live, and nobody is told anything.
    op = TrackedOperation.objects.get(kind=RUN_KIND, remote_id=RUN_ID)
    assert not op.context.get("followed")
    assert toasts(logged_in_client) == []
    assert Notice.objects.count() == 0
    assert text_of(one(page, "#run-follow button")) == "Follow this run"
    inbox = parse(logged_in_client.get(reverse("inbox:index")).content)
    assert select(inbox, "[data-inbox-item]") == []


def test_follow_this_run_raises_one_needs_you_toast_and_stop_following_ends_it(waiting_run, logged_in_client):
    url = reverse("agents:run_follow", args=[RUN_ID])
    answer = logged_in_client.post(url, {"following": "1"}, **HTMX)
    form = one(parse(answer.content), "#run-follow")
    assert text_of(one(form, "button")) == "Stop following"
    assert "You follow this run" in text_of(form)
    op = TrackedOperation.objects.get(kind=RUN_KIND, remote_id=RUN_ID)
    assert op.context["followed"] is True

    assert toasts(logged_in_client) == ["Agent run needs you: Qualify Ada"]
    assert toasts(logged_in_client) == []  # once

    answer = logged_in_client.post(url, {"following": "0"}, **HTMX)
    assert text_of(one(parse(answer.content), "#run-follow button")) == "Follow this run"
    op.refresh_from_db()
    assert op.context["followed"] is False
    # Without JavaScript the form posts and comes back to the run's page.
    plain = logged_in_client.post(url, {"following": "1"})
    assert plain.status_code == 302 and plain["Location"] == reverse("agents:run", args=[RUN_ID])
    page = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)
    assert text_of(one(page, "#run-follow button")) == "Stop following"


def test_one_waiting_chat_message_is_one_toast_even_with_its_run_page_open(waiting_run, api_key, logged_in_client):
    # The person's message waits for an approval (the chat's row) ...
    message = operation_track(
        owner_key=api_key,
        kind=INVOCATION_KIND,
        remote_id="idem-1",
        title="Qualify Ada",
        snapshot={"status": "waiting", "run_id": RUN_ID, "waiting_for": {"kind": "approval"}},
        context={"agent_id": AGENT_ID, "run_id": RUN_ID},
    )
    TrackedOperation.objects.filter(pk=message.pk).update(status="waiting")
    # ... and "Decide it on the run's page" opened the run (a second row, same event).
    page = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)
    TrackedOperation.objects.filter(kind=RUN_KIND).update(status="waiting", snapshot=WAITING)
    assert TrackedOperation.objects.count() == 2

    shown = [toast["data-notice-text"] for toast in select(page, ".toast")]
    shown += toasts(logged_in_client) + toasts(logged_in_client)
    assert shown == ["Message to an agent needs you: Qualify Ada"]
    assert Notice.objects.count() == 1
    items = select(parse(logged_in_client.get(reverse("inbox:index")).content), "[data-inbox-item]")
    assert len(items) == 1
