"""The layout in Chromium at phone width: nothing spills sideways, the
switcher opens and closes from the keyboard."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet
from playwright.sync_api import Page, expect

from dashboard.keys.testing import stored_api_key
from tests.helpers import PASSWORD, SCREENSHOTS, fill_login_form


@pytest.fixture
def signed_in_page(live_server, settings, transactional_db, django_user_model, page: Page):
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    user = django_user_model.objects.create_user(username="dana", password=PASSWORD)
    for index, (name, role) in enumerate([("Acme Marketing", "admin"), ("Globex Research with a long name", "member")]):
        stored_api_key(
            user=user,
            secret=f"svc_sk_phone{index}000000000000000wxyz",
            label=f"{name.split()[0]} key",
            workspace_id=f"ws-{index}",
            workspace_name=name,
            member_role=role,
            is_active=index == 0,
        )
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/login/")
    fill_login_form(page, "dana")
    expect(page.get_by_role("heading", name="Acme Marketing")).to_be_visible()
    return live_server, page


def page_overflows_sideways(page: Page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth > document.documentElement.clientWidth")


@pytest.mark.browser
def test_phone_width_home_and_keys_fit_and_switcher_works_by_keyboard(signed_in_page):
    server, page = signed_in_page
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    assert not page_overflows_sideways(page)
    page.screenshot(path=str(SCREENSHOTS / "home-375.png"), full_page=True)

    # Keyboard: the skip link is the first stop and lands on <main>.
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to main content")).to_be_focused()

    # On a phone the header is one bar: Menu opens the rest, the switcher among it.
    page.get_by_role("banner").get_by_role("button", name="Menu", exact=True).click()
    summary = page.get_by_role("banner").locator(".switcher > summary")  # the theme menu has one too
    summary.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Globex Research with a long name")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("button", name="Globex Research with a long name")).to_be_hidden()
    expect(summary).to_be_focused()

    page.goto(server.url + "/settings/keys/")
    page.screenshot(path=str(SCREENSHOTS / "keys-375.png"), full_page=True)
    assert not page_overflows_sideways(page)
