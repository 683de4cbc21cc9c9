"""Agent insights: a run's facts, the summary's rules, the worker's refresh
against a real sandbox (numbers equal a reference computed straight from
the sandbox's runs; an incremental refresh reads only new pages, counted),
the pages (parsed HTML: the charts and the tables of the same numbers)."""

from __future__ import annotations

import math
from collections import Counter
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone

from agents import selectors, services, tasks
from agents.insights import Fact, insights_charts, insights_summary, percentile, run_fact, window_start
from agents.models import InsightsRefresh, RunFact
from dashboard.api.testing import RemoteCallCounter
from dashboard.outbox.models import OutboxMessage
from tests.html import one, select, text_of

pytestmark = pytest.mark.django_db

WORKSPACE = "ws-test"  # store_demo_key's workspace id (dashboard/keys/testing.py)
BERLIN = ZoneInfo("Europe/Berlin")
HTMX = {"HTTP_HX_REQUEST": "true"}


# --- pure: a run's facts and the summary -----------------------------------------------


def test_a_run_body_gives_its_facts_and_odd_bodies_are_not_guessed():
    fact = run_fact(
        {
            "id": "r1",
            "agent_id": "a1",
            "status": "completed",
            "created_at": "2026-11-20T10:00:00Z",
            "completed_at": "2026-11-20T10:01:30Z",
            "cost_usd": 0.25,
            "approvals": [
                {"status": "approved", "created_at": "2026-11-20T10:00:10Z", "decided_at": "2026-11-20T10:00:50Z"},
                {"status": "pending", "created_at": "2026-11-20T10:01:00Z"},
            ],
        }
    )
    assert fact is not None
    assert (fact.run_id, fact.agent_id, fact.status, fact.final) == ("r1", "a1", "completed", True)
    assert fact.seconds == 90
    assert fact.cost_usd == 0.25
    assert (fact.approvals, fact.approvals_waiting, fact.approval_wait_seconds) == (2, 1, 40)

    waiting = run_fact(
        {"id": "r2", "status": "waiting", "created_at": "2026-11-20T10:00:00", "waiting_for": {"kind": "approval"}},
        agent_id="a2",
    )
    assert waiting is not None and waiting.agent_id == "a2" and not waiting.final
    assert waiting.started_at.tzinfo is not None  # no offset: UTC, as the contract's times are
    assert (waiting.approvals, waiting.approvals_waiting, waiting.seconds, waiting.cost_usd) == (1, 1, None, None)
    assert run_fact({"status": "completed", "created_at": "2026-11-20T10:00:00Z"}) is None  # no id
    assert run_fact({"id": "r3", "status": "completed"}) is None  # no start: can't be placed on a day
    assert run_fact("not a run") is None


def test_percentile_is_the_nearest_rank():
    assert percentile([], 0.5) is None
    assert percentile([7], 0.95) == 7
    assert percentile([4, 1, 3, 2], 0.5) == 2
    assert percentile(range(1, 101), 0.95) == 95


def _fact(run_id, started, status="completed", seconds=60.0, cost=0.1, **more) -> Fact:
    return Fact(
        run_id=run_id,
        agent_id=more.pop("agent_id", "a1"),
        started_at=started,
        ended_at=started + timedelta(seconds=seconds) if status in ("completed", "failed", "cancelled") else None,
        status=status,
        cost_usd=cost,
        approvals=more.pop("approvals", 0),
        approvals_waiting=more.pop("approvals_waiting", 0),
        approval_wait_seconds=more.pop("wait", None),
    )


