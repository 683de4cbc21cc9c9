"""The Agents area against a real sandbox over HTTP: the queue shows the
seeded pending approvals, approving one resumes its run, and each page of the
area renders from the service's real answers."""

from __future__ import annotations

import re

from django.urls import reverse

from sandbox.agents import RUN_SECONDS
from tests.agents.support import agent_id_in, agent_id_named, form_keys
from tests.html import one, roots, select, text_of

HTMX = {"HTTP_HX_REQUEST": "true"}


def pending_rows(html: str) -> list[str]:
    """The pending approvals of the queue's list (the first one's detail and form are in the pane)."""
    return [row["data-approval-id"] for row in select(html, "li.approval-item--pending")]


def decision_form(html: str, approval_id: str, decision: str) -> dict:
    """What the row's form posts when the button of `decision` is pressed
    (for "approve" of a destructive or spend action: its confirmation's button)."""
    form = one(html, f"li#approval-{approval_id} form.approval__actions")
    if decision == "approve" and form.select_one("button[value=approve-confirmed]"):
        decision = "approve-confirmed"
    assert form.select_one(f"button[name=decision][value={decision}]"), f"no {decision} button in the row"
    return {
        **{field["name"]: field.get("value", "") for field in form.select("input[type=hidden]")},
        "decision": decision,
    }


def test_approving_a_seeded_pending_approval_resumes_its_run(sandbox_client, seeded_sandbox):
    queue = sandbox_client.get(reverse("agents:approvals")).content.decode()
    assert "Lead qualifier" in queue
    row_ids = pending_rows(queue)
    assert row_ids, "the demo workspace has pending approvals"
    row = one(queue, f"li#approval-{row_ids[0]}")
    assert "Exactly what will run" in text_of(row) and one(row, ".approval__head .badge.risk")["class"] == [
        "badge",
        "risk",
        "risk--send",
    ]
    assert "svc_sk_" not in queue

    fields = decision_form(queue, row_ids[0], "approve")
    response = sandbox_client.post(reverse("agents:approval_decide", args=[row_ids[0]]), fields, **HTMX)
    body = response.content.decode()

    assert response.status_code == 200
    assert one(body, f"li#approval-{row_ids[0]}")["class"] == ["card", "approval", "approval--approved"]
    assert "The run is now" in body and "Completed" in body
    run_id = re.fullmatch(r"/runs/([0-9a-f-]{36})/", select(body, "a[href^='/runs/']")[0]["href"]).group(1)
    run_page = sandbox_client.get(reverse("agents:run", args=[run_id])).content.decode()
    assert "run-status--completed" in run_page
    assert "Approved and done" in run_page

    # The same form again is the same decision: the service replays it.
    again = sandbox_client.post(reverse("agents:approval_decide", args=[row_ids[0]]), fields, **HTMX)
    assert one(again.content, f"li#approval-{row_ids[0]}")["data-status"] == "approved"
    pending_after = pending_rows(sandbox_client.get(reverse("agents:approvals")).content.decode())
    assert row_ids[0] not in pending_after


def test_a_new_form_for_a_decided_approval_says_already_decided(sandbox_client):
    queue = sandbox_client.get(reverse("agents:approvals")).content.decode()
    approval_id = pending_rows(queue)[0]
    approve = decision_form(queue, approval_id, "approve")
    reject = decision_form(queue, approval_id, "reject")
    sandbox_client.post(reverse("agents:approval_decide", args=[approval_id]), reject, **HTMX)

    late = sandbox_client.post(reverse("agents:approval_decide", args=[approval_id]), approve, **HTMX)
    body = late.content.decode()
    assert late.status_code == 200
    # The console person who decided, not the service key's owner the sandbox names ("Dana Admin").
    assert "Already decided by alice (rejected)" in body
    assert one(body, f"li#approval-{approval_id}")["class"] == ["card", "approval", "approval--rejected"]


def test_the_agents_pages_render_the_demo_agents(sandbox_client):
    listing = sandbox_client.get(reverse("agents:index")).content.decode()
    for name in (
        "Lead qualifier",
        "Weekly pipeline report",
        "Stale deal cleaner",
        "Customer FAQ helper",
        "Welcome emails",
    ):
        assert name in listing
    agent_id = agent_id_in(listing, "Weekly pipeline report")
    page = sandbox_client.get(reverse("agents:detail", args=[agent_id])).content.decode()
    assert "webhook configured" in page
    assert "/v1/hooks/" not in page, "the webhook address is private"
    assert "next run" in page
    assert len(form_keys(page)) >= 4


