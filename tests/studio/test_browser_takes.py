"""Alternatives side by side in Chromium against a real sandbox (#36's
browser test, "two takes side by side by keyboard"): from a finished
document's pane, another take with a changed brief; the takes page follows
it until its words show; the pager and the comparison by keyboard alone;
"keep this one"; at 375 px no sideways scroll. axe checks every document
(the `page` fixture)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from dashboard.idempotency import new_idempotency_key
from dashboard.live.models import TrackedOperation
from studio.models import TakeSet
from studio.services import turn_start
from tests.helpers import PASSWORD, SCREENSHOTS, fill_login_form
from tests.live.support import store_key
from tests.studio.support import polled_to_the_end

pytestmark = pytest.mark.browser

BRIEF = "A one-pager for our spring bicycle sale: 20% off city bikes, free helmet with every bike."
CHANGED = "A one-pager for our spring e-bike sale: 15% off e-bikes, a free lock with every e-bike."


def _press_until_focused(page: Page, locator, key: str = "Tab", most: int = 60) -> None:
    """Move the focus by keyboard alone until `locator` has it."""
    for _ in range(most):
        if locator.evaluate("node => node === document.activeElement"):
            return
        page.keyboard.press(key)
    raise AssertionError("the keyboard never reached it")


def test_two_takes_side_by_side_by_keyboard(
    page: Page, live_server, sandbox, settings, transactional_db, django_user_model, eager_celery
):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    settings.SERVICE_BASE_URL = sandbox.base_url
    user = django_user_model.objects.create_user(username="dora", password=PASSWORD)
    key = store_key(user, sandbox.demo_key)
    first = polled_to_the_end(
        sandbox, turn_start(key=key, studio="document", message=BRIEF, auto=True, idempotency_key=new_idempotency_key())
    )

    page.goto(live_server.url + reverse("studio:turn", args=[first.pk]))
    fill_login_form(page, "dora")
    another = page.locator("#artifact-pane").get_by_role("link", name="Another take")
    _press_until_focused(page, another)
    page.keyboard.press("Enter")
    brief = page.get_by_role("textbox", name="The brief")
    expect(brief).to_have_value(BRIEF)
    brief.fill(CHANGED)
    _press_until_focused(page, page.get_by_role("button", name="Make another take"))
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Take 2 of 2", exact=False)).to_be_visible()

    # The take finishes at the service; the page follows it (it polls the console).
    take = TrackedOperation.objects.exclude(pk=first.pk).get()
    if not take.is_final:
        polled_to_the_end(sandbox, take)
    expect(page.locator(".studio-take__document")).to_contain_text("e-bike", timeout=15_000)

    # The pager by keyboard: take 1 shows its own words.
    pager = page.get_by_role("navigation", name="Takes")
    _press_until_focused(page, pager.get_by_role("link", name="Take 1", exact=True), "Shift+Tab")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Take 1 of 2", exact=False)).to_be_visible()
    expect(page.locator(".studio-take__document")).to_contain_text("city bikes")

    _press_until_focused(page, page.get_by_role("link", name="Compare with take 2"))
    page.keyboard.press("Enter")
    left = page.get_by_role("region", name="Left: take 1", exact=False)
    right = page.get_by_role("region", name="Right: take 2", exact=False)
    expect(left).to_contain_text("city bikes")
    expect(right).to_contain_text("e-bike")
    page.screenshot(path=str(SCREENSHOTS / "studio-takes-side.png"), full_page=True)

    _press_until_focused(page, right.get_by_role("button", name="Keep this one"))
    page.keyboard.press("Enter")
    expect(right.get_by_text("The one kept")).to_be_visible()
    assert TakeSet.objects.get().kept.number == 2

    page.set_viewport_size({"width": 375, "height": 812})
    for address in (reverse("studio:takes", args=[TakeSet.objects.get().pk]), page.url):
        page.goto(address if address.startswith("http") else live_server.url + address)
        assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
    page.screenshot(path=str(SCREENSHOTS / "studio-takes-phone.png"), full_page=True)
