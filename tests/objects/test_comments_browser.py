"""Comments in Chromium against the real sandbox: a comment written and
posted by keyboard alone (htmx, the new comment takes the focus), a mention
in the other person's inbox on their next page, watching by keyboard, edit
in place, @-mention suggestions picked by keyboard, and the region fitting 375 px. axe runs on every page and swap
(tests/axe.py: 0 serious or critical)."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import Page, expect

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from sandbox.fixtures import create_every_type_object, sample_values
from tests.helpers import SCREENSHOTS, running_sandbox


@pytest.fixture(scope="module")
def sandbox():
    with running_sandbox() as handle:
        yield handle


def _sign_in(page: Page, live_server, user) -> None:
    # Off the console first: a poll of the page left would meet the change of session.
    page.goto("about:blank")
    browser_client = Client()
    browser_client.force_login(user)
    page.context.clear_cookies()
    page.context.add_cookies(
        [{"name": "sessionid", "value": browser_client.cookies["sessionid"].value, "url": live_server.url}]
    )


@pytest.fixture
def record(live_server, sandbox, settings, transactional_db, django_user_model, page: Page):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    obj = create_every_type_object(service)
    made = service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(1)})
    tina = django_user_model.objects.create_user(username="tina", password="comments are fun to test")
    dana = django_user_model.objects.create_user(username="dana", password="comments are fun to test")
    store_sandbox_key(tina, service, sandbox.demo_key)
    store_sandbox_key(dana, service, sandbox.demo_key)
    _sign_in(page, live_server, tina)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return {"url": f"{live_server.url}/objects/{obj['key']}/records/{made['id']}/", "dana": dana}


def focused_text(page: Page) -> str:
    return page.evaluate("() => (document.activeElement && document.activeElement.textContent || '').trim()")


@pytest.mark.browser
def test_a_comment_posted_by_keyboard_reaches_the_person_mentioned(record, page: Page, live_server):
    page.goto(record["url"])
    comments = page.locator("#comments")
    expect(comments).to_contain_text("No comments yet.")

    # Watch, then write and post, by keyboard alone.
    watch = comments.get_by_role("button", name="Watch this record")
    watch.focus()
    page.keyboard.press("Enter")
    expect(comments.get_by_role("button", name="Watch this record")).to_have_attribute("aria-pressed", "true")
    page.get_by_label("Comment", exact=True).focus()
    page.keyboard.type("Can you check the **amount**, @dana?")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Post the comment")).to_be_focused()
    page.keyboard.press("Enter")
    posted = comments.locator(".comment").first
    expect(posted.locator(".comment-body strong")).to_have_text("amount")
    expect(posted).to_be_focused()

    # Edit in place: the text takes the focus; saved, the comment again.
    posted.get_by_role("link", name="Edit").click()
    box = comments.locator(".comment textarea")
    expect(box).to_be_focused()
    box.fill("Can you check the **amount** today, @dana?")
    comments.get_by_role("button", name="Save the comment").click()
    expect(comments.locator(".comment-body")).to_contain_text("today")
    expect(comments.locator(".comment-head")).to_contain_text("edited")

    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(SCREENSHOTS / "record-comments-375.png"), full_page=True)

    # Dana's next page: the mention waits in her inbox and opens the comment.
    _sign_in(page, live_server, record["dana"])
    page.goto(f"{live_server.url}/inbox/")
    item = page.get_by_role("link", name="tina mentioned you on Deal 001")
    expect(item).to_be_visible()
    item.click()
    expect(page.locator("#comments .comment-body")).to_contain_text("today")


@pytest.mark.browser
def test_the_timeline_of_a_record_by_keyboard_at_375_px(record, page: Page):
    """The record's History links to its timeline: the comment posted on the
    record's page is on it, one kind at a time by its tabs, within 375 px."""
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(record["url"])
    page.get_by_role("combobox", name="Comment").fill("Renewal call **booked**")
    page.get_by_role("button", name="Post the comment").click()
    expect(page.locator("#comments .comment-body")).to_contain_text("Renewal call booked")

    link = page.get_by_role("link", name="The whole timeline")
    link.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Timeline of")
    expect(page.locator("li.timeline-entry[data-kind='comment']")).to_contain_text("Renewal call booked")
    tabs = page.get_by_role("navigation", name="Show on the timeline")
    tabs.get_by_role("link", name="Jobs (0)").click()
    expect(page.get_by_text("Nothing of this kind yet.")).to_be_visible()
    tabs.get_by_role("link", name="Comments (1)").click()
    expect(page.locator("li.timeline-entry")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(SCREENSHOTS / "objects-timeline-phone.png"), full_page=True)


