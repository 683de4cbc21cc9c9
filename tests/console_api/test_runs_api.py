"""Runs and insights through the console's API against a real sandbox: the
same runs as the runs page, in its order and with its filters, for no more
remote calls than the page makes; one run with its steps in one call; the
insights as their pages count them, from the console's database alone."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from agents import services
from dashboard.api import ServiceClient
from dashboard.api.testing import RemoteCallCounter
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from dashboard.tokens.scopes import READ
from tests.agents.support import store_demo_key
from tests.console_api.support import error_of, send, token_for
from tests.html import one, select, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader(api_sandbox, settings, user, client):
    settings.SERVICE_BASE_URL = api_sandbox.base_url
    key = store_demo_key(user, api_sandbox)
    token = token_for(user, key.workspace_id, (READ,), name="Dashboard script")
    person_role_set(user=user, role=Role.VIEWER)  # reading needs no more
    page_client = type(client)()
    page_client.force_login(user)
    return {"key": key, "token": token, "pages": page_client}


def _page_run_ids(html: bytes) -> list[str]:
    return [row["id"].removeprefix("run-row-") for row in select(html, "tr[id^=run-row-]")]


def test_the_runs_list_is_the_runs_pages_for_no_more_calls_with_its_filters(reader, api_sandbox, client):
    token, pages = reader["token"], reader["pages"]
    with RemoteCallCounter() as page_calls:
        page = pages.get(reverse("agents:runs"))
    with RemoteCallCounter() as api_calls:
        listed = send(client, "GET", "/api/v1/runs", token)

    assert listed.status_code == 200, listed.content
    runs = listed.json()["data"]
    assert runs and [run["id"] for run in runs] == _page_run_ids(page.content)
    assert all(run["agent_name"] for run in runs)
    assert sorted(api_calls.paths) == sorted(page_calls.paths)

    # One agent's, of one status: the page's filters.
    agent_id = runs[0]["agent_id"]
    status = runs[0]["status"]
    query = f"agent={agent_id}&status={status}"
    with RemoteCallCounter() as page_calls:
        page = pages.get(f"{reverse('agents:runs')}?{query}")
    with RemoteCallCounter() as api_calls:
        filtered = send(client, "GET", f"/api/v1/runs?{query}", token).json()["data"]
    assert [run["id"] for run in filtered] == _page_run_ids(page.content)
    assert {(run["agent_id"], run["status"]) for run in filtered} == {(agent_id, status)}
    assert len(api_calls.paths) <= len(page_calls.paths)

    refused = send(client, "GET", "/api/v1/runs?status=exploded", token)
    assert refused.status_code == 422 and "is not a run status" in error_of(refused)["message"]


def test_a_run_is_read_with_its_steps_in_one_call(reader, api_sandbox, client):
    service = ServiceClient(api_key=api_sandbox.demo_key)
    first = send(client, "GET", "/api/v1/runs", reader["token"]).json()["data"][0]
    with RemoteCallCounter() as calls:
        answer = send(client, "GET", f"/api/v1/runs/{first['id']}", reader["token"])

    assert answer.status_code == 200
    run = answer.json()
    remote = service.get(f"/v1/runs/{first['id']}")
    assert calls.paths == [f"/v1/runs/{first['id']}"]
    assert (run["id"], run["status"], run["agent_id"]) == (remote["id"], remote["status"], remote["agent_id"])
    assert [step["node_id"] for step in run["steps"]] == [step.get("node_id") or "" for step in remote["steps"]]
    missing = send(client, "GET", "/api/v1/runs/00000000-0000-4000-8000-000000000000", reader["token"])
    assert missing.status_code == 404 and error_of(missing)["code"] == "service_error"


def test_the_insights_are_the_insights_pages_numbers_from_the_database_alone(reader, client):
    services.insights_refresh(workspace_id=reader["key"].workspace_id)
    page = reader["pages"].get(reverse("agents:insights"), {"days": "30"})

    with RemoteCallCounter() as calls:
        answer = send(client, "GET", "/api/v1/insights?days=30", reader["token"])

    assert answer.status_code == 200 and calls.count == 0
    body = answer.json()
    assert body["days"] == 30 and len(body["summary"]["days"]) == 30
    totals = [text_of(cell) for cell in one(page.content, "table.insights-runs tfoot tr").select("td")]
    counts = body["summary"]["counts"]
    assert totals == [str(counts[key]) for key in ("completed", "failed", "cancelled", "in_progress")] + [
        str(body["summary"]["runs"])
    ]
    page_agents = [
        (text_of(row.select("th")[0]), int(text_of(row.select("td")[0])))
        for row in select(page.content, "table.insights-agents tbody tr")
    ]
    assert [(agent["name"], agent["summary"]["runs"]) for agent in body["agents"]] == page_agents
    assert body["refreshed_at"] is not None

    one_agent = body["agents"][0]
    with RemoteCallCounter() as calls:
        own = send(client, "GET", f"/api/v1/agents/{one_agent['id']}/insights?days=30", reader["token"]).json()
    assert calls.count == 0
    assert own["agent"] == {"id": one_agent["id"], "name": one_agent["name"]}
    assert own["summary"] == one_agent["summary"]


def _runs_of(api_sandbox, agent_id: str, count: int) -> None:
    """`count` more runs of this agent, copies of one of its own (straight into the sandbox's store)."""
    model = next(run for run in api_sandbox.store.list("run") if run["agent_id"] == agent_id)
    copies = [{k: v for k, v in model.items() if k not in ("id", "_seq", "idempotency_key")} for _ in range(count)]
    api_sandbox.store.insert_many("run", copies, workspace_id=model["workspace_id"])


def test_the_runs_list_is_flat_in_remote_calls_and_queries_from_50_to_1000_runs(reader, api_sandbox, client):
    token = reader["token"]
    agent_id = send(client, "GET", "/api/v1/runs", token).json()["data"][0]["agent_id"]
    seen = {}
    for added, total in ((50, 50), (950, 1000)):
        _runs_of(api_sandbox, agent_id, added)
        for query in ("", f"?agent={agent_id}"):
            send(client, "GET", "/api/v1/me", token)  # its "last used" just written: not in the count below
            with RemoteCallCounter() as calls, CaptureQueriesContext(connection) as queries:
                answer = send(client, "GET", f"/api/v1/runs{query}", token)
            assert answer.status_code == 200 and answer.json()["more"] is True
            with RemoteCallCounter() as next_calls:
                following = send(
                    client, "GET", f"/api/v1/runs{query}{'&' if query else '?'}cursor={answer.json()['next']}", token
                )
            assert following.status_code == 200
            assert not {run["id"] for run in answer.json()["data"]} & {run["id"] for run in following.json()["data"]}
            seen[(total, query)] = (calls.paths, len(queries), next_calls.count)
    assert seen[(50, "")] == seen[(1000, "")], seen
    assert seen[(50, f"?agent={agent_id}")] == seen[(1000, f"?agent={agent_id}")], seen
