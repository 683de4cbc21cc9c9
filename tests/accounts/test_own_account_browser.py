"""Your name, password and sessions in Chromium at 375 px: the name saved, the
password changed (the page stays signed in), the sessions readable on a phone
with nothing wider than the screen. axe checks every load (tests/axe.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import PASSWORD, SCREENSHOTS, csp_violations, fill_login_form

NEW_PASSWORD = "a brand new passphrase, 2026"


@pytest.mark.browser
def test_name_password_and_sessions_at_375_px(live_server, transactional_db, django_user_model, page: Page):
    django_user_model.objects.create_user(username="ines", password=PASSWORD)
    violations = csp_violations(page)
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/you/")
    fill_login_form(page, "ines")
    expect(page.get_by_role("heading", name="Your name, password and sessions")).to_be_visible()
    sessions = page.get_by_role("table", name="Your sessions")
    expect(sessions).to_contain_text("Chrome on Linux")
    expect(sessions).to_contain_text("this session")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375

    page.locator("#id_name").fill("Inès Duarte")
    page.get_by_role("button", name="Save the name").click()
    expect(page.get_by_role("status")).to_contain_text("Your display name is changed.")
    expect(page.locator("#id_name")).to_have_value("Inès Duarte")

    page.get_by_label("Current password").fill(PASSWORD)
    page.locator("#id_new_password1").fill(NEW_PASSWORD)
    page.get_by_label("New password again").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Change the password").click()
    expect(page.get_by_role("status")).to_contain_text("Your password is changed.")
    expect(sessions).to_contain_text("this session")  # still signed in, under the session's new key
    page.screenshot(path=str(SCREENSHOTS / "own-account-375.png"), full_page=True)

    page.get_by_role("button", name="Sign out other sessions").click()
    expect(page.get_by_role("status")).to_contain_text("nothing to sign out")
    assert not violations
