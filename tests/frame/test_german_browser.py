"""The console in German, in Chromium at 375 px (issue #37, item 6): the
account page switches the language to Deutsch, the main pages then speak
German (their words, the date, a script's words from the JavaScript catalog),
nothing is wider than the phone, and axe finds nothing serious (every load,
tests/axe.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import PASSWORD, SCREENSHOTS, csp_violations, fill_login_form

MAIN_PAGES = {
    "/": "Fügen Sie einen API-Schlüssel hinzu, um zu beginnen",
    "/people/": "Personen",
    "/settings/keys/": "Noch kein API-Schlüssel",
    "/notifications/": "Benachrichtigungen",
    "/account/tokens/": "Zugriffstokens",
    "/accounts/two-factor/": "Zwei-Faktor-Anmeldung",
}


@pytest.mark.browser
def test_the_account_page_switches_the_console_to_german(live_server, transactional_db, django_user_model, page: Page):
    django_user_model.objects.create_superuser(username="jonas", password=PASSWORD, email="jonas@example.com")
    violations = csp_violations(page)
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/you/")
    fill_login_form(page, "jonas")
    expect(page.get_by_role("heading", name="Your name, password and sessions")).to_be_visible()

    page.get_by_role("combobox", name="Language").select_option("de")
    page.get_by_role("button", name="Save the language").click()

    expect(page.get_by_role("status")).to_contain_text("Die Konsole spricht jetzt Ihre Sprache.")
    expect(page.get_by_role("heading", name="Ihr Name, Passwort und Ihre Sitzungen")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "de")
    # Dates in German: this month's short name in the sessions table.
    expect(page.get_by_role("table", name="Ihre Sitzungen")).to_contain_text("Dez")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(SCREENSHOTS / "german-account-375.png"), full_page=True)

    # The theme menu's choices in German (the server's words; htmx applies the choice in place).
    page.get_by_role("button", name="Menü").click()
    page.locator(".theme-menu summary").click()
    page.get_by_role("button", name="Dunkel").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")

    for address, words in MAIN_PAGES.items():
        page.goto(live_server.url + address)
        expect(page.locator("main")).to_contain_text(words)
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, address
    page.screenshot(path=str(SCREENSHOTS / "german-home-375.png"), full_page=True)
    assert not violations