def test_the_summary_counts_days_in_the_workspace_zone_and_states_its_rates():
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    facts = [
        # 23:30 UTC on the 24th is already the 25th in Berlin.
        _fact("late", datetime(2026, 11, 24, 23, 30, tzinfo=UTC), seconds=10, cost=1.0),
        _fact("f", datetime(2026, 11, 25, 8, 0, tzinfo=UTC), status="failed", seconds=30, cost=0.5),
        _fact("c", datetime(2026, 11, 23, 8, 0, tzinfo=UTC), status="cancelled", seconds=50, approvals=1, wait=600),
        _fact("w", datetime(2026, 11, 25, 9, 0, tzinfo=UTC), status="waiting", approvals=1, approvals_waiting=1),
        _fact("old", datetime(2026, 11, 1, 9, 0, tzinfo=UTC)),  # outside the 7 days
    ]
    summary = insights_summary(facts, days=7, now=now, zone=BERLIN)

    assert [day.day.isoformat() for day in summary.days][-1] == "2026-11-25"
    assert len(summary.days) == 7
    today = summary.days[-1]
    assert today.counts == {"completed": 1, "failed": 1, "cancelled": 0, "in_progress": 1}
    assert today.cost_usd == pytest.approx(1.6)
    assert (today.p50_seconds, today.p95_seconds) == (10, 30)
    assert summary.runs == 4 and summary.finished == 3
    assert summary.success_rate == pytest.approx(1 / 3)
    assert summary.success_words == "33%"
    assert (summary.p50_seconds, summary.p95_seconds) == (30, 50)
    assert (summary.approvals, summary.approvals_waiting, summary.runs_that_waited) == (2, 1, 1)
    assert summary.wait_seconds == 600 and summary.wait_words == "10 min"
    assert window_start(days=7, now=now, zone=BERLIN) == datetime(2026, 11, 19, tzinfo=BERLIN)


def test_the_charts_draw_the_summarys_numbers():
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    facts = [
        _fact("a", datetime(2026, 11, 25, 8, 0, tzinfo=UTC), seconds=5400, cost=0.02),
        _fact("b", datetime(2026, 11, 25, 9, 0, tzinfo=UTC), status="failed", seconds=60, cost=0.01),
        _fact("c", datetime(2026, 11, 23, 9, 0, tzinfo=UTC), seconds=600, cost=0.5),
    ]
    summary = insights_summary(facts, days=7, now=now, zone=BERLIN)
    drawn = insights_charts(summary)

    assert [column.total for column in drawn.runs] == [day.runs for day in summary.days]
    today = drawn.runs[-1]
    assert [(segment.key, segment.title) for segment in today.segments] == [
        ("completed", "Nov 25: 1 completed"),
        ("failed", "Nov 25: 1 failed"),
    ]
    assert [column.total for column in drawn.cost] == pytest.approx([day.cost_usd for day in summary.days])
    assert drawn.cost[-3].segments[0].title == "Nov 23: $0.50"
    # One unit a axis, whole numbers of it: the step's unit.
    assert [tick.label for tick in drawn.duration_axis.ticks] == ["0", "30 min", "60 min", "90 min"]
    assert [tick.label for tick in drawn.cost_axis.ticks] == ["$0.00", "$0.20", "$0.40", "$0.60"]
    p50, p95 = drawn.durations
    assert [point.index for point in p95.points] == [4, 6]  # days with a finished run only
    assert p95.points[-1].label == "Nov 25: p95 1 h 30 min"
    assert p95.paths == []  # two known days with a gap between: points, no line across the gap


@pytest.mark.parametrize(
    ("seconds", "cost", "durations", "costs"),
    [
        # A run that took almost a week: round days, never "6.94444 d".
        (600_000, 0.012, ["0", "2 d", "4 d", "6 d", "8 d"], ["$0.000", "$0.005", "$0.010", "$0.015"]),
        (40 * 3600, 3.5, ["0", "12 h", "24 h", "36 h", "48 h"], ["$0", "$1", "$2", "$3", "$4"]),
        (45, 0.0003, ["0", "15 s", "30 s", "45 s"], ["$0.0000", "$0.0001", "$0.0002", "$0.0003"]),
    ],
)
def test_axis_labels_are_round_steps_in_one_unit_and_one_precision(seconds, cost, durations, costs):
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    facts = [_fact("a", datetime(2026, 11, 25, 8, 0, tzinfo=UTC), seconds=seconds, cost=cost)]
    drawn = insights_charts(insights_summary(facts, days=7, now=now, zone=BERLIN))
    assert [tick.label for tick in drawn.duration_axis.ticks] == durations
    assert [tick.label for tick in drawn.cost_axis.ticks] == costs
    for axis in (drawn.duration_axis, drawn.cost_axis):
        labels = [tick.label for tick in axis.ticks]
        assert len(set(labels)) == len(labels)  # no label twice


