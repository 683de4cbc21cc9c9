"""A person's whole life in the console, in Chromium against a real sandbox:
an administrator invites them, they accept from the email's link, add their
API key and turn on two-factor sign-in, sign out and back in with a code,
are made Approver and decide an approval, then are deactivated and their
open tab is signed out. The administrator works in a browser of their own.
Codes are computed from the secret the page shows, as an app would."""

from __future__ import annotations

import re
import time
from base64 import b32decode

import pytest
from django.core import mail
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.axe import check_now, watch_with_axe
from tests.helpers import PASSWORD, SCREENSHOTS, fill_login_form, running_sandbox

pytestmark = pytest.mark.browser

INVITEE = "nina@example.com"
INVITEE_PASSWORD = "nina's own long passphrase 7"


@pytest.fixture(scope="module")
def journey_sandbox():
    """A sandbox of this module's own: its demo seed's pending approvals are
    untouched by tests elsewhere that decide them."""
    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def console(live_server, journey_sandbox, settings, transactional_db, django_user_model):
    settings.SERVICE_BASE_URL = journey_sandbox.base_url
    settings.CONSOLE_BASE_URL = ""  # links in emails point at the live server
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    admin = django_user_model.objects.create_user(username="ada", email="ada@example.com", password=PASSWORD)
    Person.objects.create(user=admin, role=Role.ADMINISTRATOR)
    return live_server


def app_code(secret: str, *, step: int | None = None) -> str:
    """What an authenticator app shows for `secret` (as the page prints it):
    now, or in the 30-second period `step`."""
    compact = secret.replace(" ", "").upper()
    key = b32decode(compact + "=" * (-len(compact) % 8))
    totp = TOTP(key, step=30, digits=6)
    totp.time = time.time() if step is None else step * 30 + 1
    return f"{totp.token():06d}"


def next_code(secret: str) -> str:
    """A code the console takes after the one that turned the app on: that of
    the period after the one it accepted (a code once used is refused again).
    Read from the device, not the clock: a set-up typed across a period's end
    is accepted one period late and the console follows the app's clock from
    then on (django-otp's drift), which a code of "now + 30 s" would miss."""
    device = TOTPDevice.objects.get(user__username=INVITEE, confirmed=True)
    return app_code(secret, step=device.last_t + 1)


def test_invited_enabled_two_factor_approved_and_deactivated(console, journey_sandbox, browser, page: Page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    admin_context = browser.new_context()
    admin = admin_context.new_page()
    admin_axe = watch_with_axe(admin)

    # The administrator invites Nina as a Member.
    admin.goto(console.url + "/people/")
    fill_login_form(admin, "ada")
    expect(admin.get_by_role("heading", name="People", exact=True)).to_be_visible()
    admin.get_by_label("Email addresses").fill(INVITEE)
    admin.get_by_label("Role", exact=True).select_option(Role.MEMBER)
    admin.get_by_role("button", name="Send invitations").click()
    expect(admin.get_by_role("row").filter(has_text=INVITEE)).to_be_visible()

    # Nina accepts from the email's link and adds her API key.
    assert [message.to for message in mail.outbox] == [[INVITEE]]
    link = re.search(r"https?://\S+/people/join/\S+/", mail.outbox[0].body).group(0)
    page.goto(link)
    expect(page.get_by_role("heading", name="Join Workspace Console")).to_be_visible()
    page.get_by_label("Your name").fill("Nina Simone")
    page.get_by_label("Password", exact=True).fill(INVITEE_PASSWORD)
    page.get_by_label("Password again").fill(INVITEE_PASSWORD)
    page.get_by_role("button", name="Create my account").click()
    expect(page.get_by_role("heading", name="Add an API key")).to_be_visible()
    page.get_by_label("Label").fill("Acme")
    page.get_by_label("API key").fill(journey_sandbox.mint_key("demo"))
    page.get_by_role("button", name="Check and save key").click()
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()

    # She turns on two-factor sign-in, typing the secret into her "app".
    page.get_by_role("link", name="Two-factor sign-in").click()
    expect(page.get_by_role("img", name=re.compile("QR code"))).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "accounts-two-factor-setup.png"), full_page=True)
    page.get_by_text("Can't scan it? Type the secret instead").click()
    secret = page.locator("#two-factor-secret").inner_text()
    page.get_by_label("Code from the app").fill(app_code(secret))
    page.get_by_role("button", name="Turn on two-factor sign-in").click()
    codes = page.get_by_role("list", name="Recovery codes").get_by_role("listitem")
    expect(codes).to_have_count(10)
    page.screenshot(path=str(SCREENSHOTS / "accounts-recovery-codes.png"), full_page=True)
    page.get_by_role("link", name="I have saved them").click()
    expect(page.get_by_text("10 recovery codes left.", exact=False)).to_be_visible()

    # Out, and back in: the password, then a code.
    page.get_by_role("button", name="Log out").click()
    page.goto(console.url + "/")
    fill_login_form(page, INVITEE, INVITEE_PASSWORD)
    expect(page.get_by_role("heading", name="Enter your code")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "accounts-login-code.png"), full_page=True)
    page.get_by_label("Code").fill(next_code(secret))
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()

    # The administrator makes her an Approver; she decides an approval.
    admin.goto(console.url + "/people/")
    admin.get_by_role("link", name="Nina Simone").click()
    admin.get_by_role("combobox", name="Role", exact=True).select_option(Role.APPROVER)
    admin.get_by_role("button", name="Change role…").click()
    admin.get_by_role("button", name="Make them Approver").click()
    expect(admin.locator("dd").filter(has_text="Approver")).to_be_visible()

    page.goto(console.url + "/approvals/")
    expect(page.get_by_role("heading", name="Approvals", exact=True)).to_be_visible()
    queue = page.get_by_role("list", name="Approvals")
    lead = queue.get_by_role("listitem").filter(has_text="Lead qualifier").first
    lead_id = lead.get_attribute("id")
    # The queue lists approvals; the selected one's card beside it decides.
    lead.get_by_role("link").first.click()
    card = page.get_by_role("region", name="The selected approval")
    expect(card).to_contain_text("Lead qualifier")
    card.get_by_role("button", name="Reject", exact=True).click()
    expect(page.locator(f"#{lead_id}").get_by_text("Rejected", exact=True)).to_be_visible()

    # Deactivated: her open tab is signed out at its next request.
    admin.reload()
    admin.get_by_role("button", name="Deactivate…").click()
    admin.get_by_role("button", name=f"Deactivate {INVITEE}").click()
    expect(admin.get_by_text("deactivated", exact=True).first).to_be_visible()

    # Her tab's next request signs it out: the queue's own poll may get there first
    # (HX-Redirect to the login page), so the next request here is a reload, not a nav click;
    # a reload the poll's redirect overtakes is aborted, and that redirect is the sign-out.
    try:
        page.reload()
    except PlaywrightError as exc:
        assert "ERR_ABORTED" in str(exc), exc
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    fill_login_form(page, INVITEE, INVITEE_PASSWORD)
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()

    check_now(admin, admin_axe)
    admin_context.close()
    failures = admin_axe.failures()
    assert not failures, "axe on the administrator's pages:\n" + "\n".join(failures)
