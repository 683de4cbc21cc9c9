"""The builder's options as one-click answers (each option its own form and
Idempotency-Key; the next question follows in place; a failure worth
retrying keeps the option's key) and activation refusals naming the plan's
steps in words: respx for the shapes and failures, the real sandbox for a
refusal of a plan it built."""

from __future__ import annotations

import json

import httpx
import pytest
from django.urls import reverse

from agents.models import BuilderAnswer
from dashboard.api import ServiceClient
from tests.agents.support import AGENT_ID, HTMX, agent_id_in, error, full_agent
from tests.html import one, parse, root_ids, select, text_of

QUESTION = {"text": "Who should get the email?", "options": ["Sales", "The new contact"]}
SECOND = {"text": "When should it go out?", "options": ["At once", "The next morning"]}


@pytest.fixture
def asked(api_key):
    return BuilderAnswer.objects.create(
        workspace_id=api_key.workspace_id, agent_id=AGENT_ID, status="needs_input", questions=[QUESTION]
    )


def _options(html) -> dict[str, dict]:
    """Each option button's words -> its form's action, key and the field it sends."""
    found = {}
    for form in select(html, "[data-builder-options] form"):
        button = one(form, "button[type=submit]")
        found[text_of(button)] = {
            "action": form["action"],
            "hx_post": form.get("hx-post"),
            "key": one(form, "input[name=idempotency_key]")["value"],
            "field": (button["name"], button["value"]),
        }
    return found


def test_each_option_is_a_form_of_its_own_with_its_own_key(agent_routes, asked, logged_in_client):
    html = parse(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content)
    options = _options(html)
    assert list(options) == ["Sales", "The new contact"]
    change = reverse("agents:change", args=[AGENT_ID])
    assert {option["action"] for option in options.values()} == {change}
    assert {option["hx_post"] for option in options.values()} == {change}
    assert options["Sales"]["field"] == ("answer_0", "Sales")
    assert len({option["key"] for option in options.values()}) == 2
    legend = one(html, "[data-builder-options] legend")
    assert text_of(legend) == "Who should get the email?"
    # The typed answer's form no longer repeats the options as radios.
    assert select(html, "#agent-change input[type=radio]") == []


def test_one_click_sends_the_answer_with_its_key_and_the_next_question_follows_in_place(
    agent_routes, asked, remote, logged_in_client
):
    options = _options(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content)
    change = remote.patch(f"/v1/agents/{AGENT_ID}").mock(
        return_value=httpx.Response(200, json={"status": "needs_input", "questions": [SECOND]})
    )
    picked = options["The new contact"]
    with_calls = remote.calls.call_count
    response = logged_in_client.post(
        picked["action"], {"idempotency_key": picked["key"], picked["field"][0]: picked["field"][1]}, **HTMX
    )
    assert response.status_code == 200
    assert change.call_count == 1
    sent = change.calls.last.request
    assert sent.headers["Idempotency-Key"] == picked["key"]
    assert json.loads(sent.content) == {"message": "Who should get the email?\nThe new contact", "auto": False}
    # The region alone, with the builder's next question as one-click options (new keys).
    assert root_ids(response.content) == ["section#agent-change"]
    following = _options(response.content)
    assert list(following) == ["At once", "The next morning"]
    assert picked["key"] not in {option["key"] for option in following.values()}
    assert text_of(one(response.content, "[data-builder-options] legend")) == "When should it go out?"
    # The re-render read the agent once; no other call.
    assert remote.calls.call_count - with_calls == 2


def test_a_failed_click_keeps_the_options_key_so_clicking_again_is_the_same_write(
    agent_routes, asked, remote, logged_in_client
):
    options = _options(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content)
    remote.patch(f"/v1/agents/{AGENT_ID}").mock(return_value=error(503, "server_error", "Down for a moment"))
    picked = options["Sales"]
    response = logged_in_client.post(picked["action"], {"idempotency_key": picked["key"], "answer_0": "Sales"}, **HTMX)
    html = parse(response.content)
    assert select(html, "#agent-change [role=alert]")
    again = _options(html)
    assert again["Sales"]["key"] == picked["key"]
    assert again["The new contact"]["key"] != options["The new contact"]["key"]


