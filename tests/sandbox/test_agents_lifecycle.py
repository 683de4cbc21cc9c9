"""Agents against a real sandbox over HTTP: the builder's triggers, activation
(422 with issues, versions, deployments), pause, webhook wake-ups, the seed."""

from __future__ import annotations

import httpx

from tests.sandbox.support import all_pages

EMAIL_BRIEF = "When a webhook is called, email a summary of the new lead to the sales team"


def create(api: httpx.Client, message: str, **extra) -> dict:
    response = api.post("/v1/agents", json={"message": message, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def activate(api: httpx.Client, agent_id: str) -> httpx.Response:
    return api.post(f"/v1/agents/{agent_id}/activate")


def test_a_short_brief_gets_questions_and_the_draft_exists_anyway(api):
    build = create(api, "Help me")
    assert build["status"] == "needs_input"
    assert build["questions"] and all(q["options"] for q in build["questions"])
    agent = api.get(f"/v1/agents/{build['agent']['id']}").json()
    assert agent["status"] == "draft" and agent["validation"]["ready"] is False

    answered = api.patch(f"/v1/agents/{agent['id']}", json={"message": "Qualify new leads"}).json()
    assert answered["status"] == "built" and answered["agent"]["validation"]["ready"] is True


def test_auto_drafts_at_once_and_a_name_alone_renames(api):
    build = create(api, "Help me", auto=True, name="Helper")
    assert build["status"] == "built" and build["agent"]["name"] == "Helper"
    renamed = api.patch(f"/v1/agents/{build['agent']['id']}", json={"name": "Desk helper"})
    assert renamed.status_code == 200
    assert api.get(f"/v1/agents/{build['agent']['id']}").json()["name"] == "Desk helper"


def test_full_agent_has_profile_plan_wakeups_schedule_and_validation(api):
    build = create(api, "Every morning, decide which deals are at risk and if so tag the records; webhook too")
    agent = api.get(f"/v1/agents/{build['agent']['id']}").json()
    kinds = [n["kind"] for n in agent["plan"]["nodes"]]
    assert {"trigger", "agent", "ai_decide", "branch"} <= set(kinds)
    assert agent["plan"]["edges"]
    assert {w["kind"] for w in agent["wakeups"]} == {"chat", "webhook", "schedule"}
    assert all(w["deployment"] is None for w in agent["wakeups"])  # not active yet
    assert agent["schedule"][0]["next_run_at"].endswith("Z")
    assert agent["profile"]["autonomy"] in ("automatic", "ask_first")
    assert agent["pending_approvals"] == 0


def test_email_without_recipient_is_not_ready_and_activation_is_422_with_issues(api):
    build = create(api, EMAIL_BRIEF)
    agent = build["agent"]
    assert agent["profile"]["autonomy"] == "ask_first"  # email-sending plans ask first by default
    assert agent["validation"]["ready"] is False
    response = activate(api, agent["id"])
    assert response.status_code == 422
    issues = response.json()["error"]["details"]["issues"]
    assert issues[0]["code"] == "missing_recipient"
    assert api.get(f"/v1/agents/{agent['id']}").json()["status"] == "draft"


def test_activation_publishes_versions_and_a_webhook_endpoint_that_wakes_the_agent(api):
    agent = create(api, EMAIL_BRIEF + " at sales@acme.example")["agent"]
    first = activate(api, agent["id"])
    assert first.status_code == 200
    body = first.json()
    assert body["status"] == "active" and body["version"] == 1 and body["version_id"]
    webhook = next(d for d in body["deployments"] if d["kind"] == "webhook")
    assert webhook["endpoint"].startswith(str(api.base_url).rstrip("/"))
    full = api.get(f"/v1/agents/{agent['id']}").json()
    assert full["active_version_id"] == body["version_id"]
    assert next(w for w in full["wakeups"] if w["kind"] == "webhook")["deployment"]["endpoint"] == webhook["endpoint"]

    woke = httpx.post(webhook["endpoint"], json={"lead": "Jane Doe", "company": "Northwind"})
    assert woke.status_code == 202
    run = api.get(f"/v1/runs/{woke.json()['run_id']}").json()
    assert run["event"]["kind"] == "webhook" and run["event"]["payload"]["lead"] == "Jane Doe"

    second = activate(api, agent["id"]).json()
    assert second["version"] == 2 and second["version_id"] != body["version_id"]
    new_endpoint = next(d for d in second["deployments"] if d["kind"] == "webhook")["endpoint"]
    assert httpx.post(webhook["endpoint"], json={}).status_code == 404  # the old address stopped answering

    paused = api.post(f"/v1/agents/{agent['id']}/pause")
    assert paused.status_code == 200 and paused.json()["status"] == "paused"
    assert all(w["deployment"] is None for w in paused.json()["wakeups"])
    assert httpx.post(new_endpoint, json={"lead": "x"}).status_code == 404
    assert api.post(f"/v1/agents/{agent['id']}/pause").json()["status"] == "paused"  # harmless
    assert activate(api, agent["id"]).json()["status"] == "active"


def test_automatic_when_asked_and_pausing_a_draft_is_409(api):
    agent = create(api, "Email the weekly summary to team@acme.example automatically")["agent"]
    assert agent["profile"]["autonomy"] == "automatic"
    response = api.post(f"/v1/agents/{agent['id']}/pause")
    assert response.status_code == 409


def test_list_is_oldest_first_and_leaves_archived_out_unless_asked(fresh_sandbox, fresh_api):
    made = [create(fresh_api, f"Answer questions about deals, number {i}")["agent"]["id"] for i in range(3)]
    fresh_sandbox.store.update("agent", made[1], {"status": "archived"})  # archiving has no endpoint in the spec
    listed = [a["id"] for a in all_pages(fresh_api, "/v1/agents", {"limit": 2})]
    assert made[1] not in listed
    assert listed.index(made[0]) < listed.index(made[2])
    archived = fresh_api.get("/v1/agents", params={"status": "archived"}).json()["data"]
    assert [a["id"] for a in archived] == [made[1]]
    drafts = fresh_api.get("/v1/agents", params={"status": "draft"}).json()["data"]
    assert all(a["status"] == "draft" for a in drafts)


def test_seed_has_draft_active_and_paused_agents_with_runs_and_pending_approvals(fresh_api):
    agents = all_pages(fresh_api, "/v1/agents")
    assert {"draft", "active", "paused"} <= {a["status"] for a in agents}
    pending = fresh_api.get("/v1/approvals").json()["data"]
    assert len(pending) >= 2 and all(a["status"] == "pending" for a in pending)
    assert {a["risk"] for a in pending} >= {"send", "destructive"}
    for agent in agents:
        if agent["status"] != "draft":
            assert fresh_api.get(f"/v1/agents/{agent['id']}/runs").json()["data"]


def test_agent_writes_need_credits_and_a_writing_key(client_for):
    assert client_for("no_credits").post("/v1/agents", json={"message": "Qualify new leads"}).status_code == 402
    assert client_for("readonly").post("/v1/agents", json={"message": "Qualify new leads"}).status_code == 403
    assert client_for("readonly").get("/v1/agents").status_code == 200


def test_agent_name_and_message_limits(api):
    assert api.post("/v1/agents", json={"message": "x" * 20001}).status_code == 400
    assert api.post("/v1/agents", json={"message": "Qualify new leads", "name": "n" * 121}).status_code == 400
    assert api.post("/v1/agents", json={"name": "No message"}).status_code == 400
    assert api.get("/v1/agents/00000000-0000-4000-8000-000000000000").status_code == 404


def test_openapi_documents_every_studio_and_agents_path(api):
    paths = api.get("/v1/openapi.json").json()["paths"]
    for path in (
        "/v1/studio/website/turns",
        "/v1/studio/document/turns",
        "/v1/studio/app/turns",
        "/v1/studio/image/turns",
        "/v1/studio/video/turns",
        "/v1/turns/{id}",
        "/v1/studio/apps",
        "/v1/studio/{studio}/apps/{app}",
        "/v1/websites",
        "/v1/websites/{id}",
        "/v1/documents",
        "/v1/documents/{id}",
        "/v1/apps",
        "/v1/apps/{id}",
        "/v1/images/boards",
        "/v1/images",
        "/v1/videos",
        "/v1/agents",
        "/v1/agents/{id}",
        "/v1/agents/{id}/activate",
        "/v1/agents/{id}/pause",
        "/v1/agents/{id}/runs",
        "/v1/runs/{id}",
        "/v1/approvals",
        "/v1/approvals/{id}",
        "/v1/hooks/{token}",
    ):
        assert path in paths, path
    turn = paths["/v1/studio/website/turns"]["post"]
    assert turn["operationId"] == "studio_website_turn"
    assert turn["requestBody"]["content"]["application/json"]["schema"]["properties"]["message"]["maxLength"] == 3800
    assert "text/event-stream" in turn["responses"]["200"]["content"]