@pytest.mark.browser
def test_mention_suggestions_are_picked_by_keyboard_at_375_px(record, page: Page):
    """ "@" and letters offer the workspace's people (server-rendered options,
    a debounced background GET): Up and Down choose, Enter or Tab mention,
    Escape closes, each said in the status line; the box stays a textarea
    whose typed text is kept."""
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(record["url"])
    box = page.get_by_role("combobox", name="Comment")
    expect(box).to_have_attribute("aria-expanded", "false")
    box.focus()
    page.keyboard.type("Please look, @")
    people = page.get_by_role("listbox", name="People of this workspace to mention")
    expect(people.get_by_role("option")).to_have_text(["@dana", "@tina"])
    expect(box).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_role("status").filter(has_text="2 people to mention")).to_have_count(1)
    page.keyboard.press("ArrowDown")
    expect(people.get_by_role("option", name="@tina")).to_have_attribute("aria-selected", "true")
    page.keyboard.press("ArrowUp")
    chosen = people.get_by_role("option", name="@dana")
    expect(chosen).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", chosen.get_attribute("id") or "")
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(SCREENSHOTS / "record-mentions-375.png"), full_page=True)

    page.keyboard.type("d")
    expect(people.get_by_role("option")).to_have_text(["@dana"])
    page.keyboard.press("Enter")
    expect(box).to_have_value("Please look, @dana ")
    expect(people).to_be_hidden()
    expect(box).to_have_attribute("aria-expanded", "false")
    expect(box).to_be_focused()

    page.keyboard.type("and @t")
    expect(people.get_by_role("option")).to_have_text(["@tina"])
    page.keyboard.press("Escape")
    expect(people).to_be_hidden()
    expect(box).to_have_value("Please look, @dana and @t")
    page.keyboard.type("i")
    expect(people.get_by_role("option")).to_have_text(["@tina"])
    page.keyboard.press("Tab")
    expect(box).to_have_value("Please look, @dana and @tina ")
    expect(box).to_be_focused()

    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Post the comment")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#comments .comment-body")).to_have_text("Please look, @dana and @tina")
    # The new region's box is a combobox again.
    expect(page.get_by_role("combobox", name="Comment")).to_have_attribute("aria-expanded", "false")

    # One's own comment edited and deleted, and the watch toggled, by keyboard: the focus never falls to the page.
    page.get_by_role("link", name="Edit your comment").focus()
    page.keyboard.press("Enter")
    editing = page.get_by_role("combobox", name="Comment").first
    expect(editing).to_be_focused()
    page.keyboard.press("End")
    page.keyboard.type(" today")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Save the comment")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#comments .comment")).to_be_focused()
    expect(page.locator("#comments .comment-body")).to_contain_text("today")

    watch = page.get_by_role("button", name="Watch this record")
    watch.focus()
    page.keyboard.press("Enter")
    expect(watch).to_have_attribute("aria-pressed", "true")
    expect(watch).to_be_focused()

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete the comment by tina").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#comments")).to_contain_text("No comments yet.")
    expect(page.get_by_role("heading", name="Comments")).to_be_focused()
    expect(page.get_by_role("status").filter(has_text="The comment was deleted.")).to_have_count(1)

    page.set_viewport_size({"width": 1280, "height": 900})
    page.get_by_role("combobox", name="Comment").focus()
    page.keyboard.type("@")
    expect(page.get_by_role("listbox").get_by_role("option")).to_have_count(2)
    page.screenshot(path=str(SCREENSHOTS / "record-mentions-1280.png"), full_page=True)
