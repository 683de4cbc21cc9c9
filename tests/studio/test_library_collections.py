"""Collections of the Studio library (issue #21, item 5), kept in the
console and shared by the workspace (studio/library_collections.py): made,
filled from the library's selection or an item's page, opened as a filter,
renamed and removed; only someone holding a working key of the workspace
sees them; a viewer reads but never writes."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from dashboard.api.testing import RemoteCallCounter
from studio.models import LibraryCollection, LibraryCollectionItem, LibraryFavourite
from tests.html import one, select, text_of, texts
from tests.live.support import store_key

IMAGE_IDS = [f"5b0e1f4a-0000-4000-8000-00000000020{n}" for n in range(3)]
DOCUMENT_ID = "5b0e1f4a-0000-4000-8000-0000000000d1"


@pytest.fixture
def images(remote):
    return remote.get("/v1/images").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    {"id": i, "url": f"https://cdn.example/{n}.png", "prompt": f"Red bike {n}", "width": 8, "height": 8}
                    for n, i in enumerate(IMAGE_IDS)
                ],
                "next_cursor": None,
            },
        )
    )


def add(client, data: dict):
    return client.post(reverse("studio:collection_add"), data)


def test_a_selection_goes_to_a_new_collection_opened_as_a_filter_renamed_and_removed(
    db, api_key, images, logged_in_client
):
    # The library's selection (a GET form) opens the choice; nothing is written yet.
    choice = logged_in_client.get(reverse("studio:collection_add"), {"image": IMAGE_IDS[:2]})
    assert choice.status_code == 200 and not LibraryCollection.objects.exists()
    assert text_of(one(choice.content, "#add-heading")) == "2 images"
    assert [field["value"] for field in select(choice.content, "form input[name=image]")] == IMAGE_IDS[:2]

    made = add(logged_in_client, {"image": IMAGE_IDS[:2], "to": "new", "name": "  Spring   campaign "})
    collection = LibraryCollection.objects.get()
    assert made.status_code == 302 and made["Location"] == reverse("studio:collection", args=[collection.pk])
    assert (collection.name, collection.workspace_id) == ("Spring campaign", api_key.workspace_id)
    # Names and pictures are the service's (read again), never the browser's.
    assert sorted(collection.items.values_list("name", "picture")) == [
        ("Red bike 0", "https://cdn.example/0.png"),
        ("Red bike 1", "https://cdn.example/1.png"),
    ]

    # Added again with a third image: each item once.
    again = add(logged_in_client, {"image": IMAGE_IDS, "to": "collection", "collection": collection.pk})
    assert again.status_code == 302 and collection.items.count() == 3

    # One document from its page, carrying its name like a favourite.
    add(
        logged_in_client,
        {
            "kind": "documents",
            "item": DOCUMENT_ID,
            "name": "Launch plan",
            "to": "collection",
            "collection": collection.pk,
        },
    )
    with RemoteCallCounter() as calls:
        page = logged_in_client.get(reverse("studio:collection", args=[collection.pk])).content
        only_documents = logged_in_client.get(reverse("studio:collection", args=[collection.pk]), {"kind": "documents"})
    assert calls.count == 0  # read from the console only
    assert len(select(page, ".studio-library > li")) == 4
    assert texts(page, "nav[aria-label='Kinds in this collection'] a") == ["All", "Documents", "Images"]
    assert texts(only_documents.content, ".studio-library h3") == ["Launch plan"]
    assert one(only_documents.content, ".studio-library h3 a")["href"] == reverse(
        "studio:library_item", args=["documents", DOCUMENT_ID]
    )

    # A name taken (whatever the case) is refused in place, the typed name kept.
    LibraryCollection.objects.create(workspace_id=api_key.workspace_id, name="Autumn")
    refused = logged_in_client.post(reverse("studio:collection_rename", args=[collection.pk]), {"name": "AUTUMN"})
    assert refused.status_code == 200
    assert text_of(one(refused.content, "#rename-name_error")) == "There is a collection called “AUTUMN” already."
    assert one(refused.content, "#rename-name")["value"] == "AUTUMN"
    renamed = logged_in_client.post(reverse("studio:collection_rename", args=[collection.pk]), {"name": "Spring sale"})
    assert renamed.status_code == 302
    collection.refresh_from_db()
    assert collection.name == "Spring sale"

    logged_in_client.post(
        reverse("studio:collection_remove", args=[collection.pk]), {"kind": "documents", "item": DOCUMENT_ID}
    )
    assert collection.items.count() == 3
    gone = logged_in_client.post(reverse("studio:collection_delete", args=[collection.pk]))
    assert gone["Location"] == reverse("studio:collections")
    assert not LibraryCollectionItem.objects.exists()
    assert texts(logged_in_client.get(reverse("studio:collections")).content, ".studio-collections h3") == ["Autumn"]


def test_a_selection_is_added_to_favourites(db, api_key, images, logged_in_client):
    response = add(logged_in_client, {"image": IMAGE_IDS[:2], "to": "favourites"})
    assert response["Location"] == reverse("studio:library_favourites")
    assert sorted(LibraryFavourite.objects.values_list("item_id", flat=True)) == IMAGE_IDS[:2]
    add(logged_in_client, {"image": IMAGE_IDS, "to": "favourites"})  # never unmarks
    assert LibraryFavourite.objects.count() == 3


def test_an_image_of_another_workspace_is_not_added_and_a_missing_choice_is_said(db, api_key, images, logged_in_client):
    collection = LibraryCollection.objects.create(workspace_id=api_key.workspace_id, name="Mine")
    foreign = "5b0e1f4a-0000-4000-8000-0000000009ff"
    response = add(logged_in_client, {"image": [foreign], "to": "collection", "collection": collection.pk})
    assert response.status_code == 302 and not collection.items.exists()
    nothing_chosen = add(logged_in_client, {"image": IMAGE_IDS[:1], "to": "collection"})
    assert (
        text_of(one(nothing_chosen.content, "section.card .alert-error")) == "Choose a collection, or name a new one."
    )
    empty_name = add(logged_in_client, {"image": IMAGE_IDS[:1], "to": "new", "name": ""})
    assert one(empty_name.content, "#new-name_error") is not None and not collection.items.exists()


def test_collections_are_shared_in_the_workspace_and_hidden_from_any_other(
    db, api_key, user, other_user, client, django_user_model
):
    collection = LibraryCollection.objects.create(workspace_id=api_key.workspace_id, name="Team picks")
    url = reverse("studio:collection", args=[collection.pk])

    teammate = django_user_model.objects.create_user(username="carol", password="a long passphrase here")
    store_key(teammate, "svc_sk_teammate_0123456789abcdef", "Acme Marketing")  # the same workspace
    client.force_login(teammate)
    assert client.get(url).status_code == 200
    assert texts(client.get(reverse("studio:collections")).content, ".studio-collections h3") == ["Team picks"]

    store_key(other_user, "svc_sk_other_0123456789abcdefgh", "Globex Research")
    client.force_login(other_user)
    assert client.get(url).status_code == 404
    assert client.post(reverse("studio:collection_delete", args=[collection.pk])).status_code == 404
    assert not select(client.get(reverse("studio:collections")).content, ".studio-collections h3")
    assert LibraryCollection.objects.filter(pk=collection.pk).exists()


def test_a_viewer_sees_collections_but_no_form_and_is_refused(db, api_key, logged_in_client):
    collection = LibraryCollection.objects.create(workspace_id=api_key.workspace_id, name="Team picks")
    api_key.member_role = "viewer"
    api_key.save()
    page = logged_in_client.get(reverse("studio:collection", args=[collection.pk])).content
    assert not select(page, "main form[method=post]")
    assert not select(logged_in_client.get(reverse("studio:collections")).content, "main form[method=post]")
    refused = logged_in_client.post(reverse("studio:collection_new"), {"name": "Mine"})
    assert refused.status_code == 403 and LibraryCollection.objects.count() == 1
