"""Agent insights in Chromium against a real sandbox: the charts and their
tables, the window switched in place, on a phone's width too; axe checks
every document and swap (the `page` fixture)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from agents import services
from tests.agents.support import log_in
from tests.helpers import SCREENSHOTS

pytestmark = pytest.mark.browser


def test_insights_show_charts_with_their_numbers_and_switch_to_thirty_days(console, page: Page):
    services.insights_refresh(workspace_id="ws-test")  # the worker's read (store_demo_key's workspace)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    log_in(page, console.url + "/agents/insights/")

    expect(page.get_by_role("heading", name="Agent insights")).to_be_visible()
    expect(page.get_by_role("img", name="Bar chart of runs per day by outcome", exact=False)).to_be_visible()
    runs_table = page.get_by_role("table", name="Runs per day by outcome")
    expect(runs_table.locator("tbody tr")).to_have_count(7)
    expect(page.get_by_role("table", name="Each agent, last 7 days")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "agents-insights-7-days.png"), full_page=True)

    page.get_by_role("navigation", name="Insights period").get_by_role("link", name="Last 30 days").click()
    expect(page.get_by_role("heading", name="Every agent, last 30 days")).to_be_visible()
    expect(page.get_by_role("table", name="Runs per day by outcome").locator("tbody tr")).to_have_count(30)
    expect(page).to_have_url(console.url + "/agents/insights/?days=30")

    page.set_viewport_size({"width": 375, "height": 800})
    chart = page.get_by_role("img", name="Line chart of run duration per day", exact=False)
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    assert box is not None and box["width"] <= 375  # the chart fits a phone's width
    page.screenshot(path=str(SCREENSHOTS / "agents-insights-phone.png"), full_page=True)
