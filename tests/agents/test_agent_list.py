"""The agents list against a real sandbox of its own over HTTP, at 50 and
1,000 agents: the total, newest first, search by name and sort kept in the
address, the htmx region and its plain-link fallback, remote calls counted
(bounded when the minute's list is stale, none within it); a service with
more agents than the read budget, said in words (respx)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from agents.agent_list import AGENT_LIST_MAX_PAGES, LIST_PAGE_SIZE, STATUS_ORDER
from dashboard.api.testing import RemoteCallCounter
from tests.agents.support import HTMX, store_demo_key
from tests.helpers import running_sandbox
from tests.html import one, parse, root_ids, select, text_of

# Queries of a list view read from the cache, at 50 agents as at 1,000.
WARM_QUERIES = 10


@pytest.fixture(scope="module", params=[50, 1000], ids=["50-agents", "1000-agents"])
def many_agents(request):
    """A sandbox of this module's own with `n` more agents in its demo
    workspace, created a minute apart after the seeded ones (newest last,
    as the service lists them)."""
    count = request.param
    with running_sandbox() as handle:
        workspace_id = handle.store.list("agent")[0]["workspace_id"]
        start = datetime(2026, 11, 25, 8, 0, tzinfo=UTC)
        docs = []
        for index in range(count):
            at = (start + timedelta(minutes=index)).isoformat().replace("+00:00", "Z")
            status = ("draft", "active", "paused")[index % 3]
            docs.append(
                {
                    "name": f"Bulk agent {index:04d}" + (" invoice" if index % 10 == 0 else ""),
                    "status": status,
                    "active_version_id": None,
                    "version": None,
                    "plan": None,
                    "wakeups": [],
                    "issues": [],
                    "created_at": at,
                    "updated_at": at,
                }
            )
        handle.store.insert_many("agent", docs, workspace_id=workspace_id)
        handle.added = count
        handle.workspace_id = workspace_id
        yield handle


@pytest.fixture
def console(many_agents, settings, user, client):
    settings.SERVICE_BASE_URL = many_agents.base_url
    store_demo_key(user, many_agents)
    client.force_login(user)
    return client


def _listed(many_agents) -> list[dict]:
    return [agent for agent in many_agents.store.list("agent") if agent["status"] != "archived"]


def _names(html) -> list[str]:
    return [text_of(link) for link in select(html, ".agent-table tbody td:first-child a")]


def test_the_list_counts_every_agent_and_shows_the_newest_first_in_bounded_calls(console, many_agents):
    every = _listed(many_agents)
    with RemoteCallCounter() as calls:
        html = parse(console.get(reverse("agents:index")).content)
    # Cold: the service's pages of 100, oldest first, read to the end.
    assert calls.paths == ["/v1/agents"] * -(-len(every) // 100)
    assert len(calls.paths) <= AGENT_LIST_MAX_PAGES
    shown = min(LIST_PAGE_SIZE, len(every))
    assert text_of(one(html, "[data-agent-count]")) == f"{len(every)} agents · showing 1–{shown}."
    assert select(html, "[data-agent-range]") == []
    newest = [agent["name"] for agent in reversed(every)][:shown]
    assert _names(html) == newest
    assert _names(html)[0] == f"Bulk agent {many_agents.added - 1:04d}"

    calls.reset()
    with calls, CaptureQueriesContext(connection) as queries:
        second = parse(console.get(reverse("agents:index"), {"page": "2", "sort": "name"}).content)
    assert calls.paths == []  # within the minute: no call at all
    # The console's own queries (session, key, person) do not grow with the agents.
    assert len(queries) == WARM_QUERIES, [query["sql"] for query in queries]
    by_name = sorted((agent["name"] for agent in reversed(every)), key=str.casefold)
    assert _names(second) == by_name[LIST_PAGE_SIZE : 2 * LIST_PAGE_SIZE]


def test_search_by_name_swaps_the_region_and_keeps_search_and_sort_in_the_links(console, many_agents):
    every = _listed(many_agents)
    console.get(reverse("agents:index"))  # the list read once
    with RemoteCallCounter() as calls:
        response = console.get(reverse("agents:index"), {"q": "INVOICE", "sort": "oldest", "status": "active"}, **HTMX)
    assert calls.paths == []
    assert root_ids(response.content) == ["div#agent-list"]
    html = parse(response.content)
    active = [agent for agent in every if agent["status"] == "active"]
    found = [agent["name"] for agent in active if "invoice" in agent["name"].casefold()]
    assert _names(html) == found[:LIST_PAGE_SIZE]
    assert text_of(one(html, "[data-agent-count]")).startswith(
        f"{len(found)} of {len(active)} agents named like “INVOICE”"
    )
    # The form works without JavaScript: a GET to the list with what was asked.
    form = one(html, "form[role=search]")
    assert form["method"] == "get" and form["action"] == reverse("agents:index")
    assert one(form, "#agent-q")["value"] == "INVOICE"
    assert one(form, "#agent-sort option[selected]")["value"] == "oldest"
    assert one(form, "input[name=status]")["value"] == "active"
    # The tabs keep the search and the sort.
    tab_queries = [dict(parse_qsl(urlsplit(link["href"]).query)) for link in select(html, ".tabs a")]
    assert all(query.get("q") == "INVOICE" and query.get("sort") == "oldest" for query in tab_queries)
    assert len(select(html, "a[rel=next]")) == (1 if len(found) > LIST_PAGE_SIZE else 0)

    # A second page keeps the tab, the search and the sort in its address.
    bulk = parse(console.get(reverse("agents:index"), {"q": "bulk", "sort": "name"}, **HTMX).content)
    (following,) = select(bulk, "a[rel=next]")
    assert dict(parse_qsl(urlsplit(following["href"]).query)) == {
        "q": "bulk",
        "sort": "name",
        "page": "2",
    }
    assert following["hx-push-url"] == following["href"] and following["hx-target"] == "#agent-list"


def test_sort_by_status_puts_the_active_agents_first(console, many_agents):
    html = parse(console.get(reverse("agents:index"), {"sort": "status"}).content)
    statuses = [text_of(badge).lower() for badge in select(html, ".agent-table .agent-status")]
    assert statuses[0] == "active"
    assert statuses == sorted(statuses, key=list(STATUS_ORDER).index)


def test_nothing_matching_is_said_in_words(console, many_agents):
    html = parse(console.get(reverse("agents:index"), {"q": "zzz-nobody"}).content)
    assert _names(html) == []
    assert text_of(one(html, ".empty-state")) == "No agent is named like “zzz-nobody”."


# --- the read budget and writes (respx) ----------------------------------------------


def _page(start: int, *, more: bool) -> httpx.Response:
    data = [
        {"id": f"00000000-0000-4000-8000-{start + index:012d}", "name": f"Agent {start + index}", "status": "draft"}
        for index in range(100)
    ]
    return httpx.Response(200, json={"data": data, "next_cursor": f"c{start + 100}" if more else None})


def test_more_agents_than_the_budget_reads_are_said_to_be_missing(remote, api_key, logged_in_client):
    pages = [_page(index * 100, more=True) for index in range(AGENT_LIST_MAX_PAGES + 5)]
    listing = remote.get("/v1/agents").mock(side_effect=pages)
    html = parse(logged_in_client.get(reverse("agents:index")).content)
    assert listing.call_count == AGENT_LIST_MAX_PAGES
    read = AGENT_LIST_MAX_PAGES * 100
    assert text_of(one(html, "[data-agent-count]")) == f"{read} agents read so far · showing 1–{LIST_PAGE_SIZE}."
    assert text_of(one(html, "[data-agent-range]")) == (
        f"The service lists agents oldest first and this list reads at most {read} of them: "
        f"it holds the oldest {read}, and newer agents are not in it."
    )
    assert _names(html)[0] == f"Agent {read - 1}"  # the newest of those read


def test_a_later_page_failing_keeps_what_was_read_and_says_so(remote, api_key, logged_in_client):
    failure = httpx.Response(500, json={"error": {"type": "server_error", "message": "no"}, "request_id": "r"})
    listing = remote.get("/v1/agents").mock(side_effect=[_page(0, more=True), failure, failure, failure])
    html = parse(logged_in_client.get(reverse("agents:index")).content)
    assert "stopped answering before its last page" in text_of(one(html, "[data-agent-range]"))
    assert len(_names(html)) == LIST_PAGE_SIZE
    calls = listing.call_count
    listing.side_effect = [_page(0, more=False)]
    again = parse(logged_in_client.get(reverse("agents:index")).content)
    # Not kept: the next view reads again, and the list is whole this time.
    assert listing.call_count == calls + 1
    assert select(again, "[data-agent-range]") == []


def test_a_new_agent_is_on_the_first_page_at_once(remote, api_key, logged_in_client):
    new_id = "44444444-4444-4444-8444-444444444444"
    listing = remote.get("/v1/agents").mock(side_effect=[_page(0, more=False)])
    logged_in_client.get(reverse("agents:index"))
    assert listing.call_count == 1
    remote.post("/v1/agents").mock(
        return_value=httpx.Response(
            200,
            json={"status": "built", "message": "Drafted", "agent": {"id": new_id, "name": "Fresh", "status": "draft"}},
        )
    )
    key = one(logged_in_client.get(reverse("agents:index")).content, "input[name=idempotency_key]")["value"]
    assert listing.call_count == 1  # read within the minute: no call
    logged_in_client.post(
        reverse("agents:create"), {"name": "Fresh", "message": "Greet people", "idempotency_key": key}
    )
    newer = _page(0, more=False)
    body = newer.json()
    body["data"].append({"id": new_id, "name": "Fresh", "status": "draft"})
    listing.side_effect = [httpx.Response(200, json=body)]
    html = parse(logged_in_client.get(reverse("agents:index")).content)
    assert _names(html)[0] == "Fresh"
    assert text_of(one(html, "[data-agent-count]")).startswith("101 agents")


def test_the_archived_tab_reads_the_archived_agents_apart(remote, api_key, logged_in_client):
    archived = {"id": "55555555-5555-4555-8555-555555555555", "name": "Old helper", "status": "archived"}
    listing = remote.get("/v1/agents").mock(
        return_value=httpx.Response(200, json={"data": [archived], "next_cursor": None})
    )
    html = parse(logged_in_client.get(reverse("agents:index"), {"status": "archived"}).content)
    assert dict(listing.calls.last.request.url.params) == {"status": "archived", "limit": "100"}
    assert _names(html) == ["Old helper"]
    assert text_of(one(html, "[data-agent-count]")) == "1 archived agent · showing 1–1."