def test_no_runs_is_said_plainly_not_as_zero_percent():
    summary = insights_summary([], days=30, now=timezone.now(), zone=BERLIN)
    assert len(summary.days) == 30
    assert summary.success_rate is None and summary.success_words == "—"
    assert summary.p50_words == "—" and summary.cost_words == "$0.00"


# --- against the sandbox ---------------------------------------------------------------------


def _all_pages(http: httpx.Client, path: str, **params) -> list[dict]:
    items, cursor = [], None
    while True:
        body = http.get(path, params={**params, "limit": 100, **({"cursor": cursor} if cursor else {})}).json()
        items += body["data"]
        cursor = body.get("next_cursor")
        if not cursor:
            return items


def _sandbox_http(handle) -> httpx.Client:
    return httpx.Client(base_url=handle.base_url, headers={"Authorization": f"Bearer {handle.mint_key('demo')}"})


def sandbox_runs(handle) -> dict[str, list[dict]]:
    """Every run of every agent of the demo workspace, newest first, read
    straight from the sandbox (not through the console)."""
    with _sandbox_http(handle) as http:
        agents = _all_pages(http, "/v1/agents") + _all_pages(http, "/v1/agents", status="archived")
        return {agent["id"]: _all_pages(http, f"/v1/agents/{agent['id']}/runs") for agent in agents}


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def _rank(values: list[float], share: float) -> float | None:
    ordered = sorted(values)
    return ordered[math.ceil(share * len(ordered)) - 1] if ordered else None


def reference(runs: list[dict], *, days: int, now: datetime, zone: ZoneInfo) -> dict:
    """The numbers of the window computed directly from run bodies."""
    today = now.astimezone(zone).date()
    first = today - timedelta(days=days - 1)
    inside = [run for run in runs if first <= _time(run["created_at"]).astimezone(zone).date() <= today]
    final = [run for run in inside if run["status"] in ("completed", "failed", "cancelled")]
    durations = [(_time(run["completed_at"]) - _time(run["created_at"])).total_seconds() for run in final]
    per_day: dict = {}
    for run in inside:
        day = _time(run["created_at"]).astimezone(zone).date()
        outcome = run["status"] if run in final else "in_progress"
        per_day.setdefault(day, Counter())[outcome] += 1
        per_day[day]["cost"] += run["cost_usd"] or 0
    waits = []
    for run in inside:
        decided = [
            (_time(item["decided_at"]) - _time(item["created_at"])).total_seconds()
            for item in run["approvals"]
            if item.get("decided_at")
        ]
        if decided:
            waits.append(sum(decided))
    return {
        "runs": len(inside),
        "completed": sum(run["status"] == "completed" for run in inside),
        "failed": sum(run["status"] == "failed" for run in inside),
        "cancelled": sum(run["status"] == "cancelled" for run in inside),
        "in_progress": len(inside) - len(final),
        "success_rate": (sum(run["status"] == "completed" for run in final) / len(final)) if final else None,
        "p50": _rank(durations, 0.5),
        "p95": _rank(durations, 0.95),
        "cost": sum(run["cost_usd"] or 0 for run in inside),
        "approvals": sum(len(run["approvals"]) for run in inside),
        "wait": sum(waits),
        "per_day": per_day,
    }


def make_runs(handle, agent_id: str, count: int) -> None:
    """Runs made through the sandbox's API (as a teammate's chat would), then
    the sandbox's clock moved on so they end."""
    with _sandbox_http(handle) as http:
        for number in range(count):
            answer = http.post(f"/v1/agents/{agent_id}/runs", json={"message": f"Insights test message {number}"})
            assert answer.status_code in (200, 202), answer.text
    handle.advance(service_seconds=60)


def agent_whose_runs_complete(handle) -> str:
    """An agent whose runs end by themselves (no approval to wait for): a
    run kept as over is where an incremental read stops."""
    for agent_id in sandbox_runs(handle):
        make_runs(handle, agent_id, 1)
        if sandbox_runs(handle)[agent_id][0]["status"] == "completed":
            return agent_id
    raise AssertionError("no demo agent completes a run by itself")


