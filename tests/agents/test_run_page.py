"""The run page as a timeline (respx): steps on a time axis or in order, the
selected step's panel, approvals decided in place through the queue's own
view, waiting_for in words, tasks with tools, and rerun after a confirmation."""

from __future__ import annotations

import json

import httpx
import pytest
from django.urls import reverse

from dashboard.audit.testing import make_approver
from dashboard.live.models import TrackedOperation
from tests.agents.support import AGENT_ID, HTMX, RUN_ID, THREAD_ID, error, full_agent
from tests.html import one, parse, roots, select, text_of, texts

APPROVAL_ID = "aaaaaaaa-0000-4000-8000-000000000001"


def run_body(**extra) -> dict:
    body = {
        "id": RUN_ID,
        "agent_id": AGENT_ID,
        "thread_id": THREAD_ID,
        "status": "completed",
        "event": {"kind": "chat", "message": "Welcome Ada", "payload": {"contact": 7}},
        "created_at": "2026-11-21T09:00:00Z",
        "completed_at": "2026-11-21T09:00:10Z",
        "cost_usd": 0.0123,
        "answer": "Sent the welcome.",
        "steps": [
            {
                "kind": "trigger",
                "label": "New contact",
                "input": {"event": "chat"},
                "result": {"woke": True},
                "started_at": "2026-11-21T09:00:00Z",
                "finished_at": "2026-11-21T09:00:01Z",
            },
            {
                "kind": "email",
                "label": "Send the welcome",
                "node_id": "n2",
                "input": {"to": "ada@example.com"},
                "result": {"sent": True},
                "started_at": "2026-11-21T09:00:05Z",
                "finished_at": "2026-11-21T09:00:10Z",
            },
        ],
        "tasks": [
            {"title": "Look up the contact", "status": "completed", "tools": [{"name": "records.read", "calls": 2}]}
        ],
        "approvals": [],
    }
    body.update(extra)
    return body


@pytest.fixture
def run_route(remote, api_key):
    # The run page draws the run on its agent's plan (one read of the agent).
    remote.get(f"/v1/agents/{AGENT_ID}").mock(return_value=httpx.Response(200, json=full_agent()))

    def serve(**extra):
        return remote.get(f"/v1/runs/{RUN_ID}").mock(return_value=httpx.Response(200, json=run_body(**extra)))

    return serve


def test_steps_sit_on_the_runs_time_axis_and_the_last_one_is_open_beside_them(run_route, logged_in_client):
    run_route()
    page = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)

    steps = select(page, ".timeline__step")
    assert [text_of(one(step, ".timeline__name")) for step in steps] == [
        "1. Trigger New contact",
        "2. Email Send the welcome",
    ]
    assert [text_of(one(step, ".timeline__when")) for step in steps] == ["at +0 s · 1 s", "at +5 s · 5 s"]
    spans = [one(step, "rect.timeline__span") for step in steps]
    assert [(span["x"], span["width"]) for span in spans] == [("0.0", "100.0"), ("500.0", "500.0")]
    assert "over 10 s" in text_of(one(page, ".run-steps-heading"))
    # The side panel shows the last step (what the run got to) by default.
    assert text_of(one(page, "#step-panel-heading")) == "Step 2: Send the welcome"
    assert "ada@example.com" in text_of(one(page, "#run-step-panel"))
    assert texts(page, ".run-tasks .chip") == ["records.read ×2"]
    assert "cost $0.0123" in text_of(one(page, ".run-state"))
    assert "took 10 s" in text_of(one(page, ".run-state"))


def test_without_times_steps_are_in_order_alone(run_route, logged_in_client):
    steps = [{"kind": "trigger"}, {"kind": "agent", "error": {"message": "Boom"}}, {"kind": "email"}]
    run_route(steps=steps, created_at=None, completed_at=None)
    page = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)
    assert select(page, ".timeline__bar") == []
    assert "in order (the service gave no times)" in text_of(one(page, ".run-steps-heading"))
    # The failed step is the one opened.
    assert text_of(one(page, "#step-panel-heading")) == "Step 2: Agent"
    assert "Boom" in text_of(one(page, "#run-step-panel [role=alert]"))


