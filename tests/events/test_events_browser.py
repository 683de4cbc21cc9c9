"""The Administrators' pages of outbound events in Chromium, at phone width
(axe-core checks every page it shows: tests/axe.py): an endpoint added with
the keyboard-usable form, its secret shown once, a test sent and its
delivery on the log with its attempt; nothing spills sideways."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from dashboard.events.models import Delivery
from dashboard.events.sending import delivery_send
from tests.events.conftest import person
from tests.helpers import PASSWORD, fill_login_form


def page_overflows_sideways(page: Page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth > document.documentElement.clientWidth")


@pytest.mark.browser
def test_an_administrator_adds_an_endpoint_tests_it_and_reads_the_log(
    live_server, transactional_db, django_user_model, page: Page, receiver
):
    admin = person(django_user_model, "ada")
    admin.set_password(PASSWORD)
    admin.save()
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/login/")
    fill_login_form(page, "ada")
    page.goto(live_server.url + "/events/")

    page.get_by_label("Name").fill("Ops tool")
    page.get_by_label("Address").fill(receiver.url)
    page.get_by_label("A job finished").check()
    page.get_by_role("button", name="Add the endpoint").click()
    secret = page.get_by_role("textbox", name="Signing secret")
    assert secret.input_value().startswith("whsec_")
    assert not page_overflows_sideways(page)

    page.get_by_role("button", name="Send a test to Ops tool").click()
    expect(page.get_by_role("heading", name="Delivery log")).to_be_visible()
    assert delivery_send(delivery_id=Delivery.objects.get().pk) == "delivered"
    page.reload()
    expect(page.locator(".events-attempts li")).to_have_count(1)
    expect(page.locator(".events-attempts li")).to_contain_text("answered 200")
    assert not page_overflows_sideways(page)
    assert len(receiver.calls) == 1
