"""Browser journeys (Chromium, real sandbox over HTTP, axe on every page and
swap): the graph of a branching plan used by keyboard and on a phone, a run
followed live through an approval decided on its own page, a conversation
continued from the conversations list, and a rerun after its confirmation.

The `poller` fixture runs the real `live.tick` with tasks inline, which also
runs a message's stream task right after its commit (tests/conftest.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.agents.support import log_in
from tests.helpers import SCREENSHOTS

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def screenshots():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)


def test_the_graph_of_a_branching_plan_opens_a_steps_settings_by_keyboard_and_fits_a_phone(console, page: Page):
    log_in(page, console.url + "/agents/")
    page.get_by_role("link", name="Lead qualifier").click()
    graph = page.locator(".plan-graph svg")
    expect(graph).to_be_visible()
    branch = page.get_by_role("link", name=re.compile(r"^Branch on the decision, Branch"))
    expect(branch).to_have_count(1)
    expect(page.get_by_role("link", name=re.compile(r"^Decide what it deserves, AI decision"))).to_have_count(1)
    page.screenshot(path=str(SCREENSHOTS / "agents-plan-graph.png"), full_page=True)

    branch.focus()
    page.keyboard.press("Enter")
    panel = page.locator("#plan-node-panel")
    expect(panel.get_by_role("heading", name=re.compile("Branch on the decision"))).to_be_visible()
    expect(panel.get_by_text("decision == 'yes'")).to_be_visible()

    page.set_viewport_size({"width": 375, "height": 800})
    page.reload()
    expect(page.locator(".plan-graph")).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1  # the graph scrolls in its own box, the page does not
    page.screenshot(path=str(SCREENSHOTS / "agents-plan-graph-phone.png"), full_page=True)


def test_a_run_is_followed_live_through_an_approval_decided_on_its_page(console, poller, page: Page):
    log_in(page, console.url + "/agents/")
    page.get_by_role("link", name="Lead qualifier").click()
    page.get_by_role("link", name="Chat with the agent").click()
    page.get_by_role("textbox", name="Message").fill("Qualify the lead Ada Lovelace from Initech")
    page.get_by_role("button", name="Send").click()

    conversation = page.get_by_role("list", name="Conversation")
    expect(conversation.get_by_text("waiting for a person to decide an approval")).to_be_visible(timeout=20_000)
    conversation.get_by_role("link", name="Decide it on the run's page").click()

    expect(page.get_by_role("heading", name="Agent run")).to_be_visible()
    expect(page.get_by_text("Waiting for a person to decide an approval.")).to_be_visible()
    steps = page.get_by_role("list", name="Steps of the run")
    expect(steps.get_by_role("listitem")).not_to_have_count(0)
    page.screenshot(path=str(SCREENSHOTS / "agents-run-waiting.png"), full_page=True)

    # A step's input and result open beside the timeline.
    steps.get_by_role("link").first.click()
    expect(page.locator("#run-step-panel").get_by_role("heading", name=re.compile(r"^Step 1"))).to_be_visible()

    approvals = page.get_by_role("list", name="Approvals")
    approvals.get_by_label("Note (optional, kept in the console's audit trail)").fill("Ada is a fit.")
    approvals.get_by_role("button", name="Approve").click()
    expect(approvals.get_by_text("Approved", exact=True)).to_be_visible(timeout=20_000)
    # The run's own region follows it to the end, without a reload.
    expect(page.locator(".live-op").get_by_text("Approved and done")).to_be_visible(timeout=20_000)
    expect(page.locator(".live-op")).to_have_attribute("data-status", "completed")
    page.screenshot(path=str(SCREENSHOTS / "agents-run-approved.png"), full_page=True)

    # On a phone the run page and every agent's runs fit the screen (tables scroll in their box).
    page.set_viewport_size({"width": 375, "height": 800})
    for path, shot in (
        (page.url, "agents-run-phone.png"),
        (console.url + "/agents/", "agents-list-phone.png"),
        (console.url + "/runs/", "agents-runs-phone.png"),
    ):
        page.goto(path)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, path
        page.screenshot(path=str(SCREENSHOTS / shot), full_page=True)
    expect(page.get_by_role("heading", name="Every agent's runs")).to_be_visible()


def test_a_conversation_is_continued_from_the_conversations_list(console, poller, page: Page):
    log_in(page, console.url + "/agents/")
    page.get_by_role("link", name="Customer FAQ helper").click()
    page.get_by_role("link", name="Conversations", exact=True).click()
    expect(page.get_by_role("heading", name="Conversations with Customer FAQ helper")).to_be_visible()
    threads = page.get_by_role("list", name="Conversations")
    page.screenshot(path=str(SCREENSHOTS / "agents-threads.png"), full_page=True)
    threads.get_by_role("link", name="What does the Pro plan cost?").click()

    expect(page.get_by_role("heading", name="Earlier in this conversation")).to_be_visible()
    expect(page.get_by_role("heading", name="Continue the conversation")).to_be_visible()
    event_box = page.get_by_role("textbox", name="Event (JSON, optional)")
    page.get_by_text("Send an event too").click()
    expect(event_box).to_have_value("")
    event_box.fill('{"plan": NaN}')
    page.get_by_role("textbox", name="Message").fill("And the Team plan?")
    page.get_by_role("button", name="Send").click()
    expect(
        page.get_by_text(re.compile(r"^Line 1, column 10: NaN"))
    ).to_be_visible()  # refused in place, with its position
    expect(page.get_by_role("textbox", name="Event (JSON, optional)")).to_have_value('{"plan": NaN}')
    expect(page.get_by_role("textbox", name="Message")).to_have_value("And the Team plan?")

    page.get_by_role("textbox", name="Event (JSON, optional)").fill("")
    page.get_by_role("button", name="Send").click()
    conversation = page.get_by_role("list", name="Conversation")
    expect(conversation.locator(".chat-you").filter(has_text="And the Team plan?")).to_be_visible()
    expect(conversation.locator(".agent-answer")).to_have_count(1, timeout=20_000)
    page.screenshot(path=str(SCREENSHOTS / "agents-thread-continued.png"), full_page=True)


def test_a_run_is_sent_again_after_its_confirmation(console, poller, page: Page):
    log_in(page, console.url + "/agents/")
    page.get_by_role("link", name="Customer FAQ helper").click()
    page.locator("#agent-runs").get_by_role("link", name=re.compile("^Open the run")).first.click()
    expect(page.get_by_role("heading", name="Agent run")).to_be_visible()
    page.get_by_text("Run again…").click()
    expect(page.get_by_text("Send exactly this to the agent again, as a new run?")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "agents-rerun-confirm.png"), full_page=True)
    page.get_by_role("button", name="Yes, run it again").click()

    expect(page.get_by_role("heading", name="Chat with Customer FAQ helper")).to_be_visible()
    conversation = page.get_by_role("list", name="Conversation")
    expect(conversation.locator(".agent-answer")).to_have_count(1, timeout=20_000)
