"""The approvals queue in Chromium against a real sandbox over HTTP: a
manager logs in, approves one action and rejects another, and both leave the
pending list. Screenshots of the queue and an agent page go to var/screenshots."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from dashboard.keys.testing import stored_api_key

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PASSWORD = "correct horse battery staple"

pytestmark = pytest.mark.browser


@pytest.fixture
def console(live_server, seeded_sandbox, settings, transactional_db, django_user_model):
    settings.SERVICE_BASE_URL = seeded_sandbox.base_url
    manager = django_user_model.objects.create_user(username="mona", password=PASSWORD)
    stored_api_key(user=manager, secret=seeded_sandbox.mint_key("demo"), workspace_name="Acme Marketing",
                   workspace_timezone="Europe/Berlin")
    return live_server


def log_in(page: Page, url: str) -> None:
    page.goto(url)
    page.get_by_label("Username").fill("mona")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def test_a_manager_approves_one_action_and_rejects_another(console, page: Page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    log_in(page, console.url + "/approvals/")
    expect(page.get_by_role("heading", name="Approvals", exact=True)).to_be_visible()
    queue = page.get_by_role("list", name="Approvals")
    rows = queue.get_by_role("listitem").filter(has=page.get_by_role("button", name="Approve", exact=True))
    expect(rows).to_have_count(2)
    page.screenshot(path=str(SCREENSHOTS / "agents-approvals-queue.png"), full_page=True)

    send = rows.filter(has_text="Lead qualifier")
    destructive = rows.filter(has_text="Stale deal cleaner")
    send_id = send.get_attribute("id")
    destructive_id = destructive.get_attribute("id")
    expect(send.get_by_text("Exactly what will run")).to_be_visible()

    send.get_by_role("button", name="Approve", exact=True).click()
    approved = page.locator(f"#{send_id}")
    expect(approved.get_by_text("Approved", exact=True)).to_be_visible()
    expect(approved.get_by_text("The run is now")).to_be_visible()
    expect(approved.get_by_role("button", name="Approve", exact=True)).to_have_count(0)

    destructive.get_by_role("button", name="Reject").click()
    rejected = page.locator(f"#{destructive_id}")
    expect(rejected.get_by_text("Rejected", exact=True)).to_be_visible()
    expect(rejected.get_by_text("Cancelled", exact=True)).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "agents-approvals-decided.png"), full_page=True)

    # Both have left the pending list, and the "All" tab shows how they were decided.
    page.get_by_role("link", name="All", exact=True).click()
    expect(page.get_by_role("link", name="All", exact=True)).to_have_attribute("aria-current", "page")
    expect(page.locator(f"#{send_id}")).to_have_attribute("data-status", "approved")
    expect(page.locator(f"#{destructive_id}")).to_have_attribute("data-status", "rejected")
    page.get_by_role("link", name="Pending", exact=True).click()
    expect(page.get_by_role("link", name="Pending", exact=True)).to_have_attribute("aria-current", "page")
    expect(page.get_by_text("Nothing is waiting for a decision.")).to_be_visible()
    expect(page.locator(f"#{send_id}")).to_have_count(0)
    expect(page.locator(f"#{destructive_id}")).to_have_count(0)
    page.reload()
    expect(page.get_by_text("Nothing is waiting for a decision.")).to_be_visible()


def test_the_agent_page_of_a_scheduled_agent(console, page: Page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    log_in(page, console.url + "/agents/")
    expect(page.get_by_role("heading", name="Agents", exact=True)).to_be_visible()
    page.get_by_role("link", name="Weekly pipeline report").click()
    expect(page.get_by_role("heading", name="Weekly pipeline report")).to_be_visible()
    expect(page.get_by_text("webhook configured (its address is private)")).to_be_visible()
    expect(page.get_by_role("heading", name="Runs")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "agents-agent-page.png"), full_page=True)
