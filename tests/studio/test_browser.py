"""The Studio in Chromium, against the real sandbox over HTTP. Every page a
journey shows is checked by axe (tests/axe.py, through the `page` fixture).

The `poller` fixture (tests/conftest.py) runs the real `live.tick` task
(tasks inline) in a thread, standing in for Celery beat and a worker. The
first poll of a turn is due 5 s after its start (the spec's interval); the
generous timeouts only keep a loaded machine from failing the tests.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.helpers import SCREENSHOTS, csp_violations
from tests.studio.support import log_in, start

LIVE = 45_000  # ms: a turn followed live to its end


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})
    page.screenshot(path=str(SCREENSHOTS / f"{name}-375.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})


def credits(sandbox) -> float:
    return next(ws for ws in sandbox.store.list("workspace") if ws["name"] == "Acme Marketing")["credits"]


@pytest.mark.browser
def test_a_website_turn_through_questions_answered_in_one_click_to_a_build_in_the_pane(console, poller, page: Page):
    violations = csp_violations(page)
    start(page, console.url, "website", "A website")

    expect(page.get_by_role("heading", name="Website conversation")).to_be_visible()
    question = page.get_by_role("group", name="What is the website for?")
    expect(question).to_be_visible(timeout=LIVE)
    page.get_by_label("Your message to the website director").fill("x" * 10)
    expect(page.locator("#composer-message_counter")).to_have_text("10 / 3,800 characters")
    shot(page, "studio-questions")
    question.get_by_role("button", name="A local business").click()

    chat = page.get_by_role("list", name="Conversation")
    expect(chat.locator(".chat-bubble--person .chat-text").last).to_have_text("A local business")
    expect(chat).to_contain_text("Your website is built and live.", timeout=LIVE)
    pane = page.locator("#artifact-pane")
    expect(pane.locator("[data-build-status]")).to_have_text("Succeeded · stage complete")
    expect(pane.get_by_role("link", name="The published site")).to_be_visible()
    expect(page.locator("#studio-thread")).not_to_have_attribute("hx-trigger", "every 2s")
    shot(page, "studio-website-built")
    assert violations == []


@pytest.mark.browser
def test_a_document_outline_is_approved_and_its_content_read(console, poller, page: Page):
    start(page, console.url, "document", "A proposal")
    # The director's streamed events, stored by the follower (run inline by the `poller` fixture's eager tasks).
    expect(page.get_by_role("list", name="Progress").first).to_contain_text("Plan: Read the message")
    outline = page.locator(".studio-outline")
    expect(outline).to_contain_text("Proposed outline", timeout=LIVE)
    page.get_by_role("button", name="Approve the outline").click()

    expect(page.locator(".chat-turn").last).to_have_attribute("data-status", "completed", timeout=LIVE)
    expect(page.locator(".chat-turn").last).to_contain_text("I wrote the proposal")
    content = page.get_by_role("article", name="Document content")
    expect(content.get_by_role("heading").first).to_be_visible()
    expect(content.locator("script")).to_have_count(0)
    shot(page, "studio-document")


@pytest.mark.browser
def test_an_image_turn_shows_its_gallery(console, poller, page: Page):
    start(page, console.url, "image", "Two images of a red bicycle in a sunny street, 1:1", auto=True)
    gallery = page.locator("#artifact-pane").get_by_role("list", name="Images")
    expect(gallery.get_by_role("img")).to_have_count(2, timeout=LIVE)
    expect(gallery).to_contain_text("1024 × 1024")
    shot(page, "studio-image-gallery")


@pytest.mark.browser
def test_a_video_turns_pending_request_is_run_as_a_content_app_with_one_charge(console, poller, page: Page, sandbox):
    start(page, console.url, "video", "Film a new shot of the shop front at dawn and add a title", auto=True)
    pending = page.locator(".studio-pending")
    expect(pending).to_contain_text("Film an AI shot", timeout=LIVE)
    shot(page, "studio-video-pending")
    before = credits(sandbox)
    pending.get_by_role("link", name="Run film an AI shot").click()

    expect(page.get_by_role("heading", name="Generate shot")).to_be_visible()
    expect(page.get_by_label("Prompt")).to_have_value("Film a new shot of the shop front at dawn and add a title")
    page.get_by_role("button", name="Run generate shot").click()

    status = page.get_by_role("region", name="Video shot status")
    expect(status).to_contain_text("The shot is done", timeout=LIVE)
    expect(status.get_by_role("img")).to_be_visible()
    assert credits(sandbox) == before - 10
    assert len(sandbox.store.list("video_shot")) >= 1
    shot(page, "studio-video-shot")


@pytest.mark.browser
def test_a_content_app_form_from_its_schema_a_refusal_on_its_field_and_a_rerun(console, page: Page):
    log_in(page, console.url + "/studio/apps/")
    page.get_by_role("link", name="Reframe").click()
    # The board select shows its images at once once the page's script is in (a person
    # faster than that has the "Show its images" button): wait for the page to load.
    page.wait_for_load_state("load")
    page.get_by_label("Board").select_option(label="Spring campaign")
    picker = page.get_by_role("group", name="Source image")
    picker.get_by_label("Trail shoes on a mossy rock, morning light", exact=True).check()
    page.get_by_label("Aspect").select_option("4:5")
    page.get_by_role("button", name="Run reframe").click()

    expect(page.locator(".has-error")).to_contain_text("already 4:5")
    expect(picker.get_by_label("Trail shoes on a mossy rock, morning light", exact=True)).to_be_checked()
    shot(page, "studio-app-refused")
    page.get_by_label("Aspect").select_option("16:9")
    page.get_by_role("button", name="Run reframe").click()

    expect(page.get_by_role("list", name="Images").get_by_role("img")).to_have_count(1, timeout=LIVE)
    page.get_by_role("link", name="Run again with changes").click()
    expect(page.get_by_label("Aspect")).to_have_value("16:9")
    expect(
        page.get_by_role("group", name="Source image").get_by_label(
            "Trail shoes on a mossy rock, morning light", exact=True
        )
    ).to_be_checked()
    page.get_by_label("Aspect").select_option("1:1")
    page.get_by_role("button", name="Run reframe").click()
    expect(page.get_by_role("list", name="Images")).to_contain_text("1024 × 1024", timeout=LIVE)


@pytest.mark.browser
def test_an_item_picked_from_the_library_is_edited(console, poller, page: Page):
    log_in(page, console.url + "/studio/library/websites/")
    page.get_by_role("link", name="Edit Acme Spring Launch with the director").click()

    expect(page.get_by_role("heading", name="Work on Acme Spring Launch")).to_be_visible()
    page.get_by_label("Message").fill("Add a pricing page with three plans and a FAQ")
    page.get_by_role("button", name="Start the turn").click()

    chat = page.get_by_role("list", name="Conversation")
    expect(chat).to_contain_text("Your website is built and live.", timeout=LIVE)
    expect(page.locator("#artifact-pane h2")).to_have_text("Acme Spring Launch")
    shot(page, "studio-library-edit")