def poll_after(handle, operation_id: int, *, service_seconds: float):
    """The live poller's own step, once, after moving the sandbox's clock on by
    `service_seconds` of simulated time (the run is skipped, not waited for)."""
    from dashboard.live.services import operation_poll

    handle.advance(service_seconds=service_seconds)
    return operation_poll(operation_id=operation_id)


def test_activating_an_agent_that_is_not_ready_lists_the_issues(sandbox_client):
    agent_id = agent_id_named(sandbox_client, "Welcome emails")
    page = sandbox_client.get(reverse("agents:detail", args=[agent_id])).content.decode()
    key = one(page, "#agent-activation form input[name=idempotency_key]")["value"]
    response = sandbox_client.post(reverse("agents:activate", args=[agent_id]), {"idempotency_key": key}, **HTMX)
    body = response.content.decode()
    assert "The agent was not activated" in body
    assert [issue for issue in select(body, "[data-activation-issues] li") if "recipient" in text_of(issue).lower()]


def test_a_short_brief_asks_questions_and_the_answer_builds_the_agent(sandbox_client):
    page = sandbox_client.get(reverse("agents:index")).content.decode()
    created = sandbox_client.post(
        reverse("agents:create"), {"message": "Help sales", "idempotency_key": form_keys(page)[0]}
    )
    assert created.status_code == 302
    agent_page = sandbox_client.get(created.url).content.decode()
    assert "The builder needs your answers" in agent_page
    # The first option of the first question: one click, its own form and key.
    option = select(agent_page, "[data-builder-options] form")[0]
    button = one(option, "button[name=answer_0]")
    key = one(option, "input[name=idempotency_key]")["value"]

    changed = sandbox_client.post(option["action"], {"answer_0": button["value"], "idempotency_key": key})

    assert changed.status_code == 302
    built = sandbox_client.get(created.url).content.decode()
    assert "The builder needs your answers" not in built and "The builder says" in built
    assert "No plan yet." not in built


def test_a_chat_message_is_answered_through_the_live_poller_and_its_run_page(sandbox_client, seeded_sandbox, settings):
    from dashboard.live.models import TrackedOperation

    settings.AGENTS_STREAM_ANSWERS = False  # the plain-polling path; the streamed one: test_chat.py

    agent_id = agent_id_named(sandbox_client, "Customer FAQ helper")
    page = sandbox_client.get(reverse("agents:chat", args=[agent_id])).content.decode()
    sent = sandbox_client.post(
        reverse("agents:chat_send", args=[agent_id]),
        {"message": "What does the Pro plan cost?", "idempotency_key": form_keys(page)[0]},
    )
    assert sent.status_code == 302 and "?thread=" in sent.url
    op = poll_after(
        seeded_sandbox, TrackedOperation.objects.get(kind="agents.invocation").pk, service_seconds=RUN_SECONDS
    )
    assert op.is_final and op.status == "completed" and op.snapshot["answer"]

    thread = sandbox_client.get(sent.url).content.decode()
    assert op.snapshot["answer"] in thread
    run_id = op.snapshot["run_id"]
    run_page = sandbox_client.get(reverse("agents:run", args=[run_id])).content.decode()
    assert "run-status--completed" in run_page and "Trigger" in run_page and "Agent" in run_page
    # Continuing the conversation stays in the same thread.
    form = sandbox_client.get(sent.url).content.decode()
    again = sandbox_client.post(
        reverse("agents:chat_send", args=[agent_id]) + sent.url[sent.url.index("?") :],
        {
            "message": "And the Team plan?",
            "thread_id": one(form, "input[name=thread_id]")["value"],
            "idempotency_key": form_keys(form)[0],
        },
    )
    assert again.url == sent.url
    assert (
        TrackedOperation.objects.filter(kind="agents.invocation", context__thread_id=op.context["thread_id"]).count()
        == 2
    )


def test_the_webhook_address_is_shown_only_when_asked_for(sandbox_client):
    agent_id = agent_id_named(sandbox_client, "Weekly pipeline report")
    page = sandbox_client.get(reverse("agents:detail", args=[agent_id])).content.decode()
    assert "/v1/hooks/" not in page and "Show the address" in page
    revealed = sandbox_client.get(reverse("agents:webhook", args=[agent_id]), **HTMX)
    body = revealed.content.decode()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1/hooks/.+", one(body, "input.webhook-address__value")["value"])
    assert revealed["Cache-Control"] == "no-store" and "html" not in [element.name for element in roots(body)]
