"""The library's selection (issue #36, item 3; studio/selection.py): kept in
the session per workspace, so it survives paging and a search; everything on
a board, in a collection or matching a search selected at once; at most 100,
said when the cap is hit; a count with "Clear" on every library page; ZIP,
collection and share of the selection through the existing paths."""

from __future__ import annotations

import httpx
import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from dashboard.api.testing import RemoteCallCounter
from dashboard.keys.models import ApiKey
from studio.library import PAGE_SIZE
from studio.models import LibraryCollection, LibraryCollectionItem, ShareLink, ZipJob
from studio.selection import MAX_SELECTION
from tests.html import one, root_ids, select, text_of
from tests.live.support import store_key

BOARD = "5b0e1f4a-0000-4000-8000-0000000000b9"
IDS = [f"5b0e1f4a-0000-4000-8000-{n:012d}" for n in range(130)]


def image(n: int) -> dict:
    return {"id": IDS[n], "url": f"https://cdn.example/{n}.png", "prompt": f"Red bike {n}", "board_id": BOARD}


@pytest.fixture
def images(remote):
    """130 images, paged by `limit` and a numeric cursor as the service pages."""

    def answer(request: httpx.Request) -> httpx.Response:
        limit = int(request.url.params.get("limit", "24"))
        start = int(request.url.params.get("cursor") or 0)
        rows = [image(n) for n in range(start, min(start + limit, len(IDS)))]
        more = start + limit < len(IDS)
        return httpx.Response(200, json={"data": rows, "next_cursor": str(start + limit) if more else None})

    remote.get("/v1/images/boards").mock(return_value=httpx.Response(200, json={"data": [{"id": BOARD, "name": "B"}]}))
    return remote.get("/v1/images").mock(side_effect=answer)


def update(client, shown: list[str], picked: list[str], **extra):
    return client.post(reverse("studio:selection_update"), {"shown": shown, "image": picked, **extra})


def count_words(html) -> str:
    return text_of(one(html, "#selection-count"))


def test_the_selection_survives_paging_and_shows_as_a_count_with_clear(db, api_key, images, logged_in_client):
    first = logged_in_client.get(reverse("studio:library", args=["images"]))
    shown = [box["value"] for box in select(first.content, "#library-selection input[name=shown]")]
    assert shown == IDS[:PAGE_SIZE] and count_words(first.content) == "No images selected"
    done = update(logged_in_client, shown, IDS[:3], next="/studio/library/images/")
    assert done.status_code == 302 and done["Location"] == "/studio/library/images/"

    # Page 2 (the pager's next link): the count still says 3; its own boxes add to them.
    following = one(first.content, "a[rel=next]")["href"]  # "?cursor=...": the same page's address
    second = logged_in_client.get(reverse("studio:library", args=["images"]) + following)
    assert count_words(second.content).startswith("3 images selected")
    update(logged_in_client, IDS[PAGE_SIZE : 2 * PAGE_SIZE], IDS[PAGE_SIZE : PAGE_SIZE + 2])
    # Back on page 1, its ticked boxes are the ones selected there; unticking one there keeps page 2's.
    again = logged_in_client.get(reverse("studio:library", args=["images"]))
    assert [box["value"] for box in select(again.content, "input[data-library-pick][checked]")] == IDS[:3]
    update(logged_in_client, IDS[:PAGE_SIZE], IDS[:2])
    page = logged_in_client.get(reverse("studio:selection"))
    assert text_of(one(page.content, "#selection-heading")) == "4 images selected"
    # Every library page carries the count, e.g. the collections.
    assert count_words(logged_in_client.get(reverse("studio:collections")).content).startswith("4 images selected")

    cleared = logged_in_client.post(reverse("studio:selection_clear"), {"next": "/studio/library/collections/"})
    assert cleared["Location"] == "/studio/library/collections/"
    assert count_words(logged_in_client.get(reverse("studio:collections")).content) == "No images selected"


