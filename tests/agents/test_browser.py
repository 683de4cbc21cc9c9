"""The approvals queue in Chromium against a real sandbox over HTTP: a
manager logs in, approves one action and rejects another, and both leave the
pending list. Screenshots of the queue and an agent page go to var/screenshots."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from dashboard.audit.testing import make_administrator
from tests.agents.support import log_in
from tests.helpers import SCREENSHOTS

pytestmark = pytest.mark.browser


def test_a_manager_confirms_a_destructive_approval_with_a_note_and_finds_it_in_the_audit_trail(
    console, page: Page, django_user_model
):
    # Deciding is an Approver's; reading the trail an Auditor's: a manager who
    # does both is an Administrator (dashboard/people/roles.py).
    make_administrator(django_user_model.objects.get(username="mona"))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    log_in(page, console.url + "/approvals/")
    expect(page.get_by_role("heading", name="Approvals", exact=True)).to_be_visible()
    queue = page.get_by_role("list", name="Approvals")
    rows = queue.get_by_role("listitem")
    expect(rows).to_have_count(2)
    page.screenshot(path=str(SCREENSHOTS / "agents-approvals-queue.png"), full_page=True)

    send = rows.filter(has_text="Lead qualifier")
    destructive = rows.filter(has_text="Stale deal cleaner")
    send_id = send.get_attribute("data-approval-id")
    destructive_id = destructive.get_attribute("data-approval-id")
    detail = page.get_by_role("region", name="The selected approval")
    # The first is open in the pane: an email reads as an email; the JSON is one click away.
    expect(detail.get_by_text("To", exact=True)).to_be_visible()
    expect(detail.get_by_text("sales@acme.example", exact=True)).to_be_visible()

    # A destructive action takes two steps: "Approve…" repeats the exact input first.
    destructive.get_by_role("link").first.click()
    card = page.locator(f"#approval-{destructive_id}")
    card.get_by_label("Note (optional, kept in the console's audit trail)").fill("Old test deals, checked.")
    card.get_by_text("Approve…").click()
    confirm = card.get_by_role("button", name="Yes, approve exactly this")
    expect(confirm).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "agents-approvals-confirm.png"), full_page=True)
    confirm.click()
    approved = page.locator(f"#approval-{destructive_id}")
    expect(approved.get_by_text("Approved", exact=True)).to_be_visible()
    expect(approved.get_by_text("The run is now")).to_be_visible()
    expect(approved.get_by_role("button")).to_have_count(0)

    send.get_by_role("link").first.click()
    page.locator(f"#approval-{send_id}").get_by_role("button", name="Reject").click()
    rejected = page.locator(f"#approval-{send_id}")
    expect(rejected.get_by_text("Rejected", exact=True)).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "agents-approvals-decided.png"), full_page=True)

    # Both have left the pending list, and the "All" tab shows how they were decided, and by whom.
    page.get_by_role("link", name="All", exact=True).click()
    expect(page.get_by_role("link", name="All", exact=True)).to_have_attribute("aria-current", "page")
    expect(page.locator(f"#queue-item-{destructive_id}")).to_contain_text("Approved by mona")
    expect(page.locator(f"#queue-item-{send_id}")).to_contain_text("Rejected by mona")
    page.get_by_role("link", name="Pending", exact=True).click()
    expect(page.get_by_text("Nothing is waiting for a decision.")).to_be_visible()

    # The audit trail has the decision, who made it and the note.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Audit").click()
    expect(page.get_by_role("heading", name="Audit trail")).to_be_visible()
    decision = page.get_by_role("row").filter(has_text="Old test deals, checked.")
    expect(decision).to_have_count(1)
    expect(decision.get_by_text("mona")).to_be_visible()
    expect(decision.get_by_text("Approved: Delete records in deals.")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "audit-trail.png"), full_page=True)


def test_the_agent_page_of_a_scheduled_agent(console, page: Page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    log_in(page, console.url + "/agents/")
    expect(page.get_by_role("heading", name="Agents", exact=True)).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "agents-list.png"), full_page=True)
    page.get_by_role("link", name="Weekly pipeline report").click()
    expect(page.get_by_role("heading", name="Weekly pipeline report")).to_be_visible()
    expect(page.get_by_text("webhook configured (its address is private)")).to_be_visible()
    expect(page.get_by_role("heading", name="Runs")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "agents-agent-page.png"), full_page=True)

    page.get_by_role("link", name="Show the address").click()
    address = page.get_by_role("textbox", name="Webhook address")
    expect(address).to_have_value(re.compile(r"/v1/hooks/"))
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_text(re.compile(r"^(Copied|Selected)"))).to_be_visible()


def test_chatting_with_an_agent_shows_the_answer_live_and_continues_the_thread(console, poller, page: Page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    log_in(page, console.url + "/agents/")
    page.get_by_role("link", name="Customer FAQ helper").click()
    page.get_by_role("link", name="Chat with the agent").click()
    page.get_by_role("textbox", name="Message").fill("What does the Pro plan cost?")
    page.get_by_role("button", name="Send").click()

    conversation = page.get_by_role("list", name="Conversation")
    expect(conversation.locator(".chat-you").filter(has_text="What does the Pro plan cost?")).to_be_visible()
    expect(conversation.locator(".agent-answer")).to_have_count(1, timeout=40_000)
    expect(conversation.get_by_text("Completed", exact=True)).to_be_visible()

    page.get_by_role("textbox", name="Message").fill("And the Team plan?")
    page.get_by_role("button", name="Send").click()
    expect(conversation.locator(".agent-answer")).to_have_count(2, timeout=40_000)
    page.screenshot(path=str(SCREENSHOTS / "agents-chat.png"), full_page=True)

    conversation.get_by_role("link", name=re.compile("Open the run")).first.click()
    expect(page.get_by_role("heading", name="Agent run")).to_be_visible()
    expect(page.get_by_role("heading", name="Steps")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "agents-run.png"), full_page=True)


def test_a_new_agent_answers_the_builders_questions_then_is_activated(console, page: Page):
    log_in(page, console.url + "/agents/")
    page.get_by_role("button", name="Create the agent").click()
    expect(page.get_by_text("Write a message.")).to_be_visible()  # refused in place, nothing sent

    page.get_by_role("textbox", name="Name", exact=True).fill("Sales helper")
    page.get_by_label("What should the agent do?").fill("Help sales")
    page.get_by_role("button", name="Create the agent").click()
    expect(page.get_by_role("heading", name="Sales helper")).to_be_visible()
    expect(page.get_by_role("heading", name="The builder needs your answers")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "agents-builder-questions.png"), full_page=True)

    # An option answers its question by one click (its own form and Idempotency-Key).
    page.locator("[data-builder-options] button").first.click()
    expect(page.get_by_role("heading", name="The builder says")).to_be_visible()
    expect(page.get_by_text("No plan yet.")).to_have_count(0)

    page.get_by_role("button", name="Activate").click()
    expect(page.get_by_text("The agent is active (version 1).")).to_be_visible()
    expect(page.locator("h1 .agent-status")).to_have_text("Active")


def test_activating_an_agent_that_is_not_ready_lists_what_to_fix_in_place(console, page: Page):
    log_in(page, console.url + "/agents/")
    page.get_by_role("link", name="Welcome emails").click()
    page.get_by_role("textbox", name="Name").fill("Welcome emails (typed, not sent)")
    page.get_by_role("button", name="Activate").click()
    issues = page.get_by_role("alert").filter(has_text="The agent was not activated")
    expect(issues.get_by_role("listitem")).not_to_have_count(0)
    expect(page.get_by_role("textbox", name="Name")).to_have_value("Welcome emails (typed, not sent)")
    expect(page.locator("h1 .agent-status")).to_have_text("Draft")
    page.screenshot(path=str(SCREENSHOTS / "agents-activation-issues.png"), full_page=True)
