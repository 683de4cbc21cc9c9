"""Browser journey of the agents list on a phone (Chromium at 375 px, real
sandbox over HTTP, axe on every page and swap): the total, a search by
name typed and a sort picked by keyboard, swapped in place and kept in the
address, the Back button; then a builder question answered by one click."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.agents.support import log_in
from tests.helpers import SCREENSHOTS

pytestmark = pytest.mark.browser


def test_the_agents_list_on_a_phone_searches_and_sorts_in_place(console, page: Page):
    page.set_viewport_size({"width": 375, "height": 800})
    log_in(page, console.url + "/agents/")
    count = page.locator("[data-agent-count]")
    expect(count).to_have_text(re.compile(r"^\d+ agents · showing 1–\d+\.$"))
    total = int(count.inner_text().split()[0])
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1  # the table scrolls in its own box, the page does not
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "agents-list-phone.png"), full_page=True)

    search = page.get_by_role("searchbox", name="Find an agent")
    search.focus()
    page.keyboard.type("lead")
    expect(count).to_have_text(re.compile(rf"^1 of {total} agents named like “lead”"))
    expect(page.locator(".agent-table tbody a")).to_have_text(["Lead qualifier"])
    assert parse_qs(urlsplit(page.url).query)["q"] == ["lead"]
    expect(search).to_be_focused()  # the swap keeps the focus where the typing is

    page.keyboard.press("Control+a")
    page.keyboard.press("Backspace")
    expect(count).to_have_text(re.compile(rf"^{total} agents"))
    sort = page.get_by_role("combobox", name="Sort")
    sort.focus()
    sort.select_option("name")
    expect(page).to_have_url(re.compile(r"sort=name"))
    names = page.locator(".agent-table tbody td:first-child a").all_inner_texts()
    assert names == sorted(names, key=str.casefold)

    page.go_back()
    expect(page).not_to_have_url(re.compile(r"sort=name"))


def test_a_builder_question_is_answered_by_one_click(console, page: Page):
    page.set_viewport_size({"width": 375, "height": 800})
    log_in(page, console.url + "/agents/")
    page.get_by_role("textbox", name="Name", exact=True).fill("Helper for sales")
    page.get_by_role("textbox", name=re.compile("^What should")).fill("Help sales")
    page.get_by_role("button", name="Create the agent").click()
    options = page.locator("[data-builder-options]")
    expect(options).to_be_visible(timeout=20_000)
    first = options.locator("button").first
    first.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="The builder says")).to_be_visible(timeout=20_000)
    expect(page.locator("[data-builder-options]")).to_have_count(0)
