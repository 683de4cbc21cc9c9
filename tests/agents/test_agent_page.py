"""The agent page with odd shapes (respx): the plan graph (edges as strings or
objects, unknown kinds, issues on their nodes, a node's settings), the
activation state, versions absent or present, schedules of any shape, and
the builder's answers with the draft's id in each place (or none)."""

from __future__ import annotations

import json

import httpx
import pytest
from django.urls import reverse

from agents.models import BuilderAnswer
from agents.plan import plan_graph, read_edge
from tests.agents.support import AGENT_ID, HTMX, full_agent
from tests.html import one, parse, roots, select, text_of, texts

BRANCHING_PLAN = {
    "nodes": [
        {"id": "t", "kind": "trigger", "label": "New lead"},
        {"id": "d", "kind": "ai_decide", "label": "Is it a good fit?"},
        {"id": "b", "kind": "branch", "label": "Fit?"},
        {"id": "e", "kind": "email", "label": "Tell sales", "config": {"to": "sales@acme.example"}},
        {"id": "x", "kind": "crm_sync", "label": "Log it", "config": {"system": "crm", "secret_token": "****"}},
    ],
    "edges": [
        "t->d",
        {"from": {"node_id": "d", "port": "out"}, "to": {"node_id": "b"}},
        {"source": "b", "target": "e", "label": "yes"},
        {"from": "b", "to": "x", "port": "no"},
        {"from": "x", "to": "ghost"},
        42,
    ],
}


@pytest.fixture
def agent_route(remote, api_key):
    def serve(**extra):
        remote.get(f"/v1/agents/{AGENT_ID}/runs").mock(return_value=httpx.Response(200, json={"data": []}))
        return remote.get(f"/v1/agents/{AGENT_ID}").mock(return_value=httpx.Response(200, json=full_agent(**extra)))

    return serve


@pytest.mark.parametrize(
    ("raw", "ends"),
    [
        ("a->b", ("a", "b", "")),
        ("a → b", ("a", "b", "")),
        (["a", "b", "yes"], ("a", "b", "yes")),
        ({"from": "a", "to": "b"}, ("a", "b", "")),
        ({"source": {"id": "a"}, "target": {"node": "b"}, "label": "ok"}, ("a", "b", "ok")),
        ({"from": {"node_id": "a", "port": "true"}, "to": {"node_id": "b", "port": "in"}}, ("a", "b", "true")),
        ("a:yes->b", ("a", "b", "yes")),
    ],
)
def test_edges_of_every_shape_resolve_to_their_nodes(raw, ends):
    edge = read_edge(raw)
    assert (edge["source"], edge["target"], edge["label"]) == ends


@pytest.mark.parametrize("raw", [None, 5, "a", "->b", {"from": "a"}, [], ["a"], {"to": {"port": "x"}}])
def test_edges_that_name_no_two_ends_are_kept_aside(raw):
    assert read_edge(raw) is None


def test_a_branching_plan_is_laid_out_left_to_right_and_loops_do_not_hang():
    graph = plan_graph(BRANCHING_PLAN)
    x = {node["id"]: node["x"] for node in graph["nodes"]}
    assert x["t"] < x["d"] < x["b"] < x["e"] == x["x"] < x["ghost"]
    assert [node["kind_label"] for node in graph["nodes"]][-1] == "Not in the plan"
    looped = plan_graph(
        {"nodes": [{"id": str(n)} for n in range(300)], "edges": [f"{n}->{n + 1}" for n in range(299)] + ["299->0"]}
    )
    assert looped["width"] > 0  # a 300-long loop: laid out, no recursion limit


