"""A page whose status region polls, in Chromium, while the console stops
answering: it says the connection is lost (not "Updating live"), and says
nothing once the console answers again."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import SCREENSHOTS, fill_login_form

LOST = "Connection to the console lost, retrying…"


@pytest.mark.browser
def test_a_polling_page_says_the_console_is_unreachable_and_recovers(
    live_server, transactional_db, make_turn, user, page: Page
):
    op = make_turn(due=False)
    page.goto(live_server.url + "/accounts/login/")
    fill_login_form(page, user.username)
    page.goto(f"{live_server.url}/live/{op.pk}/")
    live_label = page.locator(".live-updating")
    expect(live_label).to_contain_text("Updating live")
    notice = page.get_by_role("alert").filter(has_text=LOST)
    expect(notice).to_have_count(0)

    # The console stops answering: every request to it fails at the network level.
    page.route(f"{live_server.url}/**", lambda route: route.abort("connectionrefused"))

    expect(notice).to_be_visible(timeout=10_000)
    expect(live_label).to_contain_text("Connection lost, retrying")
    expect(live_label).not_to_contain_text("Updating live")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "connection-lost.png"))

    # It answers again: the next poll (or the /healthz retry) clears the notice.
    page.unroute(f"{live_server.url}/**")

    expect(notice).to_have_count(0, timeout=10_000)
    expect(page.locator("#connection-status")).to_be_hidden()
    expect(live_label).to_contain_text("Updating live")
