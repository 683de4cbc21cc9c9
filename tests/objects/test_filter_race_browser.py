"""Overlapping filter requests in Chromium against the real sandbox: the
records form syncs its requests (`hx-sync`, one answer at a time), so an
older filter's answer that arrives last never lands over the newer one and
the "N active" badge stays in step with the rows."""

from __future__ import annotations

import contextlib
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, Route, expect

ROWS = "table.records tbody:not(.records-more) tr"


@pytest.mark.browser
def test_an_older_filter_answer_arriving_last_never_lands(grid, page: Page):
    records_url = f"{grid['server'].url}/objects/{grid['key']}/records/"
    page.goto(records_url)
    expect(page.locator(ROWS)).to_have_count(25)
    held: list[Route] = []

    def hold_the_first(route: Route) -> None:
        if not held and parse_qs(urlsplit(route.request.url).query).get("f.name") == ["deal 02"]:
            held.append(route)  # answered only after the newer request's answer has landed
            return
        route.continue_()

    page.route(re.compile(r".*/records/\?.*"), hold_the_first)
    page.evaluate("window.swaps = 0; document.body.addEventListener('htmx:afterSwap', () => window.swaps++)")
    page.get_by_text("Filters", exact=True).click()
    name = page.get_by_label("Filter Name")
    name.fill("deal 02")
    name.press("Enter")
    # Until the older request is held (whichever element of the form sent it: the box or the form).
    for _ in range(300):
        if held:
            break
        page.wait_for_timeout(100)
    assert len(held) == 1
    # The person narrows again before the first answer came: Deal 01x and 1 active.
    name.fill("deal 01")
    name.press("Enter")
    expect(page.locator(f"{ROWS} th[scope=row]")).to_have_text([f"Deal 01{i}" for i in reversed(range(10))])
    expect(page.locator("#records-filter-badge")).to_have_text("1 active")
    swaps = page.evaluate("window.swaps")
    # The older answer now arrives (htmx dropped its request: the service's answer goes nowhere).
    with contextlib.suppress(Exception):  # the browser cancelled that request already
        held[0].continue_()
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.swaps") == swaps
    expect(page.locator(f"{ROWS} th[scope=row]")).to_have_text([f"Deal 01{i}" for i in reversed(range(10))])
    expect(page.get_by_label("Filter Name")).to_have_value("deal 01")
    assert parse_qs(urlsplit(page.url).query).get("f.name") == ["deal 01"]