def test_a_step_opens_in_the_side_panel_from_the_followed_row_without_a_remote_call(run_route, logged_in_client):
    route = run_route(status="running", completed_at=None)
    logged_in_client.get(reverse("agents:run", args=[RUN_ID]))
    assert route.call_count == 1 and TrackedOperation.objects.filter(kind="agents.run").count() == 1

    panel = logged_in_client.get(reverse("agents:run", args=[RUN_ID]) + "?region=step&step=1", **HTMX)
    assert route.call_count == 1  # from the console's row
    html = parse(panel.content)
    assert text_of(one(html, "#step-panel-heading")) == "Step 1: New contact"
    assert "html" not in [element.name for element in roots(panel.content)]
    # A step number out of range, or not a number, shows the default step: never an error.
    for odd in ("0", "99", "x", "9" * 40):
        odd_panel = logged_in_client.get(reverse("agents:run", args=[RUN_ID]) + f"?region=step&step={odd}", **HTMX)
        assert odd_panel.status_code == 200


def test_a_waiting_run_says_what_for_and_its_approval_is_decided_on_the_run_page(
    run_route, remote, user, logged_in_client
):
    make_approver(user)
    approval = {
        "id": APPROVAL_ID,
        "run_id": RUN_ID,
        "agent_id": AGENT_ID,
        "summary": "Send the welcome email.",
        "input": {"to": "ada@example.com", "subject": "Hi", "body": "Welcome"},
        "risk": "send",
        "status": "pending",
    }
    run_route(
        status="waiting",
        completed_at=None,
        waiting_for={"kind": "approval", "approval_id": APPROVAL_ID},
        approvals=[approval],
    )
    page = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)
    assert "Waiting for a person to decide an approval." in text_of(one(page, ".run-state"))
    row = one(page, f"#run-approvals #approval-{APPROVAL_ID}")
    form = one(row, "form")
    assert form["action"] == reverse("agents:approval_decide", args=[APPROVAL_ID])  # the queue's own view
    assert texts(form, "button") == ["Approve", "Reject"]

    decided = remote.post(f"/v1/approvals/{APPROVAL_ID}").mock(
        return_value=httpx.Response(200, json={"approval": {**approval, "status": "approved"}, "outcome": {}})
    )
    remote.get("/v1/approvals").mock(
        return_value=httpx.Response(200, json={"data": [{**approval, "status": "approved"}], "next_cursor": None})
    )
    data = {name["name"]: name.get("value", "") for name in select(form, "input[type=hidden]")}
    answer = logged_in_client.post(form["action"], {**data, "decision": "approve", "note": "ok"}, **HTMX)
    assert decided.call_count == 1
    assert one(parse(answer.content), f"#approval-{APPROVAL_ID}")["data-status"] == "approved"
    # The followed run is due at once: the page shows it resumed at the next look.
    op = TrackedOperation.objects.get(kind="agents.run", remote_id=RUN_ID)
    assert op.next_poll_at is not None and (op.next_poll_at - op.created_at).total_seconds() < 5


def test_someone_who_may_not_decide_sees_why_on_the_run_page(run_route, logged_in_client):
    run_route(status="waiting", approvals=[{"id": APPROVAL_ID, "summary": "Delete deals", "risk": "destructive"}])
    page = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)
    assert "Only Approvers decide approvals" in text_of(one(page, "#run-approvals"))
    assert select(page, "#run-approvals form") == []


def test_rerun_sends_the_runs_own_message_and_payload_after_a_confirmation(
    run_route, remote, logged_in_client, settings
):
    settings.AGENTS_STREAM_ANSWERS = False
    run_route()
    page = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)
    confirm = one(page, "#run-rerun details")
    assert text_of(one(confirm, "summary")) == "Run again…"
    assert "Welcome Ada" in text_of(confirm) and texts(confirm, "button") == ["Yes, run it again"]
    key = one(page, "#run-rerun input[name=idempotency_key]")["value"]

    started = remote.post(f"/v1/agents/{AGENT_ID}/runs").mock(
        return_value=httpx.Response(
            202, json={"status": "running", "thread_id": "dddddddd-0000-4000-8000-000000000009"}
        )
    )
    answer = logged_in_client.post(reverse("agents:run_rerun", args=[RUN_ID]), {"idempotency_key": key}, **HTMX)
    sent = started.calls.last.request
    assert json.loads(sent.content) == {"background": True, "message": "Welcome Ada", "payload": {"contact": 7}}
    assert sent.headers["Idempotency-Key"] == key
    op = TrackedOperation.objects.get(kind="agents.invocation")
    assert answer["HX-Redirect"] == reverse("agents:chat", args=[AGENT_ID]) + f"?sent={op.pk}"


def test_a_run_woken_without_a_message_or_payload_offers_no_rerun(run_route, logged_in_client):
    run_route(event={"kind": "schedule"})
    page = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)
    assert select(page, "#run-rerun form") == []
    assert logged_in_client.post(reverse("agents:run_rerun", args=[RUN_ID]), {}).status_code == 404


