"""The getting-started checklist in Chromium at phone width (axe on every
page and swap, both themes): an Administrator follows its first step,
invites three addresses with one bad, comes back to a ticked step, hides
the checklist and shows it again."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.helpers import PASSWORD, fill_login_form

pytestmark = pytest.mark.browser


def test_the_first_administrator_invites_from_the_checklist_and_it_ticks(
    live_server, settings, transactional_db, django_user_model, page: Page
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.EMAIL_CONFIGURED = False
    admin = django_user_model.objects.create_user(username="ada", password=PASSWORD)
    Person.objects.create(user=admin, role=Role.ADMINISTRATOR)
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/login/")
    fill_login_form(page, "ada")

    page.goto(live_server.url + "/")
    checklist = page.get_by_role("region", name="Getting started")
    expect(checklist).to_contain_text("0 of 5 done")
    checklist.get_by_role("link", name="Invite people").click()

    page.get_by_label("Email addresses").fill("bo@example.com\ncy@example.com, not-an-address")
    page.get_by_role("button", name="Send invitations").click()
    expect(page.get_by_role("alert")).to_contain_text("“not-an-address” is not an email address.")
    expect(page.get_by_role("row", name="cy@example.com")).to_be_visible()

    page.goto(live_server.url + "/")
    expect(checklist).to_contain_text("1 of 5 done")
    expect(checklist.get_by_role("listitem").first).to_contain_text("Invite someone (done)")
    assert not page.evaluate("() => document.documentElement.scrollWidth > document.documentElement.clientWidth")

    checklist.get_by_role("button", name="Hide this checklist").click()
    expect(checklist).to_be_hidden()
    page.get_by_role("button", name="Show the getting-started checklist").click()
    expect(page.get_by_role("region", name="Getting started")).to_contain_text("1 of 5 done")
