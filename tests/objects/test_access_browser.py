"""The access policy page in Chromium (axe on every page and swap): an
Administrator writes a rule of two conditions by their labels, saves it and
finds both conditions again; the page fits a 375 px phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from dashboard.people.backends import person_role_set
from objects.models import ObjectAccessPolicy
from tests.helpers import SCREENSHOTS, csp_violations


@pytest.mark.browser
def test_a_rule_of_two_conditions_is_written_saved_and_shown_again(grid, page: Page):
    violations = csp_violations(page)
    person_role_set(user=grid["user"], role="administrator")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{grid['server'].url}/objects/{grid['key']}/settings/access/")
    expect(page.get_by_role("columnheader", name="Conditions (all must hold)")).to_be_visible()

    page.get_by_label("Rule 1: for").select_option(label="Viewer")
    page.get_by_label("Rule 1: field").select_option(value="seats")
    page.get_by_label("Rule 1: condition").select_option(value="is_not")
    page.get_by_label("Rule 1: value", exact=True).fill("3")
    page.get_by_label("Rule 1, and condition 2: field").select_option(value="name")
    page.get_by_label("Rule 1, and condition 2: how").select_option(value="contains")
    page.get_by_label("Rule 1, and condition 2: value", exact=True).fill("Deal")
    page.get_by_role("button", name="Save the policy").click()
    expect(page.locator("#messages")).to_contain_text("The access policy was saved")

    (stored,) = ObjectAccessPolicy.objects.get(object_key=grid["key"]).policy["records"]
    assert stored["who"] == "role:viewer"
    assert sorted(stored["where"].split("&")) == ["f.name=Deal", "f.seats=3", "op.name=contains", "op.seats=is_not"]
    expect(page.get_by_label("Rule 1, and condition 2: field")).to_have_value("name")
    expect(page.get_by_label("Rule 1, and condition 2: value", exact=True)).to_have_value("Deal")
    expect(page.get_by_label("Rule 1: value", exact=True)).to_have_value("3")
    expect(page.get_by_label("Rule 1, and condition 3: field")).to_have_value("")
    page.screenshot(path=str(SCREENSHOTS / "access-two-conditions-1280.png"), full_page=True)

    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(SCREENSHOTS / "access-two-conditions-375.png"), full_page=True)
    assert violations == []
