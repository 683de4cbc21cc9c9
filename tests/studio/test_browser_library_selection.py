"""The library's selection in Chromium against the real sandbox (issue #36,
item 3; axe runs on every page through the `page` fixture): images ticked on
two pages stay selected, "Select all on this page" by keyboard, the count
with "Clear" in the library's tabs, then a ZIP of 100 from the selection
built by the worker (Celery inline) holding 100 entries; at 375 px no
sideways scroll."""

from __future__ import annotations

import zipfile

import pytest
from playwright.sync_api import Page, expect

from sandbox.library import create_image_asset
from tests.helpers import SCREENSHOTS, fill_login_form


@pytest.mark.browser
def test_select_100_images_across_pages_and_get_a_zip_of_100_from_the_worker(
    console, sandbox, eager_celery, page: Page, settings, tmp_path
):
    settings.STUDIO_ZIP_ROOT = str(tmp_path / "zips")
    workspace = next(ws for ws in sandbox.store.list("workspace") if ws["name"] == "Acme Marketing")
    for n in range(150):
        create_image_asset(None, board_id=None, prompt=f"Bike {n}", store=sandbox.store, workspace_id=workspace["id"])
    page.goto(console.url + "/studio/library/images/")
    fill_login_form(page, "dora")
    count = page.locator("#selection-count")
    expect(count).to_have_text("No images selected")

    # Page 1: two boxes ticked (htmx posts each; the count region swaps).
    boxes = page.get_by_role("checkbox", name="Select")
    boxes.nth(0).check()
    expect(count).to_contain_text("1 image selected")
    boxes.nth(1).check()
    expect(count).to_contain_text("2 images selected")

    # Page 2: the selection stays; the whole page by keyboard.
    page.get_by_role("link", name="Next page").click()
    expect(page.get_by_text("Page 2")).to_be_visible()
    expect(count).to_contain_text("2 images selected")
    select_page = page.get_by_role("button", name="Select all on this page")
    select_page.focus()
    page.keyboard.press("Enter")
    expect(count).to_contain_text("26 images selected")

    # Pages 3 to 6: the rest by the same button, till the cap says so.
    for number in (3, 4, 5, 6):
        page.get_by_role("link", name="Next page").click()
        expect(page.get_by_text(f"Page {number}")).to_be_visible()
        page.get_by_role("button", name="Select all on this page").click()
    expect(count).to_contain_text("100 images selected")
    expect(page.get_by_text("The selection holds at most 100 images")).to_be_visible()
    page.set_viewport_size({"width": 375, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scroll
    page.set_viewport_size({"width": 1366, "height": 900})

    count.get_by_role("link", name="100 images selected").click()
    expect(page.get_by_role("heading", name="100 images selected")).to_be_visible()
    page.get_by_role("button", name="Download as ZIP").click()
    expect(page.get_by_role("heading", name="100 images")).to_be_visible()
    page.get_by_role("button", name="Build the ZIP").click()
    expect(page.get_by_role("heading", name="Ready")).to_be_visible(timeout=60_000)
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the ZIP").click()
    path = tmp_path / "got.zip"
    download.value.save_as(path)
    with zipfile.ZipFile(path) as archive:
        names = [name for name in archive.namelist() if name != "not-included.txt"]
    assert len(names) == 100

    # Clear empties it, on the page it was cleared from.
    page.goto(console.url + "/studio/library/images/")
    page.locator("#selection-count").get_by_role("button", name="Clear").click()
    expect(page.locator("#selection-count")).to_have_text("No images selected")


@pytest.mark.browser
def test_on_a_phone_the_first_screen_shows_images_and_the_actions_stay_at_hand(console, sandbox, page: Page):
    """At 375 x 812 the tabs take one row and the selection's actions come
    after the images, held at the screen's bottom while they scroll; with the
    script on, a Shift range is saved with the box's own change, so the no-JS
    "Update the selection" button is not shown."""
    workspace = next(ws for ws in sandbox.store.list("workspace") if ws["name"] == "Acme Marketing")
    for n in range(30):
        create_image_asset(None, board_id=None, prompt=f"Helmet {n}", store=sandbox.store, workspace_id=workspace["id"])
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(console.url + "/studio/library/images/")
    fill_login_form(page, "dora")
    first = page.get_by_role("img").first
    expect(first).to_be_visible()
    assert first.bounding_box()["y"] < 812  # an image starts on the first screen
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    expect(page.get_by_role("button", name="Update the selection")).to_be_hidden()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "studio-library-phone.png"))

    # Scrolled into the middle of the images, the actions are still on screen.
    boxes = page.get_by_role("checkbox", name="Select")
    boxes.nth(6).scroll_into_view_if_needed()
    zip_button = page.get_by_role("button", name="Download selected as ZIP")
    box = zip_button.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 812
    page.screenshot(path=str(SCREENSHOTS / "studio-library-phone-scrolled.png"))

    # A Shift range: saved with the clicked box's own change (no button).
    boxes.nth(0).check()
    expect(page.locator("#selection-count")).to_contain_text("1 image selected")
    boxes.nth(3).click(modifiers=["Shift"])
    expect(page.locator("#selection-count")).to_contain_text("4 images selected")
    page.reload()
    expect(page.locator("#selection-count")).to_contain_text("4 images selected")