def console_summary(*, days: int, now: datetime):
    facts = selectors.insights_facts(workspace_id=WORKSPACE, since=window_start(days=days, now=now, zone=BERLIN))
    return insights_summary(facts, days=days, now=now, zone=BERLIN)


def assert_equals_reference(summary, expected) -> None:
    assert summary.runs == expected["runs"] > 0
    assert {key: summary.counts[key] for key in ("completed", "failed", "cancelled", "in_progress")} == {
        key: expected[key] for key in ("completed", "failed", "cancelled", "in_progress")
    }
    assert summary.success_rate == pytest.approx(expected["success_rate"])
    assert summary.p50_seconds == pytest.approx(expected["p50"])
    assert summary.p95_seconds == pytest.approx(expected["p95"])
    assert summary.cost_usd == pytest.approx(expected["cost"])
    assert summary.approvals == expected["approvals"]
    assert summary.wait_seconds == pytest.approx(expected["wait"])
    for day in summary.days:
        counted = expected["per_day"].get(day.day, Counter())
        assert day.counts == {key: counted[key] for key in ("completed", "failed", "cancelled", "in_progress")}
        assert day.cost_usd == pytest.approx(counted["cost"])


def test_the_refresh_keeps_numbers_equal_to_a_reference_over_the_sandboxs_runs(sandbox_client, seeded_sandbox):
    first_agent = next(iter(sandbox_runs(seeded_sandbox)))
    make_runs(seeded_sandbox, first_agent, 2)

    written = tasks.insights_refresh(WORKSPACE)

    runs = sandbox_runs(seeded_sandbox)
    every_run = [run for items in runs.values() for run in items]
    assert written == len(every_run) == RunFact.objects.filter(workspace_id=WORKSPACE).count()
    state = InsightsRefresh.objects.get(workspace_id=WORKSPACE)
    assert state.refreshed_at is not None and state.error == ""
    assert set(state.agent_names) == set(runs)
    now = timezone.now()
    for days in (7, 30):
        assert_equals_reference(
            console_summary(days=days, now=now), reference(every_run, days=days, now=now, zone=BERLIN)
        )
    # One agent's insights are its runs only.
    own = selectors.insights_facts(workspace_id=WORKSPACE, since=now - timedelta(days=31), agent_id=first_agent)
    assert {fact.run_id for fact in own} == {run["id"] for run in runs[first_agent]}


def _expected_list_calls(items: list[dict], *, known_final: set[str], page: int) -> tuple[int, set[str]]:
    """Pages of one agent's list an incremental pass reads (up to the first
    run kept as over) and the ids it walks past."""
    for index, run in enumerate(items):
        if run["id"] in known_final:
            return index // page + 1, {item["id"] for item in items[:index]}
    return max(1, math.ceil(len(items) / page)), {item["id"] for item in items}


