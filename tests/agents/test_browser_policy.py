"""The policy center and notification preferences in Chromium, against a
real sandbox (this module's own): a manager finds an agent's grant, is told
what taking it back costs, confirms, and sees it gone, verified at the
service; then chooses what reaches them outside the tab, at phone width,
without sideways scroll; adds a signed webhook (its secret shown once) and
resumes it once paused. axe checks every page (tests/axe.py)."""

from __future__ import annotations

import httpx
import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from dashboard.reach.models import ChatWebhook, NotificationPreference
from tests.agents.support import log_in

NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


def service(handle, method: str, path: str, **kwargs) -> dict:
    answer = httpx.request(
        method, f"{handle.base_url}{path}", headers={"Authorization": f"Bearer {handle.demo_key}"}, **kwargs
    )
    answer.raise_for_status()
    return answer.json()


@pytest.mark.browser
def test_a_manager_takes_a_grant_back_and_chooses_their_notifications(console, seeded_sandbox, page: Page):
    approvals = service(seeded_sandbox, "GET", "/v1/approvals", params={"limit": 100})["data"]
    send = next(item for item in approvals if item["risk"] == "send")
    service(seeded_sandbox, "POST", f"/v1/approvals/{send['id']}", json={"decision": "approve", "always": True})
    agent_id = send["agent_id"]

    log_in(page, console.url + "/approvals/")
    page.get_by_role("link", name="Policy center").click()
    card = page.locator(f"#agent-{agent_id}")
    expect(card.get_by_role("heading", name="Lead qualifier")).to_be_visible()
    expect(card.locator(".policy-grant")).to_contain_text("send actions without asking.")

    card.get_by_text("Stop allowing…").click()
    expect(card.get_by_text("it uses credits and changes the draft")).to_be_visible()
    card.get_by_role("checkbox").check()
    card.get_by_role("button", name="Stop allowing send actions").click()

    expect(page.get_by_text("Lead qualifier no longer lists send actions as always allowed")).to_be_visible()
    expect(page.locator(f"#agent-{agent_id} .policy-grant")).to_have_count(0)
    assert "send" not in service(seeded_sandbox, "GET", f"/v1/agents/{agent_id}")["profile"]["always_allowed"]

    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(console.url + "/notifications/")
    page.get_by_role("checkbox", name="Destructive").check()
    page.get_by_role("radio", name="An hourly digest").check()
    page.get_by_label("Your time zone").fill("Europe/Berlin")
    page.get_by_label("Quiet from").fill("22:00")
    page.get_by_label("Quiet until").fill("07:00")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    page.get_by_role("button", name="Save preferences").click()

    expect(page.get_by_text("Your notification preferences are saved.")).to_be_visible()
    saved = NotificationPreference.objects.get(user__username="mona")
    assert (saved.approval_risks, saved.cadence, saved.time_zone) == (["destructive"], "hourly", "Europe/Berlin")
    page.get_by_role("link", name="Delivery log").click()
    expect(page.get_by_text("Nothing sent yet.")).to_be_visible()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    # A generic JSON webhook: its signing secret shown once, at phone width; paused, then resumed.
    page.goto(console.url + "/notifications/")
    page.get_by_label("Chat app").select_option(label="Generic JSON")
    page.get_by_label("Name").fill("My receiver")
    page.get_by_label("Webhook address").fill("https://hooks.example.com/console/abcd")
    page.get_by_role("button", name="Add as mine").click()
    secret = page.locator("#webhook-secret .reach-secret")
    expect(secret).to_have_text(ChatWebhook.objects.get(label="My receiver").secret)
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    ChatWebhook.objects.filter(label="My receiver").update(
        paused_at=timezone.now(), failing_since=timezone.now(), last_failure="answered 500"
    )
    page.goto(console.url + "/notifications/")
    expect(page.locator("#webhook-secret")).to_have_count(0)
    expect(page.locator(".reach-paused")).to_contain_text("Paused: answered 500 since")
    page.get_by_role("button", name="Resume My receiver").click()
    expect(page.get_by_text("The webhook “My receiver” is resumed")).to_be_visible()
    assert ChatWebhook.objects.get(label="My receiver").paused_at is None