def _approved_after_two_hours() -> dict:
    """A run that stopped for an approval at 09:00:01, decided at 11:00:01."""
    moment = "2026-11-21T{}Z".format
    return {
        "created_at": moment("09:00:00"),
        "completed_at": moment("11:00:02"),
        "steps": [
            {"kind": "trigger", "label": "Chat", "started_at": moment("09:00:00"), "finished_at": moment("09:00:01")},
            {
                "kind": "email",
                "label": "Send",
                "node_id": "n2",
                "started_at": moment("11:00:01"),
                "finished_at": moment("11:00:02"),
            },
        ],
        "approvals": [
            {
                "id": APPROVAL_ID,
                "summary": "Send the welcome email.",
                "risk": "send",
                "status": "approved",
                "created_at": moment("09:00:01"),
                "decided_at": moment("11:00:01"),
            }
        ],
    }


def test_a_wait_for_an_approval_is_a_bar_as_long_as_the_wait(run_route, logged_in_client):
    run_route(**_approved_after_two_hours())
    page = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)

    entries = select(page, ".timeline__step")
    assert len(entries) == 3  # step, wait, step: in time order
    wait = one(page, ".timeline__step--wait")
    assert entries[1] is wait
    assert "Waited 2 h for a person to decide: Send the welcome email." in text_of(one(wait, ".timeline__name"))
    assert text_of(one(wait, ".timeline__when")) == "from +1 s · 2 h"
    bar = one(wait, "rect.timeline__span--wait")
    # 7200 s of a 7202 s run, on a 1000-wide axis.
    assert float(bar["width"]) == pytest.approx(7200 / 7202 * 1000, abs=0.1)
    assert text_of(one(entries[2], ".timeline__when")) == "at +2 h · 1 s"
    assert "0 s · 0 s" not in text_of(one(page, ".timeline"))


def test_a_step_has_its_own_address_and_its_panel_is_focused(run_route, logged_in_client):
    route = run_route(**_approved_after_two_hours())
    address = reverse("agents:run_step", args=[RUN_ID, 1])
    assert address == f"/runs/{RUN_ID}/steps/1/"
    page = parse(logged_in_client.get(address).content)
    panel = one(page, "#run-step-panel")
    assert text_of(one(panel, "#step-panel-heading")) == "Step 1: Chat"
    assert panel.has_attr("data-focus-after-swap")  # focus moves to the panel on load
    links = select(page, ".timeline a.timeline__name")
    assert [link["href"] for link in links] == [address, reverse("agents:run_step", args=[RUN_ID, 2])]
    assert all(link["hx-get"] == link["href"] for link in links)

    swapped = logged_in_client.get(reverse("agents:run_step", args=[RUN_ID, 2]), **HTMX)
    assert [element.name for element in roots(swapped.content)] == ["aside"]
    assert text_of(one(parse(swapped.content), "#step-panel-heading")) == "Step 2: Send"
    assert route.call_count == 2
    # Without the run page's default, a plain run address opens nothing by force.
    plain = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)
    assert not one(plain, "#run-step-panel").has_attr("data-focus-after-swap")


def test_the_runs_path_is_highlighted_on_its_plan_and_steps_and_nodes_link_each_other(run_route, logged_in_client):
    steps = run_body()["steps"]
    steps[0]["node_id"] = "n1"
    run_route(steps=steps)
    page = parse(logged_in_client.get(reverse("agents:run", args=[RUN_ID])).content)
    plan = one(page, "#run-plan")
    passed = select(plan, "a.plan-node--passed")
    assert [node["data-node-id"] for node in passed] == ["n1", "n2"]
    assert [node["href"] for node in passed] == [
        reverse("agents:run_step", args=[RUN_ID, 1]),
        reverse("agents:run_step", args=[RUN_ID, 2]),
    ]
    assert passed[1]["aria-label"] == "Send the welcome email, Email, step 2 of this run: open the step"
    assert len(select(plan, "path.plan-edge--passed")) == 1
    # The step's panel links to its node on the plan.
    link = one(page, "#run-step-panel a[href^='#node-']")
    assert link["href"] == "#node-n2" and one(page, "#node-n2")["data-node-id"] == "n2"


def test_a_plan_that_cannot_be_read_costs_the_drawing_only(run_route, remote, logged_in_client):
    run_route()
    remote.get(f"/v1/agents/{AGENT_ID}").mock(return_value=error(404, "not_found", "No such agent."))
    answer = logged_in_client.get(reverse("agents:run", args=[RUN_ID]))
    assert answer.status_code == 200
    page = parse(answer.content)
    assert "The plan could not be read" in text_of(one(page, "#run-plan"))
    assert select(page, ".timeline__step")