def test_with_htmx_a_box_swaps_only_the_count(db, api_key, images, logged_in_client):
    answer = logged_in_client.post(
        reverse("studio:selection_update"), {"shown": IDS[:PAGE_SIZE], "image": IDS[:5]}, headers={"HX-Request": "true"}
    )
    assert answer.status_code == 200
    region = one(answer.content, "#selection-count")
    assert text_of(region).startswith("5 images selected")
    assert root_ids(answer.content) == ["div#selection-count"]  # the region alone, not the page
    clear = one(region, "form")
    assert clear["hx-post"] == reverse("studio:selection_clear") and clear["action"] == clear["hx-post"]


def test_select_all_matching_a_search_stops_at_100_and_says_so(db, api_key, images, logged_in_client):
    listing = logged_in_client.get(reverse("studio:library", args=["images"]), {"q": "red bike"})
    form = one(listing.content, "form[action='/studio/library/selection/add-all']")
    data = {field["name"]: field.get("value", "") for field in select(form, "input")}
    answer = logged_in_client.post(form["action"], data)
    words = [str(message) for message in get_messages(answer.wsgi_request)]
    assert words == [f"The selection holds at most {MAX_SELECTION} images: 30 were left out."]
    page = logged_in_client.get(reverse("studio:selection"))
    assert text_of(one(page.content, "#selection-heading")) == "100 images selected"
    # A box more is refused in words too; nothing already selected is lost.
    update(logged_in_client, IDS[120:130], IDS[120:121])
    assert text_of(one(logged_in_client.get(reverse("studio:selection")).content, "#selection-heading")) == (
        "100 images selected"
    )


def test_select_all_in_a_collection_of_100_reads_nothing_remote_and_on_a_board_one_page(
    db, api_key, user, images, logged_in_client
):
    collection = LibraryCollection.objects.create(workspace_id=api_key.workspace_id, name="Spring", created_by=user)
    LibraryCollectionItem.objects.bulk_create(
        LibraryCollectionItem(collection=collection, kind="images", item_id=value, added_by=user) for value in IDS[:100]
    )
    page = logged_in_client.get(reverse("studio:collection", args=[collection.pk]))
    form = one(page.content, "form[action='/studio/library/selection/add-all']")
    data = {field["name"]: field.get("value", "") for field in select(form, "input")}
    with RemoteCallCounter() as calls:
        logged_in_client.post(form["action"], data)
    assert calls.count == 0  # the collection's own list gives the ids
    assert text_of(one(logged_in_client.get(reverse("studio:selection")).content, "#selection-heading")) == (
        "100 images selected"
    )

    logged_in_client.post(reverse("studio:selection_clear"))
    with RemoteCallCounter() as calls:
        logged_in_client.post(reverse("studio:selection_add_all"), {"source": "board", "board": BOARD})
    assert calls.paths == ["/v1/images"]  # one page of the board's images


def test_a_zip_of_the_selection_is_the_existing_job_with_100_images(db, api_key, images, logged_in_client):
    logged_in_client.post(reverse("studio:selection_add_all"), {"source": "search", "q": "bike"})
    offer = logged_in_client.get(reverse("studio:library_zip"), {"selection": "1"})
    form = one(offer.content, "main form[method=post][action$='/zip']")
    chosen = [field["value"] for field in select(form, "input[name=image]")]
    assert chosen == IDS[:100]
    with RemoteCallCounter() as calls:
        started = logged_in_client.post(
            reverse("studio:library_zip"),
            {"image": chosen, "idempotency_key": one(form, "input[name=idempotency_key]")["value"]},
        )
    job = ZipJob.objects.get()
    assert started["Location"] == reverse("studio:zip_job", args=[job.pk])
    assert (job.total, len(job.images)) == (100, 100)
    assert calls.count <= 2  # pages of 100 read to find them (no read per image)


def test_the_selection_goes_to_a_collection_and_a_share_link(db, api_key, images, logged_in_client):
    update(logged_in_client, IDS[:PAGE_SIZE], IDS[:3], then="collect")
    choice = logged_in_client.get(reverse("studio:collection_add"), {"selection": "1"})
    assert text_of(one(choice.content, "#add-heading")) == "3 images"

    sent = update(logged_in_client, IDS[:PAGE_SIZE], IDS[:3], then="share")
    assert sent["Location"] == reverse("studio:share_images") + "?selection=1"
    form_page = logged_in_client.get(sent["Location"])
    assert "these 3 images" in text_of(one(form_page.content, "main .card p"))
    logged_in_client.post(sent["Location"], {"days": "7"})
    link = ShareLink.objects.get()
    assert (link.kind, link.title, len(link.snapshot["images"])) == (ShareLink.IMAGES, "3 selected images", 3)


