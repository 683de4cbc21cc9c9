"""The manager's phone (issue 40): Home, Approvals, Inbox and Runs in
Chromium at 375 px against a real sandbox (axe checks every page and swap,
in both themes): one header bar with the inbox count and a Menu button that
works by keyboard, the first item visible without scrolling, nothing wider
than the screen, and toasts that never cover a focused field or its submit
button. Screenshots at 375 and 1366 px go to /tmp/phone-*.png."""

from __future__ import annotations

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from dashboard.inbox.tasks import refresh_workspace
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_track
from dashboard.web.reading import when
from tests.helpers import PASSWORD, fill_login_form
from tests.home.support import sandbox_ids, sandbox_person

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1366, "height": 900}


def _wider_than_the_screen(page: Page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth > window.innerWidth")


def _log_in(page: Page, live_server, user) -> None:
    user.set_password(PASSWORD)
    user.save()
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + "/accounts/login/")
    fill_login_form(page, user.get_username())


def _first_visible(page: Page, locator) -> dict:
    """The first item's box: on the first screen, inside its width."""
    expect(locator).to_be_visible()
    box = locator.bounding_box()
    assert box is not None
    assert box["y"] + min(box["height"], 48) < PHONE["height"], f"the first item starts at y={box['y']}"
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 0.5
    return box


def _shoot(page: Page, name: str) -> None:
    page.screenshot(path=f"/tmp/phone-{name}-375.png")
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=f"/tmp/phone-{name}-1366.png")
    page.set_viewport_size(PHONE)


def test_approvals_inbox_runs_and_home_on_a_phone(live_server, transactional_db, person, page: Page):
    user, _ = person("mona", "approver", "demo")
    _log_in(page, live_server, user)

    # One header bar: the brand, the inbox count and Menu; the rest opens by keyboard.
    header = page.locator("header.site-header")
    expect(header.get_by_role("link", name="Inbox")).to_be_visible()
    menu = page.get_by_role("button", name="Menu", exact=True)
    expect(menu).to_have_attribute("aria-expanded", "false")
    page.screenshot(path="/tmp/phone-bar-375.png")
    assert header.bounding_box()["height"] < 70
    expect(page.get_by_role("navigation", name="Main")).to_be_hidden()
    menu.focus()
    page.keyboard.press("Enter")
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_role("navigation", name="Main").get_by_role("link", name="Agents")).to_be_visible()
    page.screenshot(path="/tmp/phone-menu-375.png")
    page.keyboard.press("Escape")
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(menu).to_be_focused()
    expect(page.get_by_role("navigation", name="Main")).to_be_hidden()
    # Space opens it too (a real button), Tab reaches its links.
    page.keyboard.press(" ")
    expect(menu).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Tab")
    expect(page.get_by_role("navigation", name="Main").get_by_role("link").first).to_be_focused()
    page.keyboard.press("Escape")
    expect(menu).to_be_focused()
    expect(menu).to_have_attribute("aria-expanded", "false")
    assert not _wider_than_the_screen(page)
    _shoot(page, "home")

    # Approvals: the filters are one control, the first approval on the first screen.
    page.goto(live_server.url + "/approvals/")
    filters = page.locator("summary", has_text="Filters")
    expect(filters).to_be_visible()
    expect(page.get_by_label("Risk")).to_be_hidden()
    _first_visible(page, page.get_by_role("list", name="Approvals").get_by_role("listitem").first)
    assert not _wider_than_the_screen(page)
    _shoot(page, "approvals")
    filters.click()
    expect(page.get_by_label("Risk")).to_be_visible()

    # Inbox: the first item on the first screen.
    page.goto(live_server.url + "/inbox/")
    _first_visible(page, page.locator("[data-inbox-item]").first)
    assert not _wider_than_the_screen(page)
    _shoot(page, "inbox")

    # Runs: cards, nothing sideways, each run's status in view.
    page.goto(live_server.url + "/runs/")
    first = page.locator("[data-run-card]").first
    _first_visible(page, first)
    status = first.locator(".run-status").first
    expect(status).to_be_in_viewport()
    box = status.bounding_box()
    assert box["x"] + box["width"] <= PHONE["width"]
    assert not _wider_than_the_screen(page)
    _shoot(page, "runs")


