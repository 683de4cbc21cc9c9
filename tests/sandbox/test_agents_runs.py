"""Agent runs and approvals against a real sandbox over HTTP: waiting, SSE,
background with polling by repeat, idempotent replay (one run), approvals
approve/reject/always, 409 on a second decision."""

from __future__ import annotations

import httpx
import pytest

from sandbox.agents import RUN_SECONDS
from tests.sandbox.support import read_events

ASKING_BRIEF = "Email a short summary of every new lead to sales@acme.example"
CHAT_BRIEF = "Answer questions about our products and pricing in chat"


@pytest.fixture
def asking_agent(api) -> dict:
    """A draft that sends email under `ask_first`: each run waits for an approval."""
    return api.post("/v1/agents", json={"message": ASKING_BRIEF}).json()["agent"]


@pytest.fixture
def chat_agent(api) -> dict:
    return api.post("/v1/agents", json={"message": CHAT_BRIEF}).json()["agent"]


def runs_of(api: httpx.Client, agent_id: str, **params) -> list[dict]:
    return api.get(f"/v1/agents/{agent_id}/runs", params={"limit": 100, **params}).json()["data"]


def start(api: httpx.Client, agent_id: str, **body) -> httpx.Response:
    return api.post(f"/v1/agents/{agent_id}/runs", json=body)


def test_a_run_waits_by_default_and_answers_the_finished_invocation(api, chat_agent):
    response = start(api, chat_agent["id"], message="What does the Pro plan cost?")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "completed" and body["answer"]
    assert body["run_id"] and body["thread_id"]
    assert [s["kind"] for s in body["steps"]] == ["trigger", "agent"]
    run = api.get(f"/v1/runs/{body['run_id']}").json()
    assert run["status"] == "completed" and run["event"]["kind"] == "chat"
    assert all({"kind", "input", "result", "error"} <= set(step) for step in run["steps"])
    assert run["cost_usd"] > 0 and run["answer"] == body["answer"]


def test_a_message_containing_fail_fails_the_run_with_the_failing_step(api, chat_agent):
    body = start(api, chat_agent["id"], message="Please fail this time").json()
    assert body["status"] == "failed"
    run = api.get(f"/v1/runs/{body['run_id']}").json()
    assert run["status"] == "failed" and run["steps"][-1]["error"]["message"]


def test_a_payload_alone_is_an_event_and_an_empty_body_is_400(api, chat_agent):
    body = start(api, chat_agent["id"], payload={"order": 42}).json()
    assert body["status"] == "completed"
    assert api.get(f"/v1/runs/{body['run_id']}").json()["event"]["payload"] == {"order": 42}
    assert start(api, chat_agent["id"]).status_code == 400


def test_stream_sends_started_with_the_thread_then_result(api, chat_agent):
    with api.stream(
        "POST", f"/v1/agents/{chat_agent['id']}/runs", json={"message": "Hello there", "stream": True}
    ) as response:
        events = read_events(response)
    assert [name for name, _ in events] == ["started", "result"]
    assert events[1][1]["thread_id"] == events[0][1]["thread_id"]
    assert events[1][1]["status"] == "completed"


def test_stream_of_a_failing_run_ends_with_error(api, chat_agent):
    with api.stream(
        "POST", f"/v1/agents/{chat_agent['id']}/runs", json={"message": "fail now", "stream": True}
    ) as response:
        events = read_events(response)
    assert [name for name, _ in events] == ["started", "error"]
    assert events[1][1]["message"] and events[1][1]["request_id"]


def test_background_is_202_and_repeating_with_the_key_polls_the_same_run(api, sandbox, chat_agent):
    first = start(api, chat_agent["id"], message="Summarise the deals", background=True)
    assert first.status_code == 202
    body = first.json()
    assert body["status"] == "running" and body["thread_id"] and body["idempotency_key"]
    # Skip the run's simulated time on the sandbox's clock, then repeat the
    # request with its key once: the answer is the same run, now finished.
    sandbox.advance(service_seconds=RUN_SECONDS)
    again = api.post(
        f"/v1/agents/{chat_agent['id']}/runs",
        json={"message": "Summarise the deals", "background": True},
        headers={"Idempotency-Key": body["idempotency_key"]},
    )
    assert again.status_code == 200
    assert again.json()["status"] == "completed" and again.json()["run_id"] == body["run_id"]
    assert [r["id"] for r in runs_of(api, chat_agent["id"], thread_id=body["thread_id"])] == [body["run_id"]]


def test_a_retry_with_the_same_key_never_runs_the_agent_twice(api, chat_agent):
    headers = {"Idempotency-Key": "run-once-please"}
    first = api.post(f"/v1/agents/{chat_agent['id']}/runs", json={"message": "Hi"}, headers=headers)
    second = api.post(f"/v1/agents/{chat_agent['id']}/runs", json={"message": "Hi"}, headers=headers)
    assert second.json()["run_id"] == first.json()["run_id"]
    assert len(runs_of(api, chat_agent["id"])) == 1
    other = api.post(f"/v1/agents/{chat_agent['id']}/runs", json={"message": "Hello"}, headers=headers)
    assert other.status_code == 409


def test_runs_list_is_newest_first_and_filters_by_status_and_thread(api, chat_agent):
    a = start(api, chat_agent["id"], message="First question").json()
    b = start(api, chat_agent["id"], message="Make it fail").json()
    c = start(api, chat_agent["id"], message="Follow-up", thread_id=a["thread_id"]).json()
    assert [r["id"] for r in runs_of(api, chat_agent["id"])] == [c["run_id"], b["run_id"], a["run_id"]]
    assert [r["id"] for r in runs_of(api, chat_agent["id"], status="failed")] == [b["run_id"]]
    assert {r["id"] for r in runs_of(api, chat_agent["id"], thread_id=a["thread_id"])} == {a["run_id"], c["run_id"]}