def test_a_collection_and_a_board_offer_their_zip_without_typing_an_address(
    db, api_key, user, images, logged_in_client
):
    collection = LibraryCollection.objects.create(workspace_id=api_key.workspace_id, name="Spring", created_by=user)
    LibraryCollectionItem.objects.create(collection=collection, kind="images", item_id=IDS[7], added_by=user)
    page = logged_in_client.get(reverse("studio:collection", args=[collection.pk]))
    offer = logged_in_client.get(one(page.content, "a[href*='/zip?collection=']")["href"])
    assert [field["value"] for field in select(offer.content, "main form input[name=image]")] == [IDS[7]]
    board = logged_in_client.get(reverse("studio:library_zip"), {"board": BOARD})
    assert len(select(board.content, "main form input[name=image]")) == 100  # the board's first page


def test_the_selection_is_only_shown_under_a_working_key_of_its_workspace(db, api_key, user, images, logged_in_client):
    update(logged_in_client, IDS[:PAGE_SIZE], IDS[:2])
    other = store_key(user, "svc_sk_other_0123456789abcdefgh", "Globex Research")
    ApiKey.objects.filter(user=user).update(is_active=False)
    ApiKey.objects.filter(pk=other.pk).update(is_active=True)
    # Another workspace's key: its own (empty) selection, never the first one's.
    assert count_words(logged_in_client.get(reverse("studio:collections")).content) == "No images selected"
    offer = logged_in_client.get(reverse("studio:library_zip"), {"selection": "1"})
    assert offer.status_code == 302  # nothing selected here
    # Back to the first workspace: it is still there.
    ApiKey.objects.filter(user=user).update(is_active=False)
    ApiKey.objects.filter(pk=api_key.pk).update(is_active=True)
    assert count_words(logged_in_client.get(reverse("studio:collections")).content).startswith("2 images selected")
    # A refused key: the key gate's page, no selection shown.
    ApiKey.objects.filter(pk=api_key.pk).update(refused_at="2026-01-01T00:00:00Z")
    refused = logged_in_client.get(reverse("studio:selection"))
    assert b"images selected" not in refused.content


def test_without_javascript_the_page_buttons_select_it_all_or_go_on_and_refuse_in_words(
    db, api_key, images, logged_in_client
):
    nothing = update(logged_in_client, IDS[:PAGE_SIZE], [], then="zip", next="/studio/library/images/")
    assert nothing["Location"] == "/studio/library/images/"
    assert [str(message) for message in get_messages(nothing.wsgi_request)] == ["Choose at least one image."]
    whole = update(logged_in_client, IDS[:PAGE_SIZE], [], all="page", then="zip")
    assert whole["Location"] == reverse("studio:library_zip") + "?selection=1"
    assert text_of(one(logged_in_client.get(reverse("studio:selection")).content, "#selection-heading")) == (
        f"{PAGE_SIZE} images selected"
    )
    # A board's page offers "Select all on this board"; a board the form does not name selects nothing.
    empty = logged_in_client.post(reverse("studio:selection_add_all"), {"source": "board", "board": ""})
    assert [str(message) for message in get_messages(empty.wsgi_request)] == ["There are no images to select here."]


def test_a_service_error_while_selecting_a_board_is_a_page_in_words(db, api_key, remote, logged_in_client):
    remote.get("/v1/images").mock(return_value=httpx.Response(503, json={"error": {"type": "unavailable"}}))
    answer = logged_in_client.post(reverse("studio:selection_add_all"), {"source": "board", "board": BOARD})
    assert answer.status_code == 502 and "service" in text_of(one(answer.content, "main"))
    assert count_words(logged_in_client.get(reverse("studio:collections")).content) == "No images selected"
