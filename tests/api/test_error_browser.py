"""Remote errors in Chromium with the real htmx and CSP: the message box lands
in #messages, the row and the typed text stay where they were."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import PASSWORD, fill_login_form

pytestmark = [pytest.mark.urls("tests.api.urls")]


@pytest.fixture
def signed_in_page(live_server, transactional_db, django_user_model, page: Page):
    django_user_model.objects.create_user(username="erin", password=PASSWORD)
    page.goto(live_server.url + "/accounts/login/")
    fill_login_form(page, "erin")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return live_server, page


@pytest.mark.browser
def test_htmx_errors_show_in_messages_and_nothing_is_lost(signed_in_page):
    server, page = signed_in_page
    csp_violations: list[str] = []
    page.on(
        "console",
        lambda message: csp_violations.append(message.text) if "Content Security Policy" in message.text else None,
    )
    page.goto(server.url + "/test-row-page/")

    page.get_by_role("button", name="Delete").click()

    messages = page.locator("#messages")
    expect(messages.get_by_role("alert")).to_contain_text("The service had a problem")
    expect(messages).to_contain_text("req_500")
    expect(page.get_by_role("row", name="Ada Lovelace")).to_be_visible()  # the row was not replaced

    page.get_by_label("Note").fill("call back on Monday")
    page.get_by_role("button", name="Save note").click()

    expect(messages.get_by_role("alert")).to_contain_text("Your workspace has run out of credits")
    expect(messages).to_contain_text("req_402")
    expect(messages.get_by_role("alert")).to_have_count(1)  # replaced, not stacked
    expect(page.get_by_label("Note")).to_have_value("call back on Monday")
    assert csp_violations == []


@pytest.mark.browser
def test_without_javascript_the_form_posts_to_a_full_error_page(signed_in_page):
    server, page = signed_in_page
    page.goto(server.url + "/test-row-page/")
    page.evaluate("() => document.getElementById('note-form').submit()")  # a plain post, no htmx

    expect(page.get_by_role("alert")).to_contain_text("Your workspace has run out of credits")
    expect(page.get_by_role("alert")).to_contain_text("req_402")
    expect(page).to_have_title("Your workspace has run out of credits · Workspace Console")


@pytest.mark.browser
def test_a_429_keeps_the_region_counts_down_and_retries_once_by_itself(signed_in_page):
    server, page = signed_in_page
    page.goto(server.url + "/test-region-page/")

    page.get_by_role("button", name="Refresh").click()

    box = page.locator("#messages [data-remote-error]")
    expect(box).to_contain_text("rate-limiting")
    expect(box.locator("[data-retry-after]")).to_be_visible()  # the countdown
    expect(page.locator("#leads-region")).to_contain_text("Ada Lovelace (last loaded)")  # not swapped away
    # Retry-After was 1 s: the box retries the same request once, by itself.
    expect(page.locator("#leads-region")).to_contain_text("Grace Hopper (fresh)")
    expect(box).to_have_count(0)
