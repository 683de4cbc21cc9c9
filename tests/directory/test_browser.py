"""An Administrator connects a directory at phone width; the directory (a
SCIM client against the live console) deactivates Bob, and Bob's open tab
lands on the login page saying why (axe watches every page through the
`page` fixture)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from dashboard.people.models import Person
from dashboard.people.roles import Role
from tests.helpers import PASSWORD, fill_login_form

pytestmark = pytest.mark.browser


@pytest.fixture
def console(live_server, transactional_db, django_user_model):
    ada = django_user_model.objects.create_user(username="ada", password=PASSWORD)
    Person.objects.create(user=ada, role=Role.ADMINISTRATOR)
    bob = django_user_model.objects.create_user(username="bob", password=PASSWORD)
    Person.objects.create(user=bob, role=Role.MEMBER)
    return live_server


def test_a_directory_connected_at_375_px_deactivates_bob_and_his_tab_is_signed_out(console, page: Page, browser):
    bobs = browser.new_context().new_page()
    bobs.goto(console.url + "/accounts/you/")
    fill_login_form(bobs, "bob")
    expect(bobs.get_by_role("heading", level=1)).to_be_visible()

    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(console.url + "/people/")
    fill_login_form(page, "ada")
    page.get_by_role("link", name="Directory provisioning").click()
    expect(page.get_by_role("heading", name="Directory provisioning", level=1)).to_be_visible()
    page.get_by_label("Directory", exact=True).fill("Okta")
    page.get_by_role("button", name="Make the token").press("Enter")
    token = page.get_by_role("textbox", name="Token", exact=True).input_value()
    base = page.get_by_role("textbox", name="SCIM base URL").input_value()
    assert token.startswith("scim_") and base == console.url + "/scim/v2/"
    assert not page.evaluate("() => document.documentElement.scrollWidth > document.documentElement.clientWidth")

    okta = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"})
    found = okta.get("Users", params={"filter": 'userName eq "bob"'}).json()["Resources"][0]
    answer = okta.patch(
        f"Users/{found['id']}",
        json={"Operations": [{"op": "Replace", "path": "active", "value": "False"}]},
        headers={"Content-Type": "application/scim+json"},
    )
    assert answer.status_code == 200 and answer.json()["active"] is False

    bobs.reload()
    expect(bobs.get_by_role("heading", name="Log in")).to_be_visible()
    expect(bobs.locator("#messages")).to_contain_text("deactivated your account")
    page.goto(console.url + "/people/directory/")
    expect(page.get_by_role("row", name="Okta")).to_contain_text("from 127.0.0.1")
    bobs.context.close()
