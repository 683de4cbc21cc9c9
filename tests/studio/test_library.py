"""The Studio library: six lists with the one cursor pager, an item page
each, and "edit with the director" (the composer's picker)."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from tests.html import one, select, text_of, texts

DOC_ID = "5b0e1f4a-0000-4000-8000-0000000000d1"
BOARD_ID = "5b0e1f4a-0000-4000-8000-0000000000b1"


def test_a_list_pages_with_the_one_cursor_pager_and_offers_edit_with_the_director(
    db, remote, api_key, logged_in_client
):
    route = remote.get("/v1/documents").mock(
        side_effect=[
            httpx.Response(
                200,
                json={
                    "data": [{"id": DOC_ID, "name": "Q3 proposal", "doc_type": "proposal", "word_count": 420}],
                    "next_cursor": "c2",
                },
            ),
            httpx.Response(200, json={"documents": [{"id": "d2", "name": "Resume"}], "next_cursor": None}),
        ]
    )
    page = logged_in_client.get(reverse("studio:library", args=["documents"])).content
    card = one(page, ".studio-library > li")
    assert text_of(one(card, "h3")) == "Q3 proposal" and "proposal · 420 words" in text_of(card)
    edit = one(card, "a.btn-primary")
    assert edit["href"] == f"{reverse('studio:index')}?studio=document&artifact_id={DOC_ID}"
    next_link = one(page, "a[rel=next]")
    assert next_link["href"] == "?back=&cursor=c2" and next_link["hx-target"] == "#library-items"
    assert text_of(one(page, ".studio-library-tabs [aria-current=page]")) == "Documents"

    second = logged_in_client.get(
        reverse("studio:library", args=["documents"]) + "?back=&cursor=c2", HTTP_HX_REQUEST="true"
    )
    assert texts(second.content, ".studio-library h3") == ["Resume"]
    assert one(second.content, "a[rel=prev]")["href"] == "?"
    assert route.calls.last.request.url.params["cursor"] == "c2"


def test_a_document_page_shows_its_content(db, remote, api_key, logged_in_client):
    remote.get(f"/v1/documents/{DOC_ID}").mock(
        return_value=httpx.Response(
            200, json={"id": DOC_ID, "name": "Q3 proposal", "content": "## Why us\n\nWe are *fast*."}
        )
    )
    page = logged_in_client.get(reverse("studio:library_item", args=["documents", DOC_ID])).content
    assert text_of(one(page, "h1")) == "Q3 proposal"
    assert text_of(one(page, ".document-content h2")) == "Why us"
    assert one(page, ".page-header a.btn-primary")["href"].endswith(f"artifact_id={DOC_ID}")


def test_a_board_page_shows_its_images(db, remote, api_key, logged_in_client):
    remote.get("/v1/images/boards").mock(
        return_value=httpx.Response(200, json={"data": [{"id": BOARD_ID, "name": "Spring campaign", "image_count": 1}]})
    )
    remote.get("/v1/images").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [{"id": "i1", "url": "https://cdn.example/1.png", "width": 4, "height": 5, "prompt": "A bike"}]
            },
        )
    )
    page = logged_in_client.get(reverse("studio:library_item", args=["boards", BOARD_ID])).content
    assert text_of(one(page, "h1")) == "Spring campaign"
    assert one(page, ".studio-gallery img")["alt"] == "A bike"


@pytest.mark.parametrize(("status", "shown"), [(404, 404), (500, 502)])
def test_a_missing_or_failing_item_is_an_error_page_never_a_500(db, remote, api_key, logged_in_client, status, shown):
    remote.get(f"/v1/documents/{DOC_ID}").mock(
        return_value=httpx.Response(status, json={"error": {"type": "x", "message": "no"}, "request_id": "req_lib"})
    )
    response = logged_in_client.get(reverse("studio:library_item", args=["documents", DOC_ID]))
    assert response.status_code == shown
    assert "req_lib" in text_of(one(response.content, ".remote-error"))
    assert select(response.content, "h1")


def test_items_with_ids_the_console_cannot_link_are_left_out(db, remote, api_key, logged_in_client):
    remote.get("/v1/websites").mock(
        return_value=httpx.Response(
            200, json={"data": [{"id": "a/b", "name": "Odd"}, {"id": "ok", "name": "Fine"}, {"name": "No id"}]}
        )
    )
    page = logged_in_client.get(reverse("studio:library", args=["websites"])).content
    assert texts(page, ".studio-library h3") == ["Fine"]


PAGES = [
    ("studio:apps", [], "/v1/studio/apps"),
    ("studio:app", ["image", "generate"], "/v1/studio/apps"),
    ("studio:library", ["websites"], "/v1/websites"),
    ("studio:library", ["boards"], "/v1/images/boards"),
    ("studio:library_item", ["videos", DOC_ID], "/v1/videos"),
    ("studio:library_item", ["images", DOC_ID], "/v1/images"),
]


@pytest.mark.parametrize(("name", "args", "path"), PAGES)
@pytest.mark.parametrize(
    ("status", "kind", "shown"), [(401, "authentication", 401), (429, "rate_limited", 429), (503, "server_error", 502)]
)
def test_every_studio_page_shows_a_remote_error_as_a_page_never_a_500(
    db, remote, api_key, logged_in_client, name, args, path, status, kind, shown
):
    remote.get(path).mock(
        return_value=httpx.Response(status, json={"error": {"type": kind, "message": "no"}, "request_id": "req_page"})
    )
    response = logged_in_client.get(reverse(name, args=args))
    assert response.status_code == shown
    box = one(response.content, ".remote-error")
    assert "req_page" in text_of(box) and one(box, "h1")


def test_an_item_that_is_not_in_the_list_is_a_404_page(db, remote, api_key, logged_in_client):
    remote.get("/v1/videos").mock(return_value=httpx.Response(200, json={"data": [], "next_cursor": None}))
    response = logged_in_client.get(reverse("studio:library_item", args=["videos", DOC_ID]))
    assert response.status_code == 404 and "video project" in text_of(one(response.content, ".remote-error"))