def test_the_plan_graph_shows_kinds_labels_issues_and_opens_a_nodes_settings(agent_route, logged_in_client):
    issues = [
        {"node_id": "e", "message": "The email step has no recipient."},
        {"node": {"id": "zz"}, "message": "Elsewhere"},
    ]
    route = agent_route(plan=BRANCHING_PLAN, validation={"ready": False, "issues": issues})
    page = parse(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content)

    nodes = select(page, "svg .plan-node")
    assert [node["data-node-id"] for node in nodes] == ["t", "d", "b", "e", "x", "ghost"]
    assert "plan-node--ai-decide" in nodes[1]["class"] and "plan-node--generic" in nodes[4]["class"]
    flagged = [node["data-node-id"] for node in nodes if "plan-node--issue" in node["class"]]
    assert flagged == ["e"]
    assert nodes[3]["aria-label"] == "Tell sales, Email, 1 issue to fix: open its settings"
    assert texts(page, ".plan-edge__label") == ["out", "yes", "no"]
    assert len(select(page, "path.plan-edge--dashed")) == 1  # to the step the plan does not have
    # Readable without the picture too; never a Python dict.
    assert "{'" not in text_of(one(page, ".plan-card"))
    assert "Tell sales" in text_of(one(page, ".plan-as-list"))

    panel = logged_in_client.get(reverse("agents:detail", args=[AGENT_ID]) + "?region=node&node=x", **HTMX)
    html = parse(panel.content)
    assert text_of(one(html, "#plan-node-panel h3")) == "Log it Crm sync"
    assert "crm" in text_of(one(html, "#plan-node-panel .json-view")) and "html" not in [
        e.name for e in roots(panel.content)
    ]
    assert route.call_count == 2
    # Without JavaScript the link opens the same panel in the page.
    full = parse(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID]) + "?node=e").content)
    assert "no recipient" in text_of(one(full, "#plan-node-panel"))
    unknown = parse(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID]) + "?node=nope").content)
    assert "no step with this id" in text_of(one(unknown, "#plan-node-panel"))


@pytest.mark.parametrize(
    ("status", "version_id", "version", "words"),
    [
        ("active", "vvvv-1", None, "Active: runs a published version"),
        ("active", None, None, "Active: runs a published version"),
        ("active", "vvvv-1", 3, "Active: runs version 3"),
        ("paused", "vvvv-1", None, "Paused: wake-ups are off"),
        ("draft", "vvvv-1", None, "Draft changes on top of a published version"),
        ("draft", None, None, "Never activated: a draft"),
    ],
)
def test_the_activation_state_reads_status_and_the_active_version_together(
    agent_route, logged_in_client, status, version_id, version, words
):
    agent_route(status=status, active_version_id=version_id, version=version)
    page = parse(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content)
    assert text_of(one(page, ".agent-activation")).startswith(words)
    if status == "active":
        assert "Never activated" not in text_of(page)


def test_versions_are_listed_where_given_and_said_absent_otherwise(agent_route, logged_in_client):
    agent_route(
        status="active",
        active_version_id="v2",
        versions=[
            {"id": "v2", "version": 2, "created_at": "2026-11-21T08:00:00Z", "message": "Adds the CRM step"},
            {"id": "v1", "version": 1, "created_at": "2026-11-20T08:00:00Z", "extra": {"odd": True}},
        ],
    )
    page = parse(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content)
    items = select(page, ".version-list > li")
    assert text_of(items[0]).startswith("Version 2 active · 21 Nov 2026, 09:00 CET · Adds the CRM step")
    assert "odd" in text_of(items[1])

    agent_route(status="active", active_version_id="v9")
    page = parse(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content)
    assert "The service does not list earlier versions." in text_of(one(page, "#versions-heading").parent)


def test_schedules_of_any_shape_read_in_the_workspace_zone(agent_route, logged_in_client):
    agent_route(
        schedule=[
            {
                "rule": {"every": "week", "day": "monday", "at": "09:00"},
                "next_run_at": "2026-11-23T08:00:00Z",
                "timezone": "Europe/Berlin",
            },
            {"cron": "0 8 * * *", "next_run": "2026-11-22T07:00:00Z"},
            "2026-11-24T07:00:00Z",
            "every hour",
            {"wakeup_id": "w3", "next_run_at": "soon", "region": "eu"},
            7,
        ]
    )
    page = parse(logged_in_client.get(reverse("agents:detail", args=[AGENT_ID])).content)
    items = [text_of(item) for item in select(page, ".schedule-list > li")]
    assert items[0].startswith(
        "every week, day monday, at 09:00 (rule in Europe/Berlin) · next run Mon 23 Nov 2026, 09:00 CET"
    )
    assert items[1] == "0 8 * * * · next run Sun 22 Nov 2026, 08:00 CET"
    assert items[2] == "Scheduled · next run Tue 24 Nov 2026, 08:00 CET"
    assert items[3] == "every hour"
    assert items[4].startswith("w3 · next run soon")
    assert len(items) == 5
    assert "{'" not in text_of(one(page, ".schedule-list"))


# --- the builder ------------------------------------------------------------------------------

QUESTIONS = [{"text": "Who should get the email?", "options": ["Sales", "Support"]}]


