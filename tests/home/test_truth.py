"""Home tells the truth (issue 40): after someone opens Runs (which tracks
every run still going, to show it live), Home's ages and windows are the
service's own run and approval times, never when the console began
following them, and those runs are not "yours"; "What needs you" polls the
console's database and, before the workspace's first inbox refresh, says
it is reading the workspace instead of "Nothing waits for you"."""

from __future__ import annotations

from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from dashboard.api.testing import RemoteCallCounter
from dashboard.inbox.models import WorkspaceRefresh
from dashboard.inbox.tasks import refresh_workspace
from dashboard.live.models import TrackedOperation
from dashboard.web.reading import when
from tests.home.support import home_page, sandbox_person, section
from tests.html import one, select, text_of

HTMX = {"HTTP_HX_REQUEST": "true"}


def _service_times(key) -> dict[str, str]:
    """Every waiting run's and pending approval's time, as the sandbox gives them."""
    client = key.client()
    times = {}
    for agent in client.get("/v1/agents")["data"]:
        for run in client.get(f"/v1/agents/{agent['id']}/runs", params={"status": "waiting"})["data"]:
            times[f"run:{run['id']}"] = run["created_at"]
    for approval in client.get("/v1/approvals", params={"status": "pending"})["data"]:
        times[f"approval:{approval['id']}"] = approval["created_at"]
    return times


def test_after_runs_is_opened_home_ages_are_the_services_and_those_runs_are_not_yours(
    console, django_user_model, client
):
    user, key = sandbox_person(django_user_model, console, username="rhea", role="approver", kind="demo")
    client.force_login(user)
    refresh_workspace(key.workspace_id)
    assert client.get(reverse("agents:runs")).status_code == 200
    tracked = TrackedOperation.objects.filter(started_by=user, kind="agents.run", is_final=False)
    assert tracked.exists()  # the list tracks what still runs or waits, to show it live

    page = home_page(client.get(reverse("home")).content)
    # None of those runs is the person's own work.
    running = one(page, "section#home-running")
    assert select(running, "[data-home-running]") == []
    assert text_of(one(running, ".home-empty")).startswith("Nothing of yours is running.")

    # What needs you: each age is the service's time of the run or approval.
    times = _service_times(key)
    needs = section(page, "What needs you")
    rows = select(needs, "[data-home-item]")
    assert rows and any(row["data-home-item"] in times for row in rows)
    for row in rows:
        told = times.get(row["data-home-item"])
        if told is not None:
            assert when(one(row, "time")["datetime"]) == when(told)
            assert "under a minute" not in text_of(row)

    # The last 24 hours are the runs' own: a run waiting for days is not in that window.
    runs = section(page, "Runs that failed or wait (last 24 hours)")
    now = timezone.now()
    for stamp in select(runs, "time"):
        assert now - when(stamp["datetime"]) <= timedelta(hours=24, minutes=1)


def test_what_needs_you_reads_the_workspace_until_its_first_refresh_then_polls_204(
    console, django_user_model, client, django_assert_max_num_queries
):
    user, key = sandbox_person(django_user_model, console, username="ivo", role="approver", kind="demo")
    client.force_login(user)
    page = home_page(client.get(reverse("home")).content)
    needs = one(page, "section#home-needs-you")
    assert text_of(one(needs, "[data-home-reading]")).startswith("Reading the workspace…")
    assert select(needs, ".home-empty") == []
    url = needs["hx-get"]
    assert url.startswith(reverse("home_needs_you") + "?v=") and needs["hx-trigger"] == "every 5s"

    # Unchanged: 204 from a few queries, no remote call.
    with RemoteCallCounter() as calls, django_assert_max_num_queries(8):
        unchanged = client.get(url, **HTMX)
    assert unchanged.status_code == 204 and unchanged.content == b""
    assert calls.paths == []

    # The worker's first refresh: the next poll shows what waits, never "nothing waits" before.
    refresh_workspace(key.workspace_id)
    assert WorkspaceRefresh.objects.get(workspace_id=key.workspace_id).refreshed_at is not None
    with RemoteCallCounter() as calls:
        changed = client.get(url, **HTMX)
    assert changed.status_code == 200 and calls.paths == []
    card = one(changed.content, "section#home-needs-you")
    assert select(card, "[data-home-item]") and not select(card, "[data-home-reading]")
    assert "aria-busy" not in card.attrs
    assert client.get(card["hx-get"], **HTMX).status_code == 204


def test_the_areas_sections_poll_with_the_inbox_version(person, client):
    user, key = person("sol")
    client.force_login(user)
    page = home_page(client.get(reverse("home")).content)
    wrapper = one(page, "#home-sections")
    assert wrapper["hx-get"].startswith(reverse("home_sections") + "?v=")
    with RemoteCallCounter() as calls:
        assert client.get(wrapper["hx-get"], **HTMX).status_code == 204
    assert calls.paths == []
    # The person's run failed meanwhile (the inbox's version moves): the sections again.
    TrackedOperation.objects.filter(started_by=user, kind="agents.invocation").update(updated_at=timezone.now())
    WorkspaceRefresh.objects.filter(workspace_id=key.workspace_id).update(refreshed_at=None)
    changed = client.get(wrapper["hx-get"], **HTMX)
    assert changed.status_code == 200
    assert [section["data-home-section"] for section in select(changed.content, "section")] == [
        section["data-home-section"] for section in select(wrapper, "section")
    ]
