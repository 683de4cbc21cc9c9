"""The library to work in, in Chromium against the real sandbox over HTTP
(axe runs on every page through the `page` fixture): a search finds a
document the newer ones pushed to page 2, and an image's "Remove background"
opens from a board's gallery with the board and the image already picked."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from studio.library import PAGE_SIZE
from tests.helpers import fill_login_form


@pytest.mark.browser
def test_search_finds_a_document_on_page_two_and_remove_background_opens_prefilled(console, sandbox, page: Page):
    workspace = next(ws for ws in sandbox.store.list("workspace") if ws["name"] == "Acme Marketing")
    for n in range(PAGE_SIZE + 3):  # newer documents: the seeded proposal moves to page 2
        sandbox.store.insert(
            "document", {"name": f"Weekly note {n}", "doc_type": "report", "content": "-"}, workspace_id=workspace["id"]
        )
    page.goto(console.url + "/studio/library/documents/")
    fill_login_form(page, "dora")
    expect(page.get_by_role("heading", name="Documents")).to_be_visible()
    expect(page.get_by_role("link", name="Q3 partnership proposal", exact=True)).to_have_count(0)

    page.get_by_label("Search by name or prompt").fill("partnership")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_role("link", name="Q3 partnership proposal", exact=True)).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="1 found")).to_be_visible()
    expect(page.get_by_label("Search by name or prompt")).to_have_value("partnership")
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scroll
    page.set_viewport_size({"width": 1366, "height": 900})

    page.get_by_role("link", name="Image boards").click()
    page.locator(".studio-library h3 a").first.click()
    page.get_by_role("link", name="Use this image").first.click()
    expect(page.get_by_role("heading", name="Do more with this image")).to_be_visible()
    page.get_by_role("link", name="Remove background").click()
    page.wait_for_url("**/apps/image/remove-background/**")
    assert "board_id=" in page.url and "source_asset_id=" in page.url
    expect(page.locator("#app-form input[name=source_asset_id]:checked")).to_have_count(1)


@pytest.mark.browser
def test_shift_selects_a_range_and_the_lightbox_opens_and_closes_by_keyboard(console, page: Page):
    page.goto(console.url + "/studio/library/images/")
    fill_login_form(page, "dora")
    boxes = page.get_by_role("checkbox", name="Select")
    expect(boxes.nth(2)).to_be_visible()
    boxes.nth(0).click()
    boxes.nth(2).click(modifiers=["Shift"])
    expect(page.locator("[data-library-pick]:checked")).to_have_count(3)

    page.locator("a[data-lightbox]").first.click()
    lightbox = page.get_by_role("dialog", name="Image")
    expect(lightbox).to_be_visible()
    expect(lightbox.get_by_role("link", name="Details and actions")).to_have_attribute(
        "href", page.locator("a[data-lightbox]").first.get_attribute("href") or ""
    )
    page.keyboard.press("Escape")
    expect(lightbox).to_be_hidden()


@pytest.mark.browser
def test_a_selection_goes_to_a_new_collection_and_its_zip_is_built_by_the_worker(
    console, eager_celery, page: Page, settings, tmp_path
):
    """Images chosen in the library: added to a new collection (opened as a
    filter of the library), then packed into a ZIP by the worker (Celery runs
    inline here) and offered for download. axe checks each page."""
    settings.STUDIO_ZIP_ROOT = str(tmp_path / "zips")
    page.goto(console.url + "/studio/library/images/")
    fill_login_form(page, "dora")
    boxes = page.get_by_role("checkbox", name="Select")
    boxes.nth(0).check()
    boxes.nth(1).check()
    page.get_by_role("button", name="Add selected to a collection or favourites").click()
    expect(page.get_by_role("heading", name="2 images")).to_be_visible()
    page.get_by_role("textbox", name="Name").fill("Spring picks")
    page.get_by_role("button", name="Make it and add").click()
    expect(page.get_by_role("heading", name="Spring picks", level=1)).to_be_visible()
    expect(page.locator(".studio-library > li")).to_have_count(2)
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scroll
    page.set_viewport_size({"width": 1366, "height": 900})

    page.get_by_role("navigation", name="Library").get_by_role("link", name="Images").click()
    boxes = page.get_by_role("checkbox", name="Select")
    boxes.nth(0).check()
    boxes.nth(2).check()
    page.get_by_role("button", name="Download selected as ZIP").click()
    page.get_by_role("button", name="Build the ZIP").click()
    expect(page.get_by_role("heading", name="Ready")).to_be_visible(timeout=20_000)
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the ZIP").click()
    assert download.value.suggested_filename == "images.zip"
