"""The alert rules page in Chromium at phone width (375 px): an Administrator
adds a rule, is told in words what to fix, fixes it, opens the rule's page
with its history and removes it; no sideways scroll, and axe checks every
page and swap (tests/axe.py: 0 serious or critical)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from agents.models import AlertEvent, AlertRule
from dashboard.audit.testing import make_administrator
from tests.agents.support import log_in

NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


@pytest.mark.browser
def test_an_administrator_sets_an_alert_rule_at_phone_width(console, page: Page):
    make_administrator(get_user_model().objects.get(username="mona"))
    page.set_viewport_size({"width": 375, "height": 740})
    log_in(page, console.url + "/agents/alerts/")
    expect(page.get_by_role("heading", name="Alert rules", level=1)).to_be_visible()

    page.get_by_label("Measure").select_option(label="Failure rate over the window (%)")
    page.get_by_label("Alert when above").fill("150")
    page.get_by_role("button", name="Add the rule").click()
    summary = page.locator("#error-summary")
    expect(summary).to_contain_text("A failure rate is a percentage: give 0 to 100.")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    page.get_by_label("Alert when above").fill("20")
    page.get_by_role("button", name="Add the rule").click()
    expect(page.get_by_text("The alert is saved: Failure rate of the workspace over 24 h above 20%.")).to_be_visible()
    rule = AlertRule.objects.get()
    AlertEvent.objects.create(
        rule=rule, kind="breached", value=40, threshold=20, words="Failure rate above 20%: now 40%", at=rule.created_at
    )
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    page.get_by_role("link", name="Edit and history").click()
    expect(page.locator("ol.alert-history li")).to_contain_text("Failure rate above 20%: now 40%")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    page.get_by_role("button", name="Remove the rule and its history").click()
    expect(page.get_by_text("The alert rule is removed, with its history.")).to_be_visible()
    assert not AlertRule.objects.exists()
