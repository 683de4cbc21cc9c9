"""Passkeys in Chromium with its virtual authenticator (CDP WebAuthn, a
platform authenticator that holds discoverable credentials and verifies the
person): one added on the account page at 375 px, then, signed out, the
password with the passkey as the second step, and the passkey alone where the
sign-in policy lets the role. The live server's address is localhost, a
secure context, so WebAuthn runs over plain http. axe checks every load."""

from __future__ import annotations

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from playwright.sync_api import Page, expect

from dashboard.accounts.models import Passkey, PasskeyRoleRule
from dashboard.accounts.step_up import step_up_fresh
from dashboard.audit.models import AuditEntry
from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.helpers import SCREENSHOTS, csp_violations, fill_login_form

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
}


@pytest.fixture
def authenticator(settings, page: Page):
    """Chromium's virtual authenticator on the page (CDP WebAuthn), and the
    relying party from the live server's own address: (the CDP session, its id)."""
    settings.PASSKEY_RP_ID = ""
    settings.PASSKEY_ORIGINS = []
    settings.CONSOLE_BASE_URL = ""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    return cdp, cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})["authenticatorId"]


def log_out(page: Page) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})  # the header's Log out, not inside the phone's menu
    page.get_by_role("button", name="Log out").click()


@pytest.mark.browser
def test_a_passkey_added_then_signing_in_with_it_after_the_password_and_alone(
    live_server, transactional_db, django_user_model, authenticator, page: Page
):
    assert live_server.url.startswith("http://localhost:")
    mira = django_user_model.objects.create_user(username="mira", password="a long passphrase, 2026")
    Person.objects.create(user=mira, role=Role.MEMBER)
    PasskeyRoleRule.objects.create(role=Role.MEMBER, rule=PasskeyRoleRule.PASSWORDLESS)
    cdp, authenticator_id = authenticator
    violations = csp_violations(page)

    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/you/")
    fill_login_form(page, "mira", "a long passphrase, 2026")
    expect(page.get_by_role("heading", name="Passkeys")).to_be_visible()
    page.get_by_label("Name of the passkey").fill("This laptop")
    page.get_by_role("button", name="Add a passkey").click()
    codes = page.get_by_role("list", name="Recovery codes").get_by_role("listitem")
    expect(codes).to_have_count(10)
    passkeys = page.get_by_role("table", name="Your passkeys")
    expect(passkeys).to_contain_text("This laptop")
    expect(passkeys).to_contain_text("never")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(SCREENSHOTS / "passkeys-375.png"), full_page=True)
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator_id})["credentials"]
    assert len(held) == 1 and held[0]["isResidentCredential"]

    # Signed out, then the password and the passkey as the second step.
    log_out(page)
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/you/")
    fill_login_form(page, "mira", "a long passphrase, 2026")
    expect(page.get_by_role("heading", name="Use your passkey")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(SCREENSHOTS / "passkeys-second-step-375.png"), full_page=True)
    page.get_by_role("button", name="Use a passkey").click()
    expect(page.get_by_role("heading", name="Your name, password and sessions")).to_be_visible()
    expect(passkeys).not_to_contain_text("never")

    # Signed out, then the passkey alone: the role may, and the browser picks the passkey.
    log_out(page)
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/you/")
    expect(page.get_by_role("button", name="Sign in with a passkey")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(SCREENSHOTS / "passkeys-login-375.png"), full_page=True)
    page.get_by_role("button", name="Sign in with a passkey").click()
    expect(page.get_by_role("heading", name="Your name, password and sessions")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375

    passkey = Passkey.objects.get(user=mira)
    assert passkey.sign_count >= 2  # Chromium's authenticator counts every signature
    actions = list(
        AuditEntry.objects.filter(action__startswith="passkey.").order_by("id").values_list("action", "details__how")
    )
    assert actions == [
        ("passkey.registered", None),
        ("passkey.signed_in", "second step"),
        ("passkey.signed_in", "without a password"),
    ]
    assert not violations


@pytest.mark.browser
def test_a_role_that_requires_a_passkey_adds_one_right_after_the_password(
    live_server, transactional_db, django_user_model, authenticator, page: Page
):
    noor = django_user_model.objects.create_user(username="noor", password="a long passphrase, 2026")
    Person.objects.create(user=noor, role=Role.APPROVER)
    PasskeyRoleRule.objects.create(role=Role.APPROVER, rule=PasskeyRoleRule.REQUIRED)
    violations = csp_violations(page)

    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/you/")
    fill_login_form(page, "noor", "a long passphrase, 2026")
    expect(page.get_by_role("heading", name="Add a passkey")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.get_by_label("Name of the passkey").fill("Phone")
    page.get_by_role("button", name="Add a passkey").click()
    expect(page.get_by_role("list", name="Recovery codes").get_by_role("listitem")).to_have_count(10)
    page.get_by_role("link", name="I have saved them: continue").click()
    expect(page.get_by_role("table", name="Your passkeys")).to_contain_text("Phone")
    assert Passkey.objects.filter(user=noor).count() == 1
    assert not violations


@pytest.mark.browser
def test_the_step_up_before_a_risky_approve_with_a_passkey_at_375_px(
    live_server, transactional_db, django_user_model, authenticator, page: Page
):
    """A passkey-only person confirms it is them on the step-up page (the
    link a destructive approve gives them): the session is marked and they
    are back where the link said."""

    django_user_model.objects.create_user(username="nico", password="a long passphrase, 2026")
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(live_server.url + "/accounts/you/")
    fill_login_form(page, "nico", "a long passphrase, 2026")
    page.get_by_label("Name of the passkey").fill("Phone")
    page.get_by_role("button", name="Add a passkey").click()
    expect(page.get_by_role("table", name="Your passkeys")).to_contain_text("Phone")

    page.goto(live_server.url + "/accounts/you/step-up/?next=/accounts/you/%3Fback%3D1")
    expect(page.get_by_role("heading", name="Confirm it is you")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.get_by_role("button", name="Confirm with your passkey").click()
    expect(page.get_by_text("Confirmed: approve it now.")).to_be_visible()
    assert page.url == live_server.url + "/accounts/you/?back=1"
    session_key = next(c["value"] for c in page.context.cookies() if c["name"] == "sessionid")
    assert Session.objects.filter(session_key=session_key).exists()
    assert step_up_fresh(SessionStore(session_key=session_key))
