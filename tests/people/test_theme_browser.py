"""The theme menu in Chromium (issue #22), by keyboard alone at phone width:
the page follows the device until the person chooses, then keeps their
choice whatever the device says; the choice applies in place (no page load)
and the next page is rendered with it. axe checks each page (tests/axe.py), in
both themes while the page follows the device."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet
from playwright.sync_api import Page, expect

from dashboard.keys.testing import stored_api_key
from dashboard.people.models import Person, Theme
from tests.helpers import PASSWORD, SCREENSHOTS, fill_login_form

BODY_BACKGROUND = "() => getComputedStyle(document.body).backgroundColor"
LIGHT_BG = "rgb(246, 247, 249)"  # --color-bg, light
DARK_BG = "rgb(15, 18, 24)"  # --color-bg, dark


@pytest.mark.browser
def test_a_person_chooses_dark_by_keyboard_and_it_holds_against_a_light_device(
    live_server, settings, transactional_db, django_user_model, page: Page
):
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    user = django_user_model.objects.create_user(username="noor", password=PASSWORD)
    stored_api_key(user=user, secret="svc_sk_theme0000000000000000000wxyz", workspace_name="Acme")
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/login/")
    fill_login_form(page, "noor")
    page.goto(live_server.url + "/settings/keys/")

    # System: the device decides.
    assert page.evaluate(BODY_BACKGROUND) == LIGHT_BG
    page.emulate_media(color_scheme="dark")
    assert page.evaluate(BODY_BACKGROUND) == DARK_BG
    page.emulate_media(color_scheme="light")

    # By keyboard: open the menu (on a phone the header's Menu first), hear which theme is on, choose Dark.
    header_menu = page.get_by_role("banner").get_by_role("button", name="Menu", exact=True)
    header_menu.focus()
    page.keyboard.press("Enter")
    menu = page.get_by_role("banner").locator(".theme-menu > summary")
    expect(menu).to_have_attribute("aria-label", "Theme: System. Change theme")
    menu.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="System")).to_have_attribute("aria-pressed", "true")
    page.evaluate("() => { window.sameDocument = true; }")
    page.get_by_role("button", name="Dark").focus()
    page.keyboard.press("Enter")

    # Applied in place (static/js/console.js): no page load, the menu closed and says so.
    expect(page.get_by_role("status")).to_contain_text("Theme: Dark.")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(menu).to_have_attribute("aria-label", "Theme: Dark. Change theme")
    expect(menu).to_be_focused()
    assert page.evaluate("() => window.sameDocument") is True
    assert page.evaluate(BODY_BACKGROUND) == DARK_BG  # on a light device: the person's choice holds
    assert Person.objects.get(user=user).theme == Theme.DARK

    # Kept: the next page is rendered dark by the server, from its first byte.
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert page.evaluate(BODY_BACKGROUND) == DARK_BG
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "keys-dark-375.png"), full_page=True)

    header_menu.click()
    page.get_by_role("banner").locator(".theme-menu > summary").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Dark")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Escape")
    expect(page.get_by_role("button", name="Dark")).to_be_hidden()
