"""Browser journey (Chromium, the real sandbox over HTTP, axe on every page
and swap): a run of the demo seed that waited 2 h for an approval shows the
wait as a bar as long as the wait; its step's own address opens directly with
the panel focused; steps open by keyboard; the run's path is on its plan;
following it is a choice; the page fits a phone."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.agents.support import log_in
from tests.helpers import SCREENSHOTS

pytestmark = pytest.mark.browser


def approved_run(handle) -> str:
    """The seed's run whose approval was decided 2 h after it was asked."""
    answer = httpx.get(
        f"{handle.base_url}/v1/approvals",
        params={"status": "approved", "limit": 100},
        headers={"Authorization": f"Bearer {handle.demo_key}"},
    )
    return next(item["run_id"] for item in answer.json()["data"] if item["decided_at"])


def bar_share(page: Page, selector: str) -> float:
    """A bar's share of the run's axis, as drawn (its SVG rect's width)."""
    rect = page.locator(selector).first
    return float(rect.get_attribute("width")) / float(
        rect.evaluate("node => node.ownerSVGElement.viewBox.baseVal.width")
    )


def test_a_run_that_waited_two_hours_draws_the_wait_and_its_steps_have_addresses(console, seeded_sandbox, page: Page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    run_id = approved_run(seeded_sandbox)
    log_in(page, f"{console.url}/runs/{run_id}/steps/1/")

    # The step's own address: the page with that step's panel open and focused.
    panel = page.locator("#run-step-panel")
    expect(panel.get_by_role("heading", name=re.compile(r"^Step 1"))).to_be_visible()
    expect(panel).to_be_focused()

    steps = page.get_by_role("list", name="Steps of the run")
    wait = steps.locator(".timeline__step--wait")
    expect(wait).to_have_count(1)
    expect(wait).to_contain_text("Waited 2 h for a person to decide")
    expect(steps).not_to_contain_text("at +0 s · 0 s")
    # In time order: the steps before the approval, the wait, then the step it held back.
    kinds = steps.locator("> li").evaluate_all(
        "items => items.map(item => item.classList.contains('timeline__step--wait'))"
    )
    assert kinds[-2:] == [True, False] and not any(kinds[:-2])
    # The wait is nearly the whole run (2 h of it), the steps mere moments.
    assert bar_share(page, ".timeline__step--wait rect.timeline__span--wait") > 0.95
    page.screenshot(path=str(SCREENSHOTS / "agents-run-wait.png"), full_page=True)

    # Keyboard: the next step's link opens its panel in place, at its own address.
    last = steps.locator("a.timeline__name").last
    last.focus()
    page.keyboard.press("Enter")
    expect(panel.get_by_role("heading", name=re.compile(r"^Step [2-9]"))).to_be_visible()
    expect(page).to_have_url(re.compile(r"/steps/\d+/$"))
    expect(panel).to_be_focused()

    # The run's path on its plan: the nodes it passed link to their steps.
    plan = page.locator("#run-plan")
    expect(plan.locator("a.plan-node--passed").first).to_be_visible()
    plan.locator("a.plan-node--passed").first.focus()
    page.keyboard.press("Enter")
    expect(panel.get_by_role("heading", name=re.compile(r"^Step 1"))).to_be_visible()

    # A run that is over has nothing more to tell: no "Follow this run".
    expect(page.get_by_role("button", name="Follow this run")).to_have_count(0)

    page.set_viewport_size({"width": 375, "height": 800})
    page.reload()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1
    page.screenshot(path=str(SCREENSHOTS / "agents-run-wait-phone.png"), full_page=True)


def waiting_run(handle) -> str:
    answer = httpx.get(
        f"{handle.base_url}/v1/approvals",
        params={"status": "pending", "limit": 100},
        headers={"Authorization": f"Bearer {handle.demo_key}"},
    )
    return answer.json()["data"][0]["run_id"]


def test_following_a_waiting_run_is_a_choice_and_its_toast_keeps_off_the_step_panel(
    console, seeded_sandbox, page: Page
):
    run_id = waiting_run(seeded_sandbox)
    log_in(page, f"{console.url}/runs/")
    expect(page.get_by_role("heading", name="Every agent's runs")).to_be_visible()
    page.goto(f"{console.url}/runs/{run_id}/")
    expect(page.get_by_text("Waiting for a person to decide an approval.")).to_be_visible()
    page.reload()  # a list and a run page seen: nobody told anything
    expect(page.locator("#toasts .toast")).to_have_count(0)

    follow = page.get_by_role("button", name="Follow this run")
    follow.focus()
    page.keyboard.press("Enter")
    stop = page.get_by_role("button", name="Stop following")
    expect(stop).to_be_focused()
    page.reload()
    toast = page.locator("#toasts .toast")
    expect(toast).to_have_count(1)
    expect(toast).to_contain_text("Agent run needs you")
    # Bottom left: never over the step panel on the right.
    toast_box, panel_box = toast.bounding_box(), page.locator("#run-step-panel").bounding_box()
    assert toast_box and panel_box and toast_box["x"] + toast_box["width"] <= panel_box["x"]
    page.screenshot(path=str(SCREENSHOTS / "agents-run-followed.png"), full_page=False)
