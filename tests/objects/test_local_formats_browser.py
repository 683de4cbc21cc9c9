"""The records grid and a record page in German at 375 px, in Chromium (issue
#37 item 6): values written as German writes them ("1.234,50", "01.12.2026",
"Dezember 2026") are longer than the English ones and never push the page
sideways; an amount never breaks across lines; axe checks every load
(tests/conftest.py page)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import SCREENSHOTS, csp_violations
from tests.objects.support import no_sideways_scroll


@pytest.mark.browser
def test_a_german_grid_and_record_page_fit_a_phone(grid, page: Page):
    violations = csp_violations(page)
    page.set_extra_http_headers({"Accept-Language": "de"})
    page.set_viewport_size({"width": 375, "height": 800})
    records = f"{grid['server'].url}/objects/{grid['key']}/records/"

    # Deal 029: 87 seats, 2,936.25 (29 x 101.25), closing on 2 Dec 2026, meeting on 2 Nov (sample_values).
    page.goto(records + "?sort=-seats")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    first = page.locator("table.records tbody:not(.records-more) tr").first
    expect(first.locator("th.record-title")).to_have_text("Deal 029")
    amount = first.locator("td.num").nth(1)
    expect(amount).to_have_text("2.936,25")
    expect(first.locator("td.num").first).to_have_text("87")
    expect(first).to_contain_text("02.12.2026")
    no_sideways_scroll(page)
    page.screenshot(path=str(SCREENSHOTS / "objects-grid-german-375.png"), full_page=True)

    # Grouped by the close date's month, the group named in German, the footers' sums in German.
    page.goto(records + "?limit=100&group=close_date&agg.amount=sum")
    expect(page.locator("button[data-group-toggle]").first).to_have_text("Dezember 2026")
    expect(page.locator("#records-footers")).to_contain_text("44.043,75")  # 101.25 x (0 + 1 + ... + 29)
    no_sideways_scroll(page)

    # The record page: its values and its times in German.
    page.goto(records + "?sort=-seats")
    page.locator("table.records tbody th a").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Deal 029")
    values = page.locator("section.record-values dl.facts")
    expect(values).to_contain_text("2.936,25")
    expect(values).to_contain_text("02.12.2026")
    expect(values).to_contain_text("02.11.2026 10:30 CET")  # 09:30 UTC in the workspace's zone
    no_sideways_scroll(page)
    page.screenshot(path=str(SCREENSHOTS / "objects-record-german-375.png"), full_page=True)
    assert violations == []
