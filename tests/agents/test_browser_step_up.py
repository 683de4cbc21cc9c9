"""Approval rules and the step-up as an Administrator works them, in
Chromium against a real sandbox of this module's own: the Approval rules
page sets "2 approvals" for send actions; the queue's card then counts a
vote ("1 of 2 approved: …"); a destructive approve asks for the
authenticator code in the card (the typed note kept) and goes once it is
right. axe runs on every page and swap (tests/axe.py)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from dashboard.audit.testing import make_administrator
from tests.agents.decide_support import app_for, code_for, status_at_service
from tests.agents.support import log_in

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def step_up_on(settings):
    settings.STEP_UP_RISKS = ["destructive", "spend"]


def test_rules_then_a_counted_vote_then_a_destructive_approve_with_its_code(console, seeded_sandbox, page: Page):
    mona = make_administrator(get_user_model().objects.get(username="mona"))
    log_in(page, console.url + "/agents/rules/")
    page.get_by_label("Risk").select_option("send")
    page.get_by_label("Approvals needed").fill("2")
    page.get_by_role("button", name="Save the rule").click()
    expect(page.get_by_text("The rule is saved.")).to_be_visible()
    expect(page.get_by_role("region", name="Rules")).to_contain_text(
        "2 approvals; not by who started the run; escalated at the deadline"
    )

    page.goto(console.url + "/approvals/")
    rows = page.get_by_role("list", name="Approvals").get_by_role("listitem")
    send = rows.filter(has_text='Send the email "When a new lead is added"').first
    send_id = send.get_attribute("data-approval-id")
    send.get_by_role("link").first.click()
    card = page.locator(f"#approval-{send_id}")
    expect(card).to_be_visible()
    expect(page.locator("#approval-detail")).not_to_have_attribute("aria-busy", "true")
    card.get_by_role("button", name="Approve", exact=True).click()
    expect(card.locator(".approval__tally")).to_have_text("1 of 2 approved: mona; waiting for one more")
    expect(card).to_have_attribute("data-status", "pending")
    assert status_at_service(seeded_sandbox, send_id) == "pending"

    device = app_for(mona)
    destructive = rows.filter(has_text="Delete records in deals.")
    destructive_id = destructive.get_attribute("data-approval-id")
    destructive.get_by_role("link").first.click()
    card = page.locator(f"#approval-{destructive_id}")
    expect(card).to_be_visible()
    expect(page.locator("#approval-detail")).not_to_have_attribute("aria-busy", "true")
    card.get_by_label("Note (optional, kept in the console's audit trail)").fill("Checked: all lost in 2025")
    card.get_by_text("Approve…").click()
    card.get_by_role("button", name="Yes, approve exactly this").click()
    code = card.get_by_role("textbox", name="Code from your authenticator app")
    expect(code).to_be_focused()
    expect(card.get_by_label("Note (optional, kept in the console's audit trail)")).to_have_value(
        "Checked: all lost in 2025"
    )
    assert status_at_service(seeded_sandbox, destructive_id) == "pending"
    code.fill(code_for(device, steps_ahead=1))
    card.get_by_role("button", name="Approve with this code").click()
    expect(card).to_have_attribute("data-status", "approved")
    assert status_at_service(seeded_sandbox, destructive_id) == "approved"