def test_an_incremental_refresh_reads_only_the_new_pages(sandbox_client, seeded_sandbox, monkeypatch):
    monkeypatch.setattr(services, "INSIGHTS_PAGE", 2)  # pages of two runs: paging shows in the counts
    agent_id = agent_whose_runs_complete(seeded_sandbox)
    make_runs(seeded_sandbox, agent_id, 6)  # a history of several pages
    with RemoteCallCounter() as first:
        services.insights_refresh(workspace_id=WORKSPACE)
    make_runs(seeded_sandbox, agent_id, 3)

    runs = sandbox_runs(seeded_sandbox)
    known_final = set(RunFact.objects.filter(workspace_id=WORKSPACE, final=True).values_list("run_id", flat=True))
    not_over = set(RunFact.objects.filter(workspace_id=WORKSPACE, final=False).values_list("run_id", flat=True))
    expected_calls, walked = {}, set()
    for agent, items in runs.items():
        expected_calls[agent], seen = _expected_list_calls(items, known_final=known_final, page=2)
        walked |= seen
    with RemoteCallCounter() as again:
        services.insights_refresh(workspace_id=WORKSPACE)

    list_calls = Counter(path.split("/")[3] for path in again.paths if path.endswith("/runs"))
    assert dict(list_calls) == expected_calls
    full_read = sum(1 for path in first.paths if path == f"/v1/agents/{agent_id}/runs")
    assert 2 <= list_calls[agent_id] < full_read  # three new runs on pages of two, not the history
    # Runs kept while not over that the lists no longer reach are read one by one.
    rechecked = {path.rsplit("/", 1)[1] for path in again.paths if path.startswith("/v1/runs/")}
    assert rechecked == not_over - walked
    # Besides: the agents list, read whole each time (it names the agents; archived ones too).
    agent_lists = again.paths.count("/v1/agents")
    assert agent_lists == first.paths.count("/v1/agents") >= 2
    assert again.count == agent_lists + sum(expected_calls.values()) + len(rechecked)
    every_run = [run for items in runs.values() for run in items]
    assert RunFact.objects.filter(workspace_id=WORKSPACE).count() == len(every_run)
    now = timezone.now()
    assert_equals_reference(console_summary(days=30, now=now), reference(every_run, days=30, now=now, zone=BERLIN))


def test_the_insights_page_draws_the_charts_with_the_same_numbers_in_tables(sandbox_client, seeded_sandbox):
    services.insights_refresh(workspace_id=WORKSPACE)
    every_run = [run for items in sandbox_runs(seeded_sandbox).values() for run in items]

    with RemoteCallCounter() as calls:
        response = sandbox_client.get(reverse("agents:insights"), {"days": "30"})
    html = response.content.decode()

    assert response.status_code == 200
    assert calls.count == 0  # the database only
    expected = reference(every_run, days=30, now=timezone.now(), zone=BERLIN)
    assert len(select(html, "#insights svg.chart")) == 3
    assert len(select(html, "#insights svg.chart rect")) >= 2
    rows = select(html, "table.insights-runs tbody tr")
    assert len(rows) == 30
    runs_total = one(html, "table.insights-runs tfoot tr")
    cells = [text_of(cell) for cell in runs_total.select("td")]
    assert cells == [str(expected[key]) for key in ("completed", "failed", "cancelled", "in_progress", "runs")]
    per_day = [int(text_of(row.select("td")[-1])) for row in rows]
    assert sum(per_day) == expected["runs"]
    assert text_of(one(html, "table.insights-cost tfoot td")) == services_money(expected["cost"])
    agent_rows = select(html, "table.insights-agents tbody tr")
    assert sum(int(text_of(row.select("td")[0])) for row in agent_rows) == expected["runs"]
    assert one(html, "#insights [aria-current=page]").get_text(strip=True) == "Last 30 days"
    assert "svc_sk_" not in html
    # Numbers read within the interval: opening the page asks for no refresh.
    assert not OutboxMessage.objects.filter(task_name="agents.insights_refresh").exists()


def services_money(value: float) -> str:
    from agents.insights import money

    return money(value)


def test_old_numbers_ask_the_worker_once_through_the_outbox(sandbox_client):
    first = sandbox_client.get(reverse("agents:insights"))
    sandbox_client.get(reverse("agents:insights"), {"days": "30"})

    assert first.status_code == 200
    sent = OutboxMessage.objects.filter(task_name="agents.insights_refresh")
    assert [message.args for message in sent] == [[WORKSPACE]]  # one ask per interval, an id only
    assert "Reading new runs now" in text_of(one(first.content.decode(), ".insights__freshness"))
    assert text_of(one(first.content.decode(), ".empty-state"))
    assert services.insights_workspaces_due() == [WORKSPACE]  # beat keeps it fresh while people look