def test_ask_first_email_waits_for_an_approval_and_approve_resumes_to_completed(api, asking_agent):
    body = start(api, asking_agent["id"], message="New lead: Jane Doe from Northwind").json()
    assert body["status"] == "waiting"
    run = api.get(f"/v1/runs/{body['run_id']}").json()
    assert run["waiting_for"]["kind"] == "approval"
    approval = run["approvals"][0]
    assert approval["status"] == "pending" and approval["risk"] == "send" and approval["can_always_allow"] is True
    assert approval["input"]["to"] == "sales@acme.example" and approval["summary"]
    assert api.get(f"/v1/agents/{asking_agent['id']}").json()["pending_approvals"] == 1
    listed = api.get("/v1/approvals", params={"agent_id": asking_agent["id"]}).json()["data"]
    assert [a["id"] for a in listed] == [approval["id"]]

    decided = api.post(f"/v1/approvals/{approval['id']}", json={"decision": "approve"})
    assert decided.status_code == 200
    assert decided.json()["approval"]["status"] == "approved"
    outcome = decided.json()["outcome"]
    assert outcome["status"] == "completed"
    assert outcome["steps"][-1]["kind"] == "email" and outcome["steps"][-1]["result"]["sent"] is True
    assert api.get(f"/v1/runs/{body['run_id']}").json()["status"] == "completed"

    again = api.post(f"/v1/approvals/{approval['id']}", json={"decision": "reject"})
    assert again.status_code == 409 and again.json()["error"]["type"] == "conflict"


def test_reject_cancels_the_run_and_the_email_never_runs(api, asking_agent):
    body = start(api, asking_agent["id"], message="New lead: Omar Haddad").json()
    approval_id = api.get(f"/v1/runs/{body['run_id']}").json()["waiting_for"]["approval_id"]
    decided = api.post(f"/v1/approvals/{approval_id}", json={"decision": "reject"}).json()
    assert decided["approval"]["status"] == "rejected" and decided["outcome"]["status"] == "cancelled"
    run = api.get(f"/v1/runs/{body['run_id']}").json()
    assert run["status"] == "cancelled" and "email" not in [s["kind"] for s in run["steps"]]
    assert (
        api.get("/v1/approvals", params={"status": "rejected", "agent_id": asking_agent["id"]}).json()["data"][0]["id"]
        == approval_id
    )


def test_always_allow_is_honoured_where_allowed_and_refused_elsewhere(api, asking_agent):
    first = start(api, asking_agent["id"], message="New lead: Li Wei").json()
    approval_id = api.get(f"/v1/runs/{first['run_id']}").json()["waiting_for"]["approval_id"]
    assert api.post(f"/v1/approvals/{approval_id}", json={"decision": "reject", "always": True}).status_code == 400
    assert api.post(f"/v1/approvals/{approval_id}", json={"decision": "approve", "always": True}).status_code == 200
    # The agent may now send email without asking.
    assert start(api, asking_agent["id"], message="New lead: Ana Lima").json()["status"] == "completed"

    destructive = api.post("/v1/agents", json={"message": "Delete the deals lost last year; ask first"}).json()
    waiting = start(api, destructive["agent"]["id"], message="Clean up now").json()
    approval = api.get(f"/v1/runs/{waiting['run_id']}").json()["approvals"][0]
    assert approval["risk"] == "destructive" and approval["can_always_allow"] is False
    refused = api.post(f"/v1/approvals/{approval['id']}", json={"decision": "approve", "always": True})
    assert refused.status_code == 400 and "always" in refused.json()["error"]["details"]
    assert api.get(f"/v1/runs/{waiting['run_id']}").json()["status"] == "waiting"  # nothing was decided


def test_pending_approvals_are_listed_first_come_first(fresh_api):
    agent = fresh_api.post("/v1/agents", json={"message": ASKING_BRIEF}).json()["agent"]
    made = [start(fresh_api, agent["id"], message=f"Lead number {i}").json()["run_id"] for i in range(3)]
    pending = fresh_api.get("/v1/approvals", params={"agent_id": agent["id"]}).json()["data"]
    assert [a["run_id"] for a in pending] == made
    every = fresh_api.get("/v1/approvals", params={"status": "all"}).json()["data"]
    statuses = [a["status"] for a in every]
    assert statuses == sorted(statuses, key=lambda s: s != "pending")


def test_runs_need_credits_and_a_writing_key(api, chat_agent, client_for, sandbox):
    from sandbox.seed import NO_CREDITS_WORKSPACE_ID

    assert client_for("readonly").post(f"/v1/agents/{chat_agent['id']}/runs", json={"message": "Hi"}).status_code == 403
    poor = client_for("no_credits")
    assert poor.post(f"/v1/agents/{chat_agent['id']}/runs", json={"message": "Hi"}).status_code == 404  # not theirs
    # The out-of-credits workspace cannot draft an agent, so put one in its storage directly.
    own = sandbox.store.insert(
        "agent",
        {
            "name": "Free rider",
            "status": "draft",
            "brief": ["Hi"],
            "plan": None,
            "profile": None,
            "wakeups": [],
            "deployments": [],
        },
        workspace_id=NO_CREDITS_WORKSPACE_ID,
    )
    refused = poor.post(f"/v1/agents/{own['id']}/runs", json={"message": "Hi"})
    assert refused.status_code == 402 and refused.json()["error"]["type"] == "insufficient_credits"
    assert sandbox.store.count("run", workspace_id=NO_CREDITS_WORKSPACE_ID) == 0
    assert api.get("/v1/runs/00000000-0000-4000-8000-000000000000").status_code == 404
