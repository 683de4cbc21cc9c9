"""The runs search and two runs compared in Chromium against a real sandbox:
a search typed in the box swaps its results in place (and its address works
alone), two runs ticked and compared by keyboard only, every page on a
phone's 375 px without sideways scroll; axe checks every document and swap
(the `page` fixture)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from agents import services
from tests.agents.support import log_in
from tests.helpers import SCREENSHOTS

pytestmark = pytest.mark.browser


def _sideways(page: Page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def _two_runs(handle) -> None:
    with httpx.Client(base_url=handle.base_url, headers={"Authorization": f"Bearer {handle.mint_key('demo')}"}) as http:
        agent = next(item for item in http.get("/v1/agents").json()["data"] if item["name"] == "Weekly pipeline report")
        for message in ("Report the pipeline for EMEA", "Report the pipeline for the Zanzibar office"):
            assert http.post(f"/v1/agents/{agent['id']}/runs", json={"message": message}).status_code == 200
    handle.advance(service_seconds=60)


def test_search_then_compare_two_runs_by_keyboard_on_a_phone(console, seeded_sandbox, page: Page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    _two_runs(seeded_sandbox)
    services.insights_refresh(workspace_id="ws-test")  # the worker's read (store_demo_key's workspace)
    page.set_viewport_size({"width": 375, "height": 800})
    log_in(page, console.url + "/runs/")
    expect(page.get_by_role("heading", name="Runs", exact=True)).to_be_visible()
    assert _sideways(page) <= 1

    box = page.get_by_role("searchbox", name="Search runs by what they said")
    box.focus()
    page.keyboard.type("zanzibar")
    page.keyboard.press("Enter")
    results = page.get_by_role("list", name="Runs with “zanzibar”, newest first")
    expect(results.get_by_role("listitem")).to_have_count(1)
    expect(results.get_by_text("Zanzibar office", exact=False)).to_be_visible()
    expect(page.locator("#run-search-range")).to_contain_text("runs the console has read since")
    expect(page).to_have_url(console.url + "/runs/?q=zanzibar")
    assert _sideways(page) <= 1
    page.screenshot(path=str(SCREENSHOTS / "agents-runs-search-phone.png"), full_page=True)

    page.get_by_role("link", name="Back to every run").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Every agent's runs")).to_be_visible()
    ticks = page.get_by_role("checkbox", name="Compare the run of Weekly pipeline report", exact=False)
    for index in (0, 1):
        ticks.nth(index).focus()
        page.keyboard.press("Space")
    expect(ticks.nth(0)).to_be_checked()
    expect(ticks.nth(1)).to_be_checked()
    page.get_by_role("button", name="Compare the two ticked runs").focus()
    page.keyboard.press("Enter")

    expect(page.get_by_role("heading", name="Two runs compared")).to_be_visible()
    woke = page.get_by_role("region", name="What woke them")
    expect(woke.get_by_text("Report the pipeline for EMEA", exact=False)).to_be_visible()
    expect(page.get_by_role("heading", name="Steps, aligned by name and order")).to_be_visible()
    assert _sideways(page) <= 1
    page.screenshot(path=str(SCREENSHOTS / "agents-runs-compare-phone.png"), full_page=True)

    # From the newer run's own page: compare with the previous run of this agent.
    page.get_by_role("table", name="The two runs side by side").get_by_role("link").nth(1).click()
    expect(page.get_by_role("heading", name="Agent run")).to_be_visible()
    page.get_by_role("link", name="Compare with the previous run of this agent").click()
    expect(page.get_by_role("heading", name="Two runs compared")).to_be_visible()
    assert _sideways(page) <= 1