def test_a_refused_click_gets_a_new_key(agent_routes, asked, remote, logged_in_client):
    options = _options(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content)
    remote.patch(f"/v1/agents/{AGENT_ID}").mock(return_value=error(402, "insufficient_credits", "Out of credits"))
    picked = options["Sales"]
    response = logged_in_client.post(picked["action"], {"idempotency_key": picked["key"], "answer_0": "Sales"}, **HTMX)
    assert _options(response.content)["Sales"]["key"] != picked["key"]


# --- activation refusals in words -----------------------------------------------------


def test_activation_refusals_name_the_step_not_its_id(agent_routes, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content
    readiness = [text_of(item) for item in select(page, "#agent-activation .issue-list li")]
    assert readiness == ["The email step has no recipient. (step “Send the welcome email”, field to)"]
    key = one(page, "#agent-activation form input[name=idempotency_key]")["value"]
    remote.post(f"/v1/agents/{AGENT_ID}/activate").mock(
        return_value=error(
            422,
            "validation_error",
            "The plan is not ready.",
            issues=[
                {"code": "missing_recipient", "node_id": "n2", "field": "to", "message": "No recipient."},
                {"code": "odd", "node_id": "n9", "message": "A step is gone."},
                {"code": "no_plan", "message": "There is no plan yet."},
            ],
        )
    )
    response = logged_in_client.post(reverse("agents:activate", args=[AGENT_ID]), {"idempotency_key": key}, **HTMX)
    items = [text_of(item) for item in select(response.content, "[data-activation-issues] li")]
    assert items == [
        "No recipient. (step “Send the welcome email”, field to)",
        "A step is gone. (a step the plan does not have: n9)",
        "There is no plan yet.",
    ]


def test_a_step_without_a_label_is_named_by_its_kind(remote, api_key, logged_in_client):
    plan = {"nodes": [{"id": "n1", "kind": "ai_decide"}], "edges": []}
    issues = [{"node_id": "n1", "message": "Say what to decide."}]
    remote.get(f"/v1/agents/{AGENT_ID}").mock(
        return_value=httpx.Response(200, json=full_agent(plan=plan, validation={"ready": False, "issues": issues}))
    )
    remote.get(f"/v1/agents/{AGENT_ID}/runs").mock(return_value=httpx.Response(200, json={"data": []}))
    page = logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content
    (item,) = select(page, "#agent-activation .issue-list li")
    assert text_of(item) == "Say what to decide. (step “AI decision”)"


@pytest.mark.django_db
def test_the_sandbox_refuses_a_plan_without_a_recipient_and_the_page_names_the_step(sandbox_client, seeded_sandbox):
    service = ServiceClient(api_key=seeded_sandbox.demo_key)
    built = service.post(
        "/v1/agents",
        json={"name": "Weekly digest", "message": "Every Monday send an email summary of new deals", "auto": True},
    )
    agent_id = built["agent"]["id"]
    nodes = {node["id"]: node for node in built["agent"]["plan"]["nodes"]}
    page = sandbox_client.get(reverse("agents:detail", args=[agent_id])).content
    assert agent_id_in(sandbox_client.get(reverse("agents:index")).content, "Weekly digest") == agent_id
    key = one(page, "#agent-activation form input[name=idempotency_key]")["value"]
    response = sandbox_client.post(reverse("agents:activate", args=[agent_id]), {"idempotency_key": key}, **HTMX)
    (item,) = select(response.content, "[data-activation-issues] li")
    email = next(node for node in nodes.values() if node["kind"] == "email")
    assert f"(step “{email['label']}”, field to)" in text_of(item)
    assert email["id"] not in text_of(item)
