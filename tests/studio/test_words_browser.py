"""Never lose a word, in Chromium (issue #21, item 1): a paste over the limit
stays whole, the counter shows the excess in the error colour, and sending is
refused in the server's own words next to the box, which gets the focus;
nothing leaves the browser or the console. axe checks every page (the `page`
fixture). The server's side: tests/studio/test_never_lose_a_word.py."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from dashboard.api.testing import RemoteCallCounter
from studio.forms import over_limit_words
from tests.studio.support import log_in, paste, posts_from, start


@pytest.fixture
def clipboard(page: Page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    return page


@pytest.mark.browser
def test_a_long_paste_on_the_studio_home_is_kept_counted_and_refused_in_words(
    console,
    clipboard,
    page: Page,
):
    log_in(page, console.url + "/studio/")
    sent = posts_from(page)
    box = page.get_by_label("Message")
    counter = page.locator("#id_message_counter")
    error = page.locator("#id_message_error")

    page.get_by_label("Studio", exact=True).select_option("website")
    paste(page, box, "w" * 3801)
    expect(counter).to_have_text("3,801 / 3,800 — 1 character over")
    expect(counter).to_have_class("help text-counter is-over")
    with RemoteCallCounter() as calls:
        page.get_by_role("button", name="Start the turn").click()
        expect(error).to_have_text(over_limit_words("Website messages", 3800, 3801))
    expect(box).to_be_focused()
    expect(box).to_have_attribute("aria-invalid", "true")
    # Announced once the pasting is done, not on every keystroke.
    expect(page.locator("#id_message_status")).to_have_text("3,801 / 3,800 — 1 character over the limit.")

    # A document takes 18,000: the same box, the limit of the chosen studio.
    page.get_by_label("Studio", exact=True).select_option("document")
    expect(counter).to_have_text("3,801 / 18,000 characters")
    expect(error).to_have_count(0)
    box.fill("")
    paste(page, box, "d" * 18001)
    expect(counter).to_have_text("18,001 / 18,000 — 1 character over")
    with RemoteCallCounter() as more_calls:
        box.press("Enter")  # a new line, not a send: one more character over
        page.get_by_role("button", name="Start the turn").click()
        expect(error).to_have_text(over_limit_words("Document messages", 18000, 18002))
    expect(box).to_be_focused()
    assert len(box.input_value()) == 18002  # nothing lost
    box.press("Backspace")
    box.press("Backspace")
    expect(counter).to_have_text("18,000 / 18,000 characters")
    expect(error).to_have_count(0)
    expect(box).not_to_have_attribute("aria-invalid", "true")
    assert sent == [] and calls.count == more_calls.count == 0


@pytest.mark.browser
def test_a_long_paste_in_the_composer_is_refused_in_words_and_kept(
    console,
    clipboard,
    page: Page,
):
    start(page, console.url, "website", "A website")
    expect(page.get_by_role("heading", name="Website conversation")).to_be_visible()
    box = page.get_by_label("Your message to the website director")
    paste(page, box, "c" * 3801)
    expect(page.locator("#composer-message_counter")).to_have_text("3,801 / 3,800 — 1 character over")
    sent = posts_from(page)
    with RemoteCallCounter() as calls:
        page.get_by_role("button", name="Send", exact=True).click()
        expect(page.locator("#composer-message_error")).to_have_text(over_limit_words("Website messages", 3800, 3801))
    expect(box).to_be_focused()
    assert box.input_value() == "c" * 3801
    assert sent == [] and calls.count == 0