def test_a_first_visit_fills_itself_in_polling_the_console_until_the_runs_are_read(
    sandbox_client, django_assert_max_num_queries
):
    page = one(sandbox_client.get(reverse("agents:insights"), {"days": "30"}).content.decode(), "section#insights")
    assert page["aria-busy"] == "true" and page["hx-trigger"] == "every 3s"
    url = page["hx-get"]
    assert url.startswith(reverse("agents:insights_poll") + "?days=30&v=")
    # While the refresh is on its way: 204 from a few queries, no remote call.
    with RemoteCallCounter() as calls, django_assert_max_num_queries(4):
        waiting = sandbox_client.get(url, HTTP_HX_REQUEST="true")
    assert waiting.status_code == 204 and calls.paths == []
    # The worker read the runs: the region with its numbers, and 286 stops the polling.
    services.insights_refresh(workspace_id=WORKSPACE)
    with RemoteCallCounter() as calls:
        done = sandbox_client.get(url, HTTP_HX_REQUEST="true")
    assert done.status_code == 286 and calls.paths == []
    region = one(done.content.decode(), "section#insights")
    assert not region.has_attr("hx-get") and "aria-busy" not in region.attrs
    assert "Runs read" in text_of(one(region, ".insights__freshness"))
    assert select(region, "svg.chart")


def test_the_agent_page_has_the_agents_insights_and_its_window_swaps_the_section(sandbox_client, seeded_sandbox):
    services.insights_refresh(workspace_id=WORKSPACE)
    runs = sandbox_runs(seeded_sandbox)
    agent_id = max(runs, key=lambda agent: len(runs[agent]))

    page = sandbox_client.get(reverse("agents:detail", args=[agent_id])).content.decode()
    section = one(page, "section#insights")
    assert len(section.select("svg.chart")) == 3
    assert text_of(one(page, "section#insights table.insights-runs tfoot td:last-child")) == str(
        reference(runs[agent_id], days=7, now=timezone.now(), zone=BERLIN)["runs"]
    )
    tab = next(link for link in section.select("nav a") if link.get_text(strip=True) == "Last 30 days")
    assert tab["href"] == tab["hx-get"] == reverse("agents:agent_insights", args=[agent_id]) + "?days=30"

    swapped = sandbox_client.get(tab["hx-get"], **HTMX).content.decode()
    assert [root.get("id") for root in select(swapped, "section")] == ["insights"]
    assert len(select(swapped, "table.insights-runs tbody tr")) == 30
    assert not select(swapped, "table.insights-agents")  # one agent: no per-agent table


# --- the refresh's edges, against the mocked service -----------------------------------------


def _stored(run_id: str, *, final: bool, started: datetime, status: str | None = None) -> RunFact:
    return RunFact.objects.create(
        workspace_id=WORKSPACE,
        run_id=run_id,
        agent_id=AGENT,
        started_at=started,
        ended_at=started + timedelta(seconds=30) if final else None,
        status=status or ("completed" if final else "waiting"),
        final=final,
        read_at=started,
        words_read=True,  # read since the runs search keeps words (else read again once)
    )


AGENT = "22222222-2222-4222-8222-222222222222"


def test_runs_the_lists_no_longer_reach_are_read_one_by_one_and_a_vanished_one_dropped(remote, api_key):
    now = timezone.now()
    _stored("old-final", final=True, started=now - timedelta(days=3))
    _stored("still-open", final=False, started=now - timedelta(days=4))
    _stored("vanished", final=False, started=now - timedelta(days=5))
    _stored("long-gone", final=True, started=now - timedelta(days=40))  # past every window: pruned

    def agents(request):
        archived = request.url.params.get("status") == "archived"
        return httpx.Response(
            200, json={"data": [] if archived else [{"id": AGENT, "name": "Welcome emails"}], "next_cursor": None}
        )

    remote.get("/v1/agents").mock(side_effect=agents)
    new = {
        "id": "brand-new",
        "status": "completed",
        "created_at": _iso(now - timedelta(hours=1)),
        "completed_at": _iso(now - timedelta(minutes=59)),
        "cost_usd": 0.5,
        "approvals": [],
    }
    listed = remote.get(f"/v1/agents/{AGENT}/runs").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [new, {"id": "old-final", "status": "completed", "created_at": _iso(now - timedelta(days=3))}],
                "next_cursor": "more-we-never-need",
            },
        )
    )
    remote.get("/v1/runs/still-open").mock(
        return_value=httpx.Response(
            200,
            json={
                "id": "still-open",
                "agent_id": AGENT,
                "status": "cancelled",
                "created_at": _iso(now - timedelta(days=4)),
                "completed_at": _iso(now - timedelta(days=4) + timedelta(minutes=2)),
                "approvals": [
                    {
                        "status": "rejected",
                        "created_at": _iso(now - timedelta(days=4)),
                        "decided_at": _iso(now - timedelta(days=4) + timedelta(minutes=2)),
                    }
                ],
            },
        )
    )
    remote.get("/v1/runs/vanished").mock(
        return_value=httpx.Response(404, json={"error": {"type": "not_found", "message": "No such run."}})
    )

    assert services.insights_refresh(workspace_id=WORKSPACE, now=now) == 2

    assert listed.call_count == 1  # the first page reached a run kept as over: no older page
    kept = {fact.run_id: fact for fact in RunFact.objects.filter(workspace_id=WORKSPACE)}
    assert set(kept) == {"old-final", "still-open", "brand-new"}
    assert (kept["still-open"].status, kept["still-open"].final, kept["still-open"].approval_wait_seconds) == (
        "cancelled",
        True,
        120,
    )
    assert kept["brand-new"].cost_usd == 0.5 and kept["brand-new"].agent_id == AGENT
    state = InsightsRefresh.objects.get(workspace_id=WORKSPACE)
    assert state.agent_names == {AGENT: "Welcome emails"} and state.refreshed_at == now


