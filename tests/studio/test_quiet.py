"""Quiet where the person is looking (issue #21, item 7): no toast for the
conversation on screen (its page load and the header's poll, which carries
the page's operations in a header), the home form's library link follows the
chosen studio, and at 375 px a Chat / Result switch with no sideways scroll."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from dashboard.inbox.models import Notice
from dashboard.inbox.views import ON_SCREEN_HEADER
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_track
from tests.helpers import PASSWORD, fill_login_form
from tests.html import one, parse, select
from tests.live.support import store_key, turn_body

HTMX = {"HTTP_HX_REQUEST": "true"}
ON_SCREEN = "HTTP_" + ON_SCREEN_HEADER.upper().replace("-", "_")


def finished_turn(key, remote_id: str, title: str, conversation: str) -> TrackedOperation:
    op = operation_track(
        owner_key=key,
        kind="studio.turn",
        remote_id=remote_id,
        title=title,
        snapshot={},
        context={"studio": "website", "conversation_id": conversation, "message": title},
    )
    TrackedOperation.objects.filter(pk=op.pk).update(
        status="completed", is_final=True, snapshot=turn_body("completed", conversation_id=conversation)
    )
    op.refresh_from_db()
    return op


def toasts(html) -> list[str]:
    return [toast.get("data-notice-text") for toast in select(parse(html.decode()), ".toast")]


def test_the_conversation_on_screen_gets_no_toast_on_its_page_or_its_poll(db, api_key, logged_in_client):
    watched = finished_turn(api_key, "t-1", "The site on screen", "c-1")
    # The conversation page load claims its own news without a toast.
    page = logged_in_client.get(reverse("studio:turn", args=[watched.pk])).content
    assert toasts(page) == []
    assert one(parse(page.decode()), "#studio-thread")["data-on-screen-operations"] == str(watched.pk)
    assert Notice.objects.filter(operation=watched).count() == 1  # claimed: it won't pop up on the next page

    # Later news: the poll names what the page shows; other work is still announced.
    also_watched = finished_turn(api_key, "t-2", "Its next turn", "c-1")
    elsewhere = finished_turn(api_key, "t-3", "Another site", "c-2")
    answer = logged_in_client.get(reverse("inbox:header"), **HTMX, **{ON_SCREEN: f"{watched.pk},{also_watched.pk}"})
    assert toasts(answer.content) == ["Studio turn finished: Another site"]
    assert set(Notice.objects.values_list("operation_id", flat=True)) == {watched.pk, also_watched.pk, elsewhere.pk}


def test_a_poll_without_the_header_or_with_junk_in_it_toasts_as_before(db, api_key, logged_in_client):
    finished_turn(api_key, "t-1", "Spring site", "c-1")
    answer = logged_in_client.get(reverse("inbox:header"), **HTMX, **{ON_SCREEN: "x, -3, 99999999999999999999"})
    assert toasts(answer.content) == ["Studio turn finished: Spring site"]


def test_the_home_forms_library_link_follows_the_chosen_studio(db, api_key, logged_in_client):
    page = parse(logged_in_client.get(reverse("studio:index"), {"studio": "document"}).content.decode())
    link = one(page, "a[data-studio-library-link]")
    assert link["href"] == reverse("studio:library", args=["documents"])
    assert link["data-library-image"] == reverse("studio:library", args=["boards"])
    default = parse(logged_in_client.get(reverse("studio:index")).content.decode())
    assert one(default, "a[data-studio-library-link]")["href"] == reverse("studio:library", args=["websites"])


@pytest.mark.browser
def test_at_375_px_the_result_is_one_tap_away_and_nothing_scrolls_sideways(
    live_server, transactional_db, django_user_model, page: Page
):
    user = django_user_model.objects.create_user(username="dora", password=PASSWORD)
    key = store_key(user, "sk_test_quiet")
    long_title = "A very long site name " + "withoutanybreakswhatsoever" * 6
    op = finished_turn(key, "t-1", long_title, "c-1")
    finished_turn(key, "t-2", "Another site", "c-2")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(live_server.url + reverse("studio:turn", args=[op.pk]))
    fill_login_form(page, "dora")

    # Only the other conversation's news is toasted, and not over the pane.
    toast = page.locator("#toasts .toast")
    expect(toast).to_have_count(1)
    expect(toast).to_contain_text("Another site")
    box, pane = toast.bounding_box(), page.locator("#artifact-pane").bounding_box()
    assert box and pane and box["x"] + box["width"] <= pane["x"]
    toast.get_by_role("button", name="Dismiss").click()

    page.set_viewport_size({"width": 375, "height": 800})

    switch = page.get_by_role("navigation", name="Chat or result")
    expect(switch.get_by_role("link", name="Chat")).to_have_attribute("aria-current", "true")
    expect(page.get_by_role("heading", name="Continue the conversation")).to_be_visible()
    expect(page.locator("#artifact-pane")).to_be_hidden()

    switch.get_by_role("link", name="Result").click()
    expect(page.locator("#artifact-pane")).to_be_visible()
    expect(page.get_by_role("heading", name="Continue the conversation")).to_be_hidden()
    expect(switch.get_by_role("link", name="Result")).to_have_attribute("aria-current", "true")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    switch.get_by_role("link", name="Chat").click()
    expect(page.get_by_role("heading", name="Continue the conversation")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
