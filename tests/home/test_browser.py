"""The home page in Chromium at phone width against a real sandbox (axe
checks every page and swap): nothing spills sideways, the "New record"
picker opens by keyboard and loads its choices, and "Running now" follows
the person's work live until nothing runs."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from dashboard.live.models import TrackedOperation
from tests.helpers import PASSWORD, fill_login_form
from tests.home.support import TURN_TITLE

pytestmark = pytest.mark.browser

SCREENSHOT = "/tmp/home-375.png"


def test_the_overview_at_phone_width_by_keyboard_and_live(live_server, transactional_db, person, page: Page):
    user, _ = person("dana", "member", "demo")
    user.set_password(PASSWORD)
    user.save()
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/login/")
    fill_login_form(page, "dana")

    expect(page.get_by_role("heading", name="What needs you")).to_be_visible()
    running = page.get_by_role("region", name="Running now")
    expect(running.get_by_role("link", name=TURN_TITLE)).to_be_visible()
    # The person's news (their failed run, a finished message) comes as toasts: closed, as a person would.
    toasts = page.locator("#toasts").get_by_role("button", name="Dismiss")
    while toasts.count():
        toasts.first.click()
    assert not page.evaluate("() => document.documentElement.scrollWidth > document.documentElement.clientWidth")
    page.screenshot(path=SCREENSHOT, full_page=True)

    # A picker is a menu: Escape closes it and gives the focus back.
    chat = page.locator("summary", has_text="Chat with an agent")
    chat.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("link", name="Weekly pipeline report")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("link", name="Weekly pipeline report")).to_be_hidden()
    expect(chat).to_be_focused()

    # The "New record" picker by keyboard: its choices are read when it opens, then a link is one Tab away.
    picker = page.locator("summary", has_text="New record")
    picker.focus()
    page.keyboard.press("Enter")
    deal = page.get_by_role("list", name="New record").get_by_role("link", name="Deal")
    expect(deal).to_be_visible()
    page.keyboard.press("Tab")
    expect(page.get_by_role("list", name="New record").get_by_role("link").first).to_be_focused()
    page.screenshot(path="/tmp/home-375-picker.png", full_page=True)
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/objects/companies/records/new/$"))

    # Back home, the turn ends: the region says so by itself and stops asking.
    page.goto(live_server.url + "/")
    TrackedOperation.objects.filter(started_by=user, kind="studio.turn").update(status="completed", is_final=True)
    expect(running.get_by_text("Nothing of yours is running.")).to_be_visible(timeout=15_000)
