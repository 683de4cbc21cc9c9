"""Favourites of the Studio library, kept in the console per person and per
workspace (studio/favourites.py)."""

from __future__ import annotations

import httpx
from django.urls import reverse

from studio.favourites import favourite_toggle
from studio.models import LibraryFavourite
from tests.html import one, select, text_of, texts

IMAGE_ID = "5b0e1f4a-0000-4000-8000-000000000101"


def test_an_image_is_added_to_favourites_shown_there_and_removed(db, remote, api_key, logged_in_client):
    remote.get("/v1/studio/apps").mock(return_value=httpx.Response(200, json={"apps": []}))
    remote.get("/v1/images").mock(
        return_value=httpx.Response(
            200, json={"data": [{"id": IMAGE_ID, "url": "https://cdn.example/1.png", "prompt": "A red bike"}]}
        )
    )
    image_url = reverse("studio:library_item", args=["images", IMAGE_ID])
    page = logged_in_client.get(image_url).content
    button = one(page, ".studio-favourite button")
    assert text_of(button) == "Add to favourites" and button["aria-pressed"] == "false"
    form = button.find_parent("form")
    response = logged_in_client.post(form["action"], {"name": "A red bike", "picture": "https://cdn.example/1.png"})
    assert response.status_code == 302 and response["Location"] == image_url
    assert one(logged_in_client.get(image_url).content, ".studio-favourite button")["aria-pressed"] == "true"

    calls = remote.calls.call_count
    favourites = logged_in_client.get(reverse("studio:library_favourites")).content
    assert remote.calls.call_count == calls  # read from the console only
    assert texts(favourites, ".studio-library h3") == ["A red bike"]
    assert one(favourites, ".studio-library h3 a")["href"] == image_url
    remove = one(favourites, ".studio-library form")
    back = logged_in_client.post(remove["action"], {"name": "A red bike", "next": "https://evil.example/"})
    assert back["Location"] == image_url  # never off the console
    assert not LibraryFavourite.objects.exists()


def test_favourites_are_per_person_and_per_workspace(db, user, other_user):
    favourite_toggle(user_id=user.pk, workspace_id="ws_a", kind="images", item_id="i1", name="Mine")
    favourite_toggle(user_id=user.pk, workspace_id="ws_b", kind="images", item_id="i1", name="Mine elsewhere")
    favourite_toggle(user_id=other_user.pk, workspace_id="ws_a", kind="images", item_id="i1", name="Theirs")
    assert LibraryFavourite.objects.filter(user=user, workspace_id="ws_a").count() == 1
    assert favourite_toggle(user_id=user.pk, workspace_id="ws_a", kind="images", item_id="i1") == "removed"
    assert LibraryFavourite.objects.count() == 2


def test_a_viewer_is_refused_and_sees_no_favourite_button(db, remote, api_key, logged_in_client):
    api_key.member_role = "viewer"
    api_key.save()
    response = logged_in_client.post(reverse("studio:library_favourite", args=["images", IMAGE_ID]), {"name": "x"})
    assert response.status_code == 403 and not LibraryFavourite.objects.exists()
    assert not select(logged_in_client.get(reverse("studio:library_favourites")).content, ".studio-library form")
