"""The inbox in Chromium against a real sandbox over HTTP (axe checks every
page and swap). The refresh task is run by the test where beat would run it
on its interval; the `poller` fixture stands in for the live poller's beat
and worker."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from dashboard.audit.testing import make_administrator, make_approver
from dashboard.inbox.selectors import inbox_items
from dashboard.inbox.sources import InboxViewer
from dashboard.inbox.tasks import refresh_workspace
from dashboard.reach.models import Claim
from tests.axe import check_now, watch_with_axe
from tests.helpers import PASSWORD, SCREENSHOTS, fill_login_form
from tests.inbox.support import sandbox_member

pytestmark = pytest.mark.browser


@pytest.fixture
def console(live_server, inbox_sandbox, settings, transactional_db):
    settings.SERVICE_BASE_URL = inbox_sandbox.base_url
    settings.INBOX_POLL_SECONDS = 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return live_server


@pytest.fixture
def person(console, inbox_sandbox, django_user_model):
    """make(username, key kind, approver=...) -> the user, with a fresh sandbox key of the kind."""

    def make(username: str, kind: str = "demo", *, approver: bool = False):
        user = django_user_model.objects.create_user(username=username, password=PASSWORD)
        if approver:
            make_approver(user)
        sandbox_member(user, inbox_sandbox, kind)
        return user

    return make


def log_in(page: Page, url: str, username: str) -> None:
    page.goto(url)
    fill_login_form(page, username)


def header_count(page: Page):
    return page.locator("#inbox-header")


def test_a_manager_sees_a_new_approval_counted_approves_it_with_a_note_and_finds_it_audited(console, person, page):
    # Decides (an Approver's) and reads the audit trail (an Auditor's): an Administrator.
    manager = make_administrator(person("mona", approver=True))
    log_in(page, console.url + "/inbox/", "mona")
    expect(page.get_by_role("heading", name="Inbox", exact=True)).to_be_visible()
    expect(header_count(page)).to_have_attribute("data-inbox-count", "0")

    # The interval's refresh reads the workspace: the count in the header follows without a reload.
    refresh_workspace(manager.api_keys.get().workspace_id)
    expect(header_count(page)).not_to_have_attribute("data-inbox-count", "0", timeout=10_000)
    count = int(header_count(page).get_attribute("data-inbox-count"))
    expect(page).to_have_title(re.compile(rf"^\({count}\) Inbox"))

    # The list never reloads by itself (a half-typed note stays): it offers the latest.
    page.get_by_role("link", name="Show the latest").click()
    expect(page.get_by_role("link", name="Show the latest")).to_be_hidden()
    items = page.get_by_role("list", name="Waiting for a person").locator("[data-inbox-item]")
    expect(items).to_have_count(count)
    item = items.filter(has_text="Delete records in deals.")
    expect(item.get_by_text("Started by the agent Stale deal cleaner")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "inbox.png"), full_page=True)

    # The line leads to exactly this approval in the queue, its exact input beside the buttons.
    item.get_by_role("link", name="Decide").click()
    expect(page).to_have_url(re.compile(r"/approvals/\?.*approval="))
    card = page.get_by_role("region", name="The selected approval")
    expect(card).to_contain_text("Delete records in deals.")
    # Destructive: "Approve…" repeats the exact input before the approval goes.
    card.get_by_label("Note (optional, kept in the console's audit trail)").fill("Lost in 2025, checked with sales.")
    card.get_by_text("Approve…").click()
    confirm = card.get_by_role("button", name="Yes, approve exactly this")
    expect(confirm).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "inbox-confirm.png"), full_page=True)
    confirm.click()
    expect(card.get_by_text("Approved", exact=True)).to_be_visible()
    expect(card.locator("form.approval__actions")).to_have_count(0)
    # Settled at once: the header count drops on its next poll.
    expect(header_count(page)).to_have_attribute("data-inbox-count", str(count - 1), timeout=10_000)

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Audit").click()
    decision = page.get_by_role("row").filter(has_text="Lost in 2025, checked with sales.")
    expect(decision).to_have_count(1)
    expect(decision.get_by_text("mona")).to_be_visible()
    expect(decision.get_by_text("Approved: Delete records in deals.")).to_be_visible()


def test_a_non_approver_and_a_viewer_see_no_decide_buttons(console, person, page, browser: Browser):
    member = person("morgan", "member")
    person("vic", "readonly", approver=True)
    refresh_workspace(member.api_keys.get().workspace_id)

    log_in(page, console.url + "/inbox/", "morgan")
    approvals = page.locator("[data-inbox-item][data-kind=approval]")
    expect(approvals.first).to_be_visible()
    expect(page.get_by_text("Only Approvers decide approvals").first).to_be_visible()
    expect(approvals.get_by_role("button")).to_have_count(0)
    expect(approvals.get_by_role("link", name="Decide")).to_have_count(0)  # "Open" instead

    context = browser.new_context()
    viewer = context.new_page()
    watch = watch_with_axe(viewer)
    log_in(viewer, console.url + "/inbox/", "vic")
    viewer_approvals = viewer.locator("[data-inbox-item][data-kind=approval]")
    expect(viewer_approvals.first).to_be_visible()
    expect(viewer.get_by_text("Your role in this workspace is viewer").first).to_be_visible()
    expect(viewer_approvals.get_by_role("button")).to_have_count(0)
    check_now(viewer, watch)
    assert watch.failures() == []
    context.close()


def test_a_teammate_answers_a_builder_question_from_the_inbox(console, person, page, browser: Browser):
    person("mona", approver=True)
    person("morgan", "member")
    log_in(page, console.url + "/agents/", "mona")
    page.get_by_label("Name").fill("Sales helper")
    page.get_by_label("What should the agent do?").fill("Help sales")
    page.get_by_role("button", name="Create the agent").click()
    expect(page.get_by_role("heading", name="The builder needs your answers")).to_be_visible()

    # Another person, in another browser session, finds the question in the inbox.
    context = browser.new_context()
    teammate = context.new_page()
    watch = watch_with_axe(teammate)
    log_in(teammate, console.url + "/inbox/", "morgan")
    question = teammate.locator("[data-inbox-item][data-kind=question]")
    expect(question).to_have_count(1)
    expect(question).to_contain_text("The agent builder asks")
    expect(question).to_contain_text("Started by mona")
    # Keyboard: j focuses the first item, Enter opens it (once the page's
    # deferred script has run: a loaded page, not just its markup).
    teammate.wait_for_load_state("load")
    teammate.keyboard.press("j")
    expect(teammate.locator("[data-inbox-item]").first).to_be_focused()
    items = teammate.locator("[data-inbox-item]")
    for _ in range(items.count()):
        if question.evaluate("node => node === document.activeElement"):
            break
        teammate.keyboard.press("j")
    teammate.keyboard.press("Enter")
    expect(teammate.get_by_role("heading", name="Sales helper")).to_be_visible()

    # An option answers its question by one click (its own form and Idempotency-Key).
    teammate.locator("[data-builder-options] button").first.click()
    expect(teammate.get_by_role("heading", name="The builder says")).to_be_visible()
    teammate.goto(console.url + "/inbox/")
    expect(teammate.locator("[data-inbox-item][data-kind=question]")).to_have_count(0)
    check_now(teammate, watch)
    assert watch.failures() == []
    context.close()


# A stand-in for the browser's Notification API, recording what the console
# shows; the permission, once given, lasts across pages like the real one.
NOTIFICATION_STUB = """
(() => {
  window.__notes = [];
  class FakeNotification {
    constructor(title, options) { window.__notes.push(title + ": " + ((options && options.body) || "")); }
    static requestPermission() {
      localStorage.setItem("fake-notification-permission", "granted");
      FakeNotification.permission = "granted";
      return Promise.resolve("granted");
    }
  }
  FakeNotification.permission = localStorage.getItem("fake-notification-permission") || "default";
  window.Notification = FakeNotification;
})();
"""


def test_a_website_build_finishing_while_the_person_is_elsewhere_is_announced(console, person, poller, page):
    person("dora")
    page.add_init_script(NOTIFICATION_STUB)
    log_in(page, console.url + "/studio/", "dora")
    page.get_by_label("Studio", exact=True).select_option("website")
    page.get_by_label("Message").fill("A landing page for our autumn tea sale")
    page.get_by_label("Decide for me").check()
    page.get_by_role("button", name="Start the turn").click()
    expect(page.get_by_role("heading", name="Website conversation")).to_be_visible()

    # On another page, with browser notifications allowed on a click.
    page.goto(console.url + "/inbox/")
    page.get_by_role("button", name="Also notify me in the browser").click()
    expect(page.get_by_role("button", name="Also notify me in the browser")).to_be_hidden()
    page.get_by_role("link", name="Everything you started (Live)").click()
    expect(page.get_by_role("heading", name="Background work")).to_be_visible()

    toast = page.locator("#toasts .toast")
    expect(toast).to_contain_text("Studio turn finished", timeout=60_000)
    expect(toast).to_contain_text("autumn tea sale")
    assert page.evaluate("window.__notes") == [
        "Workspace Console: Studio turn finished: A landing page for our autumn tea sale"
    ]
    page.screenshot(path=str(SCREENSHOTS / "inbox-toast.png"), full_page=False)
    toast.get_by_role("link", name="Open").click()
    expect(page.get_by_role("heading", name="Website conversation")).to_be_visible()
    expect(page.locator("#toasts .toast")).to_have_count(0)  # shown once


def test_a_chat_answered_after_an_approval_from_the_inbox_shows_completed_in_the_thread(console, person, poller, page):
    manager = person("mona", approver=True)
    log_in(page, console.url + "/agents/", "mona")
    page.get_by_role("link", name="Lead qualifier").click()
    page.get_by_role("link", name="Chat with the agent").click()
    page.get_by_role("textbox", name="Message").fill("Qualify the lead Ann Lee from Initech")
    page.get_by_role("button", name="Send").click()
    conversation = page.get_by_role("list", name="Conversation")
    expect(conversation.get_by_text("Waiting", exact=True)).to_be_visible(timeout=40_000)
    chat_url = page.url  # the conversation's own address (?thread=...)
    assert "thread=" in chat_url

    refresh_workspace(manager.api_keys.get().workspace_id)
    page.goto(console.url + "/inbox/?kind=approval")
    # The longest waiting first: the approval just asked for is the last line (its input is in the queue's card).
    item = page.locator("[data-inbox-item]").last
    item.get_by_role("link", name="Decide").click()
    card = page.get_by_role("region", name="The selected approval")
    expect(card).to_contain_text("Ann Lee")
    card.get_by_role("button", name="Approve", exact=True).click()
    expect(card.get_by_text("Approved", exact=True)).to_be_visible()

    page.goto(chat_url)
    conversation = page.get_by_role("list", name="Conversation")
    expect(conversation.get_by_text("Completed", exact=True)).to_be_visible(timeout=40_000)
    expect(conversation.get_by_text("Waiting", exact=True)).to_have_count(0)
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(console.url + "/inbox/")
    page.screenshot(path=str(SCREENSHOTS / "inbox-375.png"), full_page=True)


def test_the_inbox_is_a_dense_list_at_desktop_and_375_px_with_claims_and_assigned_to_me(
    console, person, inbox_sandbox, page
):
    """Lines, not cards (axe on every page): 20 or more waiting approvals in a
    screen or two, who is on each, and the "Assigned to me" filter."""
    manager = person("mona", approver=True)
    teammate = person("tess", approver=True)
    headers = {"Authorization": f"Bearer {inbox_sandbox.demo_key}"}
    agents = httpx.get(f"{inbox_sandbox.base_url}/v1/agents", headers=headers, timeout=30).json()["data"]
    lead = next(agent["id"] for agent in agents if agent["name"] == "Lead qualifier")
    for n in range(20):
        httpx.post(
            f"{inbox_sandbox.base_url}/v1/agents/{lead}/runs",
            headers=headers,
            json={"message": f"Qualify the lead number {n}"},
            timeout=60,
        )
    workspace_id = manager.api_keys.get().workspace_id
    refresh_workspace(workspace_id)
    log_in(page, console.url + "/inbox/?kind=approval", "mona")
    lines = page.get_by_role("list", name="Waiting for a person").locator("[data-inbox-item]")
    expect(lines.first).to_be_visible()
    count = lines.count()
    assert count >= 20
    height = page.evaluate("document.documentElement.scrollHeight")
    # The tallest line (one that tells itself apart from its twins by a part of its input included).
    per_line = page.evaluate(
        "Math.max(...[...document.querySelectorAll('[data-inbox-item]')].map(li => li.getBoundingClientRect().height))"
    )
    print(f"inbox desktop: {count} approvals, {height} px tall, the tallest line {per_line} px")
    assert per_line < 90  # a line, not a card with the input and a form
    page.screenshot(path=str(SCREENSHOTS / "inbox-dense.png"), full_page=True)

    # Claimed by a teammate, assigned to mona: each line says so; the filter keeps hers.
    viewer = InboxViewer(user=manager, workspace_id=workspace_id)
    approvals = [item for item in inbox_items(viewer=viewer) if item.kind == "approval"]
    Claim.objects.create(workspace_id=workspace_id, item_key=approvals[0].key, user=teammate)
    Claim.objects.create(workspace_id=workspace_id, item_key=approvals[1].key, user=manager, assigned_by=teammate)
    page.reload()
    expect(page.get_by_text("tess is on it")).to_have_count(1)
    expect(page.get_by_text("Assigned to you")).to_have_count(1)
    # The filters are one control, folded (a phone's first screen is for the items).
    page.locator("summary", has_text="Filters").click()
    page.get_by_label("Assigned to me").check()
    expect(lines).to_have_count(1)
    expect(lines.first).to_contain_text("Assigned to you")
    expect(page).to_have_url(re.compile(r"mine=1"))

    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(console.url + "/inbox/?kind=approval")
    expect(lines.first).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    height = page.evaluate("document.documentElement.scrollHeight")
    print(f"inbox 375 px: {lines.count()} approvals, {height} px tall")
    page.screenshot(path=str(SCREENSHOTS / "inbox-dense-375.png"), full_page=True)
