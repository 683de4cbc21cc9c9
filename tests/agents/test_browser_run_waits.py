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
