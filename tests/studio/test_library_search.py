"""The library to work in (issue #21, item 5): search, sort and type read a
bounded number of pages and narrow them in the console (the contract's lists
take only limit/cursor), saying how much was read; an image's actions open
its Content Apps with the board and the image already picked."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from sandbox.content_apps import list_apps
from studio.library import SEARCH_PAGE_SIZE, SEARCH_PAGES
from tests.html import one, select, text_of, texts

BOARD_ID = "5b0e1f4a-0000-4000-8000-0000000000b1"
IMAGE_ID = "5b0e1f4a-0000-4000-8000-000000000101"


def document(n: int, **extra) -> dict:
    return {"id": f"5b0e1f4a-0000-4000-8000-{n:012d}", "name": f"Filler {n}", "doc_type": "report", **extra}


def two_pages(remote, seeded: dict):
    """Page 1 is 100 newer documents; the seeded one is on page 2."""
    first = [document(n, updated_at=f"2026-11-{20 - n % 10:02d}T10:00:00Z") for n in range(1, 101)]
    return remote.get("/v1/documents").mock(
        side_effect=[
            httpx.Response(200, json={"data": first, "next_cursor": "c2"}),
            httpx.Response(200, json={"data": [seeded], "next_cursor": None}),
        ]
    )


def test_search_finds_a_seeded_document_on_page_two_and_says_what_it_read(db, remote, api_key, logged_in_client):
    seeded = document(999, name="Spring gala proposal", doc_type="proposal", updated_at="2026-01-02T10:00:00Z")
    route = two_pages(remote, seeded)
    page = logged_in_client.get(reverse("studio:library", args=["documents"]), {"q": "gala SPRING"}).content
    assert texts(page, ".studio-library h3") == ["Spring gala proposal"]
    said = text_of(one(page, "#library-items [role=status]"))
    assert "1 found in the 101 documents the console read (2 pages)" in said
    assert route.call_count == 2 and route.calls.last.request.url.params["cursor"] == "c2"
    assert route.calls[0].request.url.params["limit"] == str(SEARCH_PAGE_SIZE)
    assert one(page, ".studio-library-filter input[name=q]")["value"] == "gala SPRING"  # what was typed stays
    assert not select(page, "a[rel=next]")  # one narrowed list, not the service's pages


def test_a_search_reads_at_most_a_bounded_number_of_pages_and_says_there_is_more(db, remote, api_key, logged_in_client):
    route = remote.get("/v1/documents").mock(
        return_value=httpx.Response(200, json={"data": [document(1)], "next_cursor": "again"})
    )
    page = logged_in_client.get(reverse("studio:library", args=["documents"]), {"q": "nothing like it"}).content
    assert route.call_count == SEARCH_PAGES
    assert "the service has more" in text_of(one(page, "#library-items [role=status]"))
    assert "No documents match this search." in text_of(one(page, ".empty-state"))


def test_sort_by_name_and_filter_by_type(db, remote, api_key, logged_in_client):
    remote.get("/v1/documents").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    document(1, name="b deck", doc_type="deck"),
                    document(2, name="A deck", doc_type="deck"),
                    document(3, name="C invoice", doc_type="invoice"),
                ]
            },
        )
    )
    url = reverse("studio:library", args=["documents"])
    by_name = logged_in_client.get(url, {"sort": "name"}).content
    assert texts(by_name, ".studio-library h3") == ["A deck", "b deck", "C invoice"]
    decks = logged_in_client.get(url, {"sort": "name", "type": "deck"}).content
    assert texts(decks, ".studio-library h3") == ["A deck", "b deck"]


def test_sort_by_date_puts_the_newest_first_and_the_undated_last(db, remote, api_key, logged_in_client):
    remote.get("/v1/documents").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    document(1, name="Old", updated_at="2025-01-01T00:00:00Z"),
                    document(2, name="Undated"),
                    document(3, name="New", updated_at="2026-06-01T00:00:00Z"),
                ]
            },
        )
    )
    url = reverse("studio:library", args=["documents"])
    oldest = logged_in_client.get(url, {"sort": "oldest"}).content
    assert texts(oldest, ".studio-library h3") == ["Undated", "Old", "New"]
    newest = logged_in_client.get(url, {"sort": "newest", "type": "report"}).content
    assert texts(newest, ".studio-library h3") == ["New", "Old", "Undated"]


def test_a_sort_that_is_not_offered_is_said_on_its_field_and_the_list_still_shows(
    db, remote, api_key, logged_in_client
):
    remote.get("/v1/documents").mock(return_value=httpx.Response(200, json={"data": [document(1)]}))
    page = logged_in_client.get(reverse("studio:library", args=["documents"]), {"sort": "sideways", "q": "x"}).content
    assert one(page, "select[name=sort]")["aria-invalid"] == "true"
    assert texts(page, ".studio-library h3") == ["Filler 1"]
    assert one(page, ".studio-library-filter input[name=q]")["value"] == "x"


def images_service(remote, images: list[dict]):
    remote.get("/v1/images/boards").mock(
        return_value=httpx.Response(200, json={"data": [{"id": BOARD_ID, "name": "Spring campaign"}]})
    )
    return remote.get("/v1/images").mock(return_value=httpx.Response(200, json={"data": images}))


def test_image_tiles_show_prompt_and_date_and_a_selection_form_that_works_without_javascript(
    db, remote, api_key, logged_in_client
):
    images_service(
        remote,
        [
            {
                "id": IMAGE_ID,
                "url": "https://cdn.example/1.png",
                "prompt": "A red bike by the sea",
                "board_id": BOARD_ID,
                "created_at": "2026-11-20T10:00:00Z",
            }
        ],
    )
    page = logged_in_client.get(reverse("studio:library", args=["images"])).content
    tile = one(page, ".studio-gallery > li")
    assert "A red bike by the sea" in text_of(tile) and "Made 20 Nov 2026" in text_of(tile)
    form = one(page, "form#library-selection")
    # The boxes post to the selection kept in the session (studio/selection.py), then back here.
    assert form["action"] == reverse("studio:selection_update") and form["method"] == "post"
    assert one(form, "input[type=checkbox][name=image]")["value"] == IMAGE_ID
    assert one(form, "input[name=shown]")["value"] == IMAGE_ID
    assert one(tile, "a[data-lightbox]")["href"] == reverse("studio:library_item", args=["images", IMAGE_ID])
    assert [option["value"] for option in select(page, "select[name=board] option")] == ["", BOARD_ID]


def test_an_images_search_matches_the_prompt_within_the_chosen_board(db, remote, api_key, logged_in_client):
    route = images_service(
        remote,
        [
            {"id": IMAGE_ID, "url": "https://cdn.example/1.png", "prompt": "A red bike"},
            {"id": IMAGE_ID[:-1] + "2", "url": "https://cdn.example/2.png", "prompt": "A blue car"},
        ],
    )
    page = logged_in_client.get(reverse("studio:library", args=["images"]), {"q": "bike", "board": BOARD_ID}).content
    assert [img["alt"] for img in select(page, ".studio-gallery img")] == ["A red bike"]
    assert route.calls.last.request.url.params["board_id"] == BOARD_ID


@pytest.fixture
def catalogue(remote):
    remote.get("/v1/studio/apps").mock(return_value=httpx.Response(200, json={"apps": list_apps()}))
    return images_service(
        remote,
        [{"id": IMAGE_ID, "url": "https://cdn.example/1.png", "prompt": "A red bike", "board_id": BOARD_ID}],
    )


def test_remove_background_opens_from_the_gallery_with_the_board_and_the_image_picked(
    db, api_key, catalogue, logged_in_client
):
    image_page = logged_in_client.get(reverse("studio:library_item", args=["images", IMAGE_ID])).content
    actions = {text_of(a): a["href"] for a in select(image_page, ".studio-image-actions a")}
    assert "Remove background" in actions and "Upscale" in actions and "Generate images" in actions
    remove = actions["Remove background"]
    assert remove == (
        reverse("studio:app", args=["image", "remove-background"]) + f"?board_id={BOARD_ID}&source_asset_id={IMAGE_ID}"
    )
    form = logged_in_client.get(remove).content
    assert one(form, f"#app-form input[name=source_asset_id][value='{IMAGE_ID}']").has_attr("checked")
    assert one(form, f"#app-form select[name=board_id] option[value='{BOARD_ID}']").has_attr("selected")


def test_a_read_only_member_sees_the_image_and_its_download_without_app_actions(
    db, api_key, catalogue, logged_in_client
):
    api_key.member_role = "viewer"
    api_key.save()
    html = logged_in_client.get(reverse("studio:library_item", args=["images", IMAGE_ID])).content
    assert not select(html, ".studio-image-actions")
    assert (
        one(html, "a[href^='/studio/library/images/zip']")["href"]
        == f"{reverse('studio:library_zip')}?image={IMAGE_ID}"
    )


def test_a_page_turn_of_images_reads_the_images_only(db, remote, api_key, logged_in_client):
    boards = remote.get("/v1/images/boards").mock(return_value=httpx.Response(200, json={"data": []}))
    images = remote.get("/v1/images").mock(
        return_value=httpx.Response(
            200, json={"data": [{"id": IMAGE_ID, "url": "https://cdn.example/1.png", "prompt": "A red bike"}]}
        )
    )
    url = reverse("studio:library", args=["images"]) + "?back=&cursor=c2"
    region = logged_in_client.get(url, HTTP_HX_REQUEST="true").content
    assert [img["alt"] for img in select(region, ".studio-gallery img")] == ["A red bike"]
    assert images.call_count == 1 and boards.call_count == 0