@pytest.mark.parametrize(
    "answer",
    [
        {"status": "needs_input", "questions": QUESTIONS, "agent": {"id": AGENT_ID}},
        {"status": "needs_input", "questions": QUESTIONS, "agent_id": AGENT_ID},
        {"status": "needs_input", "questions": QUESTIONS, "id": AGENT_ID},
        {"status": "needs_input", "questions": QUESTIONS, "agent": AGENT_ID},
    ],
    ids=["agent.id", "agent_id", "id", "agent as its id"],
)
def test_the_drafts_id_is_found_wherever_the_answer_carries_it(remote, api_key, logged_in_client, answer):
    remote.post("/v1/agents").mock(return_value=httpx.Response(200, json=answer))
    created = logged_in_client.post(
        reverse("agents:create"), {"message": "Welcome people", "idempotency_key": "k" * 32}
    )
    assert created.status_code == 302 and created.url == reverse("agents:detail", args=[AGENT_ID])
    assert BuilderAnswer.objects.get(agent_id=AGENT_ID).questions == QUESTIONS


def test_questions_without_any_id_are_shown_in_place_and_answered_with_the_brief(remote, api_key, logged_in_client):
    remote.get("/v1/agents").mock(return_value=httpx.Response(200, json={"data": [], "next_cursor": None}))
    create = remote.post("/v1/agents").mock(
        return_value=httpx.Response(
            200, json={"status": "needs_input", "message": "A few questions.", "questions": QUESTIONS}
        )
    )
    answer = logged_in_client.post(
        reverse("agents:create"), {"name": "Welcomer", "message": "Welcome people", "idempotency_key": "k" * 32}, **HTMX
    )
    assert answer.status_code == 200  # no redirect: the questions are here
    page = parse(answer.content)
    form = one(page, "#new-agent-form")
    assert text_of(one(form, "#builder-heading")) == "The builder needs your answers"
    assert texts(form, ".builder-question legend") == ["Who should get the email?"]
    assert one(form, "textarea[name=message]").get_text().strip() == "Welcome people"
    assert one(form, "input[name=name]")["value"] == "Welcomer"
    new_key = one(form, "input[name=idempotency_key]")["value"]
    assert new_key != "k" * 32

    asked = one(form, "input[name=asked]")["value"]
    logged_in_client.post(
        reverse("agents:create"),
        {
            "name": "Welcomer",
            "message": "Welcome people",
            "asked": asked,
            "answer_0": "Sales",
            "idempotency_key": new_key,
        },
    )
    sent = json.loads(create.calls.last.request.content)
    assert sent["message"] == "Welcome people\n\nWho should get the email?\nSales"
    assert create.calls.last.request.headers["Idempotency-Key"] == new_key


def test_a_tampered_questions_field_is_read_as_no_questions(remote, api_key, logged_in_client):
    remote.get("/v1/agents").mock(return_value=httpx.Response(200, json={"data": [], "next_cursor": None}))
    create = remote.post("/v1/agents").mock(
        return_value=httpx.Response(200, json={"status": "built", "agent": {"id": AGENT_ID}})
    )
    for asked in ("{not json", json.dumps({"a": 1}), json.dumps([{"text": "x" * 10, "options": ["a"]}] * 50)):
        answer = logged_in_client.post(reverse("agents:create"), {"message": "Hi", "asked": asked, "answer_0": "a"})
        assert answer.status_code == 302
    assert create.call_count == 3


def test_a_change_answering_needs_input_shows_its_questions_in_place(agent_route, remote, logged_in_client):
    agent_route()
    remote.patch(f"/v1/agents/{AGENT_ID}").mock(
        return_value=httpx.Response(
            200, json={"status": "needs_input", "message": "One more thing.", "questions": QUESTIONS}
        )
    )
    answer = logged_in_client.post(
        reverse("agents:change", args=[AGENT_ID]), {"message": "Add a step", "idempotency_key": "k" * 32}, **HTMX
    )
    assert answer.status_code == 200 and "HX-Redirect" not in answer
    region = parse(answer.content)
    assert text_of(one(region, "#builder-heading")) == "The builder needs your answers"
    assert text_of(one(region, ".builder-says .agent-answer")) == "One more thing."
    assert texts(region, ".builder-question legend") == ["Who should get the email?"]
    assert one(region, "form[hx-target='#agent-change'][novalidate] input[name=idempotency_key]")["value"] != "k" * 32
