"""Studio pictures on a host the Content-Security-Policy does not list (a
deployment's unlisted CDN) are named, with a link that opens them; those on
a listed host (tests/studio/conftest.py: ASSET_HOST) stay pictures."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from sandbox.content_apps import list_apps
from tests.html import one, select, text_of
from tests.studio.conftest import ASSET_HOST

pytestmark = pytest.mark.django_db

BOARD_ID = "5b0e1f4a-0000-4000-8000-0000000000b1"
LISTED = f"{ASSET_HOST}/1.png"
UNLISTED = "https://files.elsewhere.example/2.png"
REASON = "not shown here (the console loads images only from the service's hosts)"
IMAGES = {
    "data": [
        {"id": "i1", "url": LISTED, "width": 4, "height": 5, "prompt": "A bike"},
        {"id": "i2", "url": UNLISTED, "width": 4, "height": 5, "prompt": "A boat"},
    ]
}


def test_a_boards_gallery_shows_listed_hosts_and_names_the_others(remote, api_key, logged_in_client):
    remote.get("/v1/images/boards").mock(
        return_value=httpx.Response(200, json={"data": [{"id": BOARD_ID, "name": "Spring campaign", "image_count": 2}]})
    )
    remote.get("/v1/images").mock(return_value=httpx.Response(200, json=IMAGES))

    page = logged_in_client.get(reverse("studio:library_item", args=["boards", BOARD_ID])).content

    listed, unlisted = select(page, ".studio-gallery figure")
    assert one(listed, "img")["src"] == LISTED
    assert select(unlisted, "img") == []
    note = one(unlisted, ".image-elsewhere")
    assert text_of(note).startswith(f"Image on files.elsewhere.example — {REASON}")
    assert (one(note, "a")["href"], one(note, "a")["target"]) == (UNLISTED, "_blank")


def test_the_image_list_names_an_unlisted_host_and_still_links_to_the_images_page(remote, api_key, logged_in_client):
    remote.get("/v1/images").mock(return_value=httpx.Response(200, json=IMAGES))
    remote.get("/v1/images/boards").mock(return_value=httpx.Response(200, json={"data": []}))  # the board filter

    page = logged_in_client.get(reverse("studio:library", args=["images"])).content

    listed, unlisted = select(page, "#library-items li.card")
    assert one(listed, "img")["src"] == LISTED
    assert select(unlisted, "img") == []
    assert one(unlisted, ".image-elsewhere a")["href"] == UNLISTED
    details = one(unlisted, f'a[href="{reverse("studio:library_item", args=["images", "i2"])}"]')
    assert text_of(details) == "Details of the image on files.elsewhere.example"


def test_an_images_own_page_names_an_unlisted_host(remote, api_key, logged_in_client):
    remote.get("/v1/images").mock(return_value=httpx.Response(200, json=IMAGES))
    remote.get("/v1/studio/apps").mock(return_value=httpx.Response(200, json={"apps": list_apps()}))  # its actions

    page = logged_in_client.get(reverse("studio:library_item", args=["images", "i2"])).content

    figure = one(page, "figure.studio-image")
    assert select(figure, "img") == []
    assert text_of(one(figure, ".image-elsewhere")).startswith(f"Image on files.elsewhere.example — {REASON}")


def test_an_apps_picture_picker_names_an_unlisted_host_and_keeps_the_choice(remote, api_key, logged_in_client):
    remote.get("/v1/studio/apps").mock(return_value=httpx.Response(200, json={"apps": list_apps()}))
    remote.get("/v1/images/boards").mock(
        return_value=httpx.Response(200, json={"data": [{"id": BOARD_ID, "name": "Spring campaign", "image_count": 2}]})
    )
    remote.get("/v1/images").mock(return_value=httpx.Response(200, json=IMAGES))
    remote.get("/v1/videos").mock(return_value=httpx.Response(200, json={"data": []}))

    page = logged_in_client.get(reverse("studio:app", args=["image", "generate"]), {"board_id": BOARD_ID}).content

    listed, unlisted = select(one(page, "fieldset.studio-picker"), ".studio-picker__option")
    assert one(listed, "img")["src"] == LISTED
    assert select(unlisted, "img") == []
    assert one(unlisted, "input[type=checkbox]")["value"] == "i2"  # still a choice
    assert text_of(one(unlisted, ".image-elsewhere--compact a")) == "Image on files.elsewhere.example"