def _overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def test_a_toast_never_covers_the_focused_field_or_its_send_button(
    live_server, transactional_db, person, page: Page, settings
):
    settings.INBOX_POLL_SECONDS = 1
    user, key = person("noor", "member", "demo")
    _log_in(page, live_server, user)
    # The news of the person's work so far, shown on Home and dismissed.
    toasts = page.locator("#toasts .toast")
    expect(toasts.first).to_be_visible()
    while page.locator("#toasts").get_by_role("button", name="Dismiss").count():
        page.locator("#toasts").get_by_role("button", name="Dismiss").first.click()

    page.goto(live_server.url + f"/agents/{sandbox_ids(key)['agent']}/chat/")
    message = page.locator("#chat-form").get_by_role("textbox", name="Message", exact=True)
    send = page.locator("#chat-form").get_by_role("button", name="Send", exact=True)
    # A shorter screen with the Send button at its very bottom, where toasts appear.
    page.set_viewport_size({"width": 375, "height": 560})
    send.evaluate("button => button.scrollIntoView({block: 'end'})")
    message.focus()
    page.keyboard.type("Is the lead from Contoso qualified?")
    # News arrives while the person types: a turn of theirs ends.
    op = operation_track(owner_key=key, kind="studio.turn", remote_id=f"late-{user.pk}", title="A late turn")
    TrackedOperation.objects.filter(pk=op.pk).update(status="completed", is_final=True, updated_at=timezone.now())
    expect(toasts.first).to_be_attached(timeout=15_000)
    expect(message).to_be_focused()
    # Where the toasts sit by default (bottom right) they would cover Send: they moved away.
    expect(page.locator("#toasts.toasts--top")).to_have_count(1)
    page.screenshot(path="/tmp/phone-toast-375.png")
    for index in range(toasts.count()):
        toast = toasts.nth(index)
        if not toast.is_visible():
            continue  # stood aside while the field is in use
        box = toast.bounding_box()
        assert not _overlap(box, message.bounding_box()), "a toast covers the focused field"
        assert not _overlap(box, send.bounding_box()), "a toast covers the Send button"
    # Leaving the field brings the toasts back where they can be read.
    page.evaluate("() => document.activeElement.blur()")
    expect(toasts.first).to_be_visible()
    expect(page.locator("#toasts.toasts--top")).to_have_count(0)


def test_home_reads_the_workspace_and_never_says_nothing_waits_before_the_first_refresh(
    live_server, transactional_db, console, django_user_model, page: Page, settings
):
    settings.INBOX_POLL_SECONDS = 1
    user, key = sandbox_person(django_user_model, console, username="omar", role="approver", kind="demo")
    _log_in(page, live_server, user)
    card = page.get_by_role("region", name="What needs you")
    expect(card.get_by_text("Reading the workspace…")).to_be_visible()
    expect(card.get_by_text("Nothing waits for you")).to_have_count(0)
    # The worker's first reading: the card fills itself in, the approvals' ages the service's.
    refresh_workspace(key.workspace_id)
    expect(card.get_by_role("link", name="Delete records in deals.")).to_be_visible(timeout=15_000)
    expect(card.get_by_text("Reading the workspace…")).to_have_count(0)
    expect(card.get_by_text("Nothing waits for you")).to_have_count(0)
    pending = {item["summary"]: item["created_at"] for item in key.client().get("/v1/approvals")["data"]}
    item = card.locator("li", has_text="Delete records in deals.")
    assert when(item.locator("time").get_attribute("datetime")) == when(pending["Delete records in deals."])
    assert not _wider_than_the_screen(page)
