"""The People pages in Chromium at phone width, checked by axe on every
document and swap: invite someone, search, change a role after the
confirmation, deactivate after the confirmation."""

from __future__ import annotations

import re

import pytest
from cryptography.fernet import Fernet
from django.core import mail
from playwright.sync_api import Page, expect

from dashboard.keys.testing import stored_api_key
from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.helpers import PASSWORD, fill_login_form


@pytest.mark.browser
def test_an_administrator_invites_changes_a_role_and_deactivates_at_phone_width(
    live_server, settings, transactional_db, django_user_model, page: Page
):
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    admin = django_user_model.objects.create_user(username="ada", password=PASSWORD)
    Person.objects.create(user=admin, role=Role.ADMINISTRATOR)
    stored_api_key(user=admin, secret="svc_sk_people000000000000000000wxyz")
    bob = django_user_model.objects.create_user(username="bob", email="bob@example.com", first_name="Bob")
    Person.objects.create(user=bob, role=Role.MEMBER)

    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/login/")
    fill_login_form(page, "ada")
    page.get_by_role("link", name="People").first.click()
    expect(page.get_by_role("heading", name="People", exact=True)).to_be_visible()

    # Invite three at once: one taken, one no address; each refused in words and left in the box,
    # the third sent (and listed at once).
    field = page.get_by_label("Email addresses")
    field.fill("bob@example.com, carol@example.com\nnot-an-address")
    page.get_by_role("button", name="Send invitations").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Sent to carol@example.com as Member")
    expect(alert).to_contain_text("2 addresses not invited")
    expect(alert.get_by_role("listitem")).to_have_text(
        ["bob@example.com already has an account, bob.", "“not-an-address” is not an email address."]
    )
    expect(field).to_have_value("bob@example.com\nnot-an-address")
    expect(page.get_by_role("row", name="carol@example.com")).to_be_visible()
    # A new link to hand over another way: shown once, to copy.
    page.get_by_role("button", name="Copy a new link for carol@example.com").click()
    link = page.get_by_label("Invitation link for carol@example.com")
    expect(link).to_have_value(re.compile(r"/people/join/[\w-]+/$"))
    expect(page.get_by_role("button", name="Copy", exact=True)).to_be_visible()
    assert [message.to for message in mail.outbox] == [["carol@example.com"]]
    assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")

    # Search swaps the list only.
    page.get_by_label("Search people").fill("bob")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_role("link", name="Bob")).to_be_visible()
    expect(page.get_by_role("link", name="ada")).to_be_hidden()

    # A role change asks first.
    page.get_by_role("link", name="Bob").click()
    page.get_by_label("Role", exact=True).and_(page.locator("select")).select_option(Role.APPROVER)
    page.get_by_role("button", name="Change role…").click()
    expect(page.get_by_role("alert")).to_contain_text("from Member to Approver")
    page.get_by_role("button", name="Make them Approver").click()
    expect(page.locator("#messages")).to_contain_text("bob is now Approver")

    # Deactivating asks first too.
    page.get_by_role("button", name="Deactivate…").click()
    page.get_by_role("button", name="Deactivate bob").click()
    expect(page.locator("#messages")).to_contain_text("bob is deactivated")
    expect(page.get_by_role("button", name="Reactivate")).to_be_visible()
    bob.refresh_from_db()
    assert not bob.is_active
    assert Person.objects.get(user=bob).role == Role.APPROVER
    assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")
