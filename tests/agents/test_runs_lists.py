"""Runs lists (respx): one agent's with status and conversation filters, every
agent's merged newest first and paged through one cursor, the columns, and
live rows that poll the console only."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from agents.runs_across import decode_positions
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_poll
from tests.agents.support import AGENT_ID, HTMX, THREAD_ID, full_agent
from tests.html import one, parse, select, text_of, texts

OTHER_AGENT = "33333333-3333-4333-8333-333333333333"


def run(number: int, minute: int, *, agent: str = AGENT_ID, status: str = "completed", **extra) -> dict:
    body = {
        "id": f"cccccccc-0000-4000-8000-{number:012d}",
        "agent_id": agent,
        "status": status,
        "event": {"kind": "chat", "message": f"message {number}"},
        "created_at": f"2026-11-21T09:{minute:02d}:00Z",
        "completed_at": f"2026-11-21T09:{minute:02d}:30Z" if status == "completed" else None,
        "steps": [{"kind": "trigger"}, {"kind": "agent"}],
        "cost_usd": 0.01,
    }
    body.update(extra)
    return body


@pytest.fixture
def two_agents(remote, api_key):
    remote.get("/v1/agents").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    {"id": AGENT_ID, "name": "Welcome emails", "status": "active"},
                    {"id": OTHER_AGENT, "name": "Lead qualifier", "status": "draft"},
                ],
                "next_cursor": None,
            },
        )
    )

    def pages(agent: str, items: list[dict]):
        """Serve `items` two at a time, cursor = the offset."""

        def answer(request):
            offset = int(request.url.params.get("cursor") or 0)
            limit = int(request.url.params["limit"])
            chunk = items[offset : offset + min(limit, 2)]
            more = offset + 2 < len(items)
            return httpx.Response(200, json={"data": chunk, "next_cursor": str(offset + 2) if more else None})

        return remote.get(f"/v1/agents/{agent}/runs").mock(side_effect=answer)

    return pages


def test_every_agents_runs_are_merged_newest_first_and_paged(two_agents, logged_in_client):
    first = two_agents(AGENT_ID, [run(1, 50), run(2, 40), run(3, 30), run(4, 5)])
    second = two_agents(OTHER_AGENT, [run(5, 45, agent=OTHER_AGENT), run(6, 35, agent=OTHER_AGENT)])
    url = reverse("agents:runs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("agents.runs_across.PAGE_SIZE", 3)
        page = parse(logged_in_client.get(url).content)
        assert texts(page, "#run-list tbody tr td:nth-of-type(4) .muted") == [
            "“message 1”",
            "“message 5”",
            "“message 2”",
        ]
        headers = texts(page, "#run-list thead th")
        assert headers[:9] == [
            "Compare",
            "Started",
            "Agent",
            "Woken by",
            "Status",
            "Duration",
            "Steps",
            "Cost",
            "Waiting for",
        ]
        cells = texts(select(page, "#run-list tbody tr")[0], "td")[1:]  # the first is the compare checkbox
        assert cells[1] == "Welcome emails" and cells[4] == "30 s" and cells[5] == "2" and cells[6] == "$0.0100"

        following = one(page, "a[rel=next]")["href"]
        cursor = following.split("cursor=")[1]
        positions = decode_positions(cursor.replace("%3D", "="), agents=2)
        assert positions is not None
        older = parse(logged_in_client.get(url + following).content)
        assert texts(older, "#run-list tbody tr td:nth-of-type(4) .muted") == [
            "“message 6”",
            "“message 3”",
            "“message 4”",
        ]
        assert select(older, "a[rel=next]") == []
    assert first.call_count >= 2 and second.call_count >= 2


def test_a_tampered_cursor_starts_over_rather_than_failing(two_agents, logged_in_client):
    two_agents(AGENT_ID, [run(1, 50)])
    two_agents(OTHER_AGENT, [])
    for cursor in ("not-ours", "eJyLjgUAARUAuQ", "A" * 3000, "%00"):
        answer = logged_in_client.get(reverse("agents:runs") + f"?cursor={cursor}")
        assert answer.status_code == 200


def test_one_agents_runs_by_status_and_conversation(agent_routes, remote, logged_in_client):
    listing = logged_in_client.get(
        reverse("agents:detail", args=[AGENT_ID]) + f"?region=runs&status=waiting&thread={THREAD_ID}", **HTMX
    )
    sent = agent_routes.calls.last.request.url.params
    assert sent["status"] == "waiting" and sent["thread_id"] == THREAD_ID
    page = parse(listing.content)
    assert "In one conversation only" in text_of(one(page, "#agent-runs"))
    # The status tabs keep the conversation.
    assert all(f"thread={THREAD_ID}" in link["href"] for link in select(page, ".tabs a"))
    # A conversation id that is not one is not sent.
    logged_in_client.get(reverse("agents:detail", args=[AGENT_ID]) + "?region=runs&thread=x%00", **HTMX)
    assert "thread_id" not in agent_routes.calls.last.request.url.params


def test_a_run_still_going_is_a_live_row_that_polls_the_console_only(agent_routes, remote, user, logged_in_client):
    remote.get(f"/v1/agents/{AGENT_ID}").mock(return_value=httpx.Response(200, json=full_agent()))
    page = parse(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content)
    row = one(page, "#agent-runs tbody tr")
    op = TrackedOperation.objects.get(kind="agents.run")
    assert row["hx-get"].startswith(reverse("agents:run_row", args=[op.pk]) + "?v=")
    assert text_of(row.select("td")[6]) == "a person to decide an approval"  # no agent column here

    calls_before = len(remote.calls)
    unchanged = logged_in_client.get(row["hx-get"], **HTMX)
    assert unchanged.status_code == 204 and len(remote.calls) == calls_before

    remote.get(f"/v1/runs/{op.remote_id}").mock(
        return_value=httpx.Response(200, json=run(1, 1, status="completed", id=op.remote_id))
    )
    operation_poll(operation_id=op.pk)
    calls_before = len(remote.calls)
    final = logged_in_client.get(row["hx-get"], **HTMX)
    assert final.status_code == 286 and len(remote.calls) == calls_before
    cells = parse(final.content)
    assert one(cells, "tr")["data-status"] == "completed" and not one(cells, "tr").has_attr("hx-get")
    # Someone else's row is not theirs to read.
    assert logged_in_client.get(reverse("agents:run_row", args=[op.pk + 1000])).status_code == 404