def test_a_failed_read_keeps_the_facts_and_says_why(remote, api_key):
    now = timezone.now()
    _stored("old-final", final=True, started=now - timedelta(days=3))
    remote.get("/v1/agents").mock(
        return_value=httpx.Response(200, json={"data": [{"id": AGENT, "name": "A"}], "next_cursor": None})
    )
    remote.get(f"/v1/agents/{AGENT}/runs").mock(
        return_value=httpx.Response(503, json={"error": {"type": "server_error", "message": "Down."}})
    )

    services.insights_refresh(workspace_id=WORKSPACE, now=now)

    state = InsightsRefresh.objects.get(workspace_id=WORKSPACE)
    assert state.refreshed_at is None and state.tried_at == now and state.error
    assert RunFact.objects.filter(run_id="old-final").exists()


def test_no_working_key_is_recorded_not_raised(db):
    services.insights_refresh(workspace_id="ws-nobody")
    assert "No working key" in InsightsRefresh.objects.get(workspace_id="ws-nobody").error


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def test_every_role_reads_the_insights_a_viewer_too(client, user):
    from dashboard.keys.testing import stored_api_key
    from tests.agents.support import SECRET

    stored_api_key(user=user, secret=SECRET, workspace_id=WORKSPACE, member_role="viewer")
    now = timezone.now()
    _stored("seen", final=True, started=now - timedelta(hours=2))
    client.force_login(user)

    for url in (reverse("agents:insights"), reverse("agents:agent_insights", args=[AGENT])):
        response = client.get(url)
        assert response.status_code == 200
        html = response.content.decode()
        assert text_of(one(html, "table.insights-runs tfoot td:last-child")) == "1"
        assert not select(html, "#insights form")  # nothing to write here


def test_a_look_a_moment_after_another_writes_nothing(db):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    now = timezone.now()
    services.insights_request(workspace_id=WORKSPACE, now=now)  # asks for a refresh (outbox)
    with CaptureQueriesContext(connection) as queries:
        state = services.insights_request(workspace_id=WORKSPACE, now=now + timedelta(seconds=20))
    assert len(queries) == 1 and queries[0]["sql"].lstrip().upper().startswith("SELECT")
    assert state.requested_at == now
    assert OutboxMessage.objects.filter(task_name="agents.insights_refresh").count() == 1


def test_beat_refreshes_looked_at_workspaces_on_the_interval(settings):
    from dashboard.celery import app
    from dashboard.schedule import beat_schedule

    entry = beat_schedule()["agents.insights_refresh_due"]
    assert entry["task"] == "agents.insights_refresh_due"
    assert entry["schedule"] == settings.AGENTS_INSIGHTS_REFRESH_SECONDS
    assert app.tasks["agents.insights_refresh"].acks_late
