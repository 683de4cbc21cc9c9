"""The schema pages in Chromium against the real sandbox over HTTP: create an
object with one field of every type, find it in the list, then rename, add and
remove fields in its settings."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Page, expect

from objects.schema import CHOICE_TYPES, FIELD_TYPES, snake_case
from tests.helpers import PASSWORD, SCREENSHOTS, csp_violations, fill_login_form


@pytest.fixture
def schema_console(live_server, sandbox, settings, transactional_db, django_user_model):
    from dashboard.keys.services import api_key_add

    settings.SERVICE_BASE_URL = sandbox.base_url
    user = django_user_model.objects.create_user(username="dana", password=PASSWORD)
    api_key_add(user=user, label="Demo", secret=sandbox.demo_key)
    return live_server


def log_in(page: Page, base_url: str) -> None:
    page.goto(base_url + "/accounts/login/")
    fill_login_form(page, "dana")
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


@pytest.mark.browser
def test_create_an_object_with_every_field_type_then_edit_its_fields(schema_console, page: Page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    violations = csp_violations(page)
    plural = f"Schema trials {uuid.uuid4().hex[:6]}"
    key = snake_case(plural)
    log_in(page, schema_console.url)

    page.goto(schema_console.url + "/objects/new/")
    expect(page.get_by_role("heading", name="New object")).to_be_visible()
    page.get_by_label("Singular name").fill("Schema trial")
    page.get_by_label("Plural name").fill(plural)
    expect(page.locator("#derived-key")).to_contain_text(f"Key: {key}")  # shown live as it will be made
    page.get_by_label("Description").fill("One field of every type")
    page.locator(".icon-choice[title='Rocket']").click()

    rows = page.locator("[data-field-row]")
    for index, (field_type, label) in enumerate(FIELD_TYPES):
        if index:
            page.get_by_role("button", name="Add field").click()
            expect(rows).to_have_count(index + 1)
        row = rows.nth(index)
        row.get_by_label("Label", exact=True).fill(f"My {label}")
        row.get_by_label("Type").select_option(field_type)
        editor = row.locator("[data-options-editor]")
        if field_type in CHOICE_TYPES:
            expect(editor).to_be_visible()
            row.get_by_label("Option label").first.fill("First choice")
            row.get_by_role("button", name="Add option").click()
            expect(row.get_by_label("Option label")).to_have_count(2)
            row.get_by_label("Option label").nth(1).fill("Second choice")
        else:
            expect(editor).to_be_hidden()
    # A row added by mistake, then removed in place.
    page.get_by_role("button", name="Add field").click()
    expect(rows).to_have_count(16)
    rows.nth(15).get_by_label("Label", exact=True).fill("Mistake")
    rows.nth(15).get_by_role("button", name="Remove this field").click()
    expect(rows).to_have_count(15)

    page.screenshot(path=str(SCREENSHOTS / "objects_new.png"), full_page=True)

    # Enter in any input submits the whole form (never a builder button such as "Remove this field").
    rows.nth(0).get_by_label("Label", exact=True).press("Enter")
    expect(page.get_by_role("heading", name=f"{plural} settings")).to_be_visible()
    expect(page.get_by_role("status")).to_contain_text(f"Created {plural}")
    expect(page.locator(".object-facts")).to_contain_text(key)
    for _field_type, label in FIELD_TYPES:
        expect(page.locator("#settings-form")).to_contain_text(f"my_{snake_case(label)}")
    expect(page.get_by_role("textbox", name="Label", exact=True)).to_have_count(15)
    page.screenshot(path=str(SCREENSHOTS / "objects_settings.png"), full_page=True)

    # The list shows it with its key and field count.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Objects").click()
    row = page.get_by_role("row").filter(has_text=key)
    expect(page.get_by_role("heading", name="Objects", exact=True)).to_be_visible()
    # The session's sandbox holds the objects of earlier tests too: page on until it shows.
    for _ in range(10):
        if row.count() or not page.get_by_role("link", name="Next page").count():
            break
        # The next page replaces this one's rows: wait for that before looking again.
        shown = page.get_by_role("row").nth(1).element_handle()
        page.get_by_role("link", name="Next page").click()
        shown.wait_for_element_state("hidden")
        expect(page.get_by_role("link", name="Previous page")).to_be_visible()
    expect(row).to_contain_text(plural)
    expect(row.get_by_role("cell", name="15", exact=True)).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "objects_list.png"), full_page=True)
    page.get_by_role("link", name="System").click()
    expect(page).to_have_url(re.compile(r"kind=system"))
    expect(page.get_by_role("cell", name="agents", exact=True)).to_be_visible()
    page.go_back()
    expect(page.get_by_role("row").filter(has_text=key)).to_be_visible()

    # Settings: rename a field and add one.
    page.get_by_role("row").filter(has_text=key).get_by_role("link", name="Settings").click()
    first_row = page.locator("[data-field-row]").first
    first_row.get_by_label("Label", exact=True).fill("Headline")
    page.get_by_role("button", name="Add field").click()
    expect(page.locator("[data-field-row]")).to_have_count(16)
    new_row = page.locator("[data-field-row]").last
    new_row.get_by_label("Label", exact=True).fill("Extra notes")
    new_row.get_by_label("Type").select_option("long_text")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("status")).to_contain_text("Saved.")
    expect(page.locator("[data-field-row]").first.get_by_label("Label", exact=True)).to_have_value("Headline")
    extra = page.locator("[data-field-row]").filter(has_text="extra_notes")
    expect(extra.get_by_label("Type")).to_have_value("long_text")

    # Remove it, after the confirmation.
    extra.get_by_role("link", name="Remove field…").click()
    confirmation = page.get_by_role("alertdialog")
    expect(confirmation).to_contain_text("Its values stay on existing records but are no longer shown")
    confirmation.get_by_role("button", name="Remove the field").click()
    expect(page.get_by_role("status")).to_contain_text("Removed the field “Extra notes”")
    expect(page.locator("[data-field-row]")).to_have_count(15)
    expect(page.locator("#settings-form")).not_to_contain_text("extra_notes")
    assert violations == []
