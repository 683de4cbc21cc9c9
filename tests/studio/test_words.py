"""Words, not ids (issue #21, item 6): schema keys, service words and counts
as a maker reads them, in the forms, help, the catalogue, runs and progress.
The pages are checked as text: no UUID-shaped text and no schema key."""

from __future__ import annotations

import re

import httpx
import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import ngettext

from sandbox.content_apps import list_apps
from studio.library import read_item
from studio.models import AppRun
from studio.reading import read_event, read_pending_request, read_skipped
from studio.words import action_words, counted, key_label, prose, returns_words
from tests.html import one, parse, select, text_of, texts

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
SCHEMA_KEY = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")

BOARD_ID = "5b0e1f4a-0000-4000-8000-0000000000b1"
PROJECT_ID = "5b0e1f4a-0000-4000-8000-0000000000c1"
IMAGE_IDS = [f"5b0e1f4a-0000-4000-8000-00000000010{n}" for n in range(3)]


def words_of(html) -> str:
    """What a person reads in the page's main region."""
    return text_of(one(parse(html.decode() if isinstance(html, bytes) else html), "main"))


@pytest.mark.parametrize(
    ("key", "label"),
    [
        ("project_id", "Project"),
        ("board_id", "Board"),
        ("start_frame_asset_id", "Start frame image"),
        ("reference_asset_ids", "Reference images"),
        ("count", "Count"),
        ("ad_format", "Ad format"),
    ],
)
def test_a_schema_key_reads_as_a_label(key, label):
    assert key_label(key) == label


def test_keys_in_prose_and_the_catalogue_words_read_as_words():
    assert prose("Up to 4 image asset ids on board_id") == "Up to 4 images on board"
    assert (
        prose("Image the shot ends on; needs start_frame_asset_id") == "Image the shot ends on; needs start frame image"
    )
    assert returns_words("assets") == "images"
    assert returns_words("assets / job / motion") == "images, a video shot, made in the background or an animated clip"


def test_counts_agree_with_their_number_and_a_label_keeps_its_acronyms():
    def images(n: int) -> str:
        return ngettext("%(count)s image", "%(count)s images", n)

    def words(n: int) -> str:
        return ngettext("%(count)s word", "%(count)s words", n)

    assert [counted(1, images), counted(2, images), counted(0, images), counted(1200, words)] == [
        "1 image",
        "2 images",
        "0 images",
        "1,200 words",
    ]
    assert counted(None, images) == ""
    assert action_words("Film an AI shot") == "film an AI shot"
    assert action_words("AI upscale") == "AI upscale"
    facts = read_item({"id": BOARD_ID, "name": "Spring", "image_count": 1, "status": "needs_input"})["facts"]
    assert facts == ["needs input", "1 image"]


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("de", ["needs input", "1 Bild", "1.200 Wörter", "unveröffentlichte Änderungen"]),
        ("fr", ["needs input", "1 image", "1\u00a0200 mots", "modifications non publiées"]),
    ],
)
def test_a_library_items_facts_in_the_readers_language_the_services_status_as_it_said(language, said):
    item = {"id": BOARD_ID, "image_count": 1, "word_count": 1200, "status": "needs_input"}
    with translation.override(language):
        facts = read_item({**item, "has_unpublished_changes": True})["facts"]
    assert facts == said


def test_progress_lines_pending_requests_and_skipped_edits_are_in_words():
    assert read_event("status", {"status": "needs_input", "message": "needs start_frame_asset_id"})["text"] == (
        "Needs input: needs start frame image"
    )
    assert read_event("status", {"status": "building", "stage": "generate_pages"})["text"] == (
        "Building · stage generate pages"
    )
    request = read_pending_request({"label": "Film an AI shot", "kind": "film", "prompt": "A bike"})
    assert request["action"] == "Run film an AI shot"
    assert read_pending_request({"kind": "camera_path"})["label"] == "Camera path"
    assert read_skipped({"operation": "trim_clip", "reason": "needs source_asset_id"}) == {
        "operation": "Trim clip",
        "reason": "needs source image",
    }


# --- the pages ------------------------------------------------------------------------


@pytest.fixture
def catalogue(remote):
    remote.get("/v1/studio/apps").mock(return_value=httpx.Response(200, json={"apps": list_apps()}))
    remote.get("/v1/images/boards").mock(
        return_value=httpx.Response(200, json={"data": [{"id": BOARD_ID, "name": "Spring campaign"}]})
    )
    remote.get("/v1/images").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    {"id": i, "url": f"https://cdn.example/{n}.png", "width": 10, "height": 10, "prompt": f"Bike {n}"}
                    for n, i in enumerate(IMAGE_IDS)
                ]
                # An image without a prompt is named by what it is, never by its id.
                + [{"id": "5b0e1f4a-0000-4000-8000-0000000001ff", "url": "https://cdn.example/x.png"}],
                "next_cursor": None,
            },
        )
    )
    remote.get("/v1/videos").mock(
        return_value=httpx.Response(200, json={"data": [{"id": PROJECT_ID, "name": "Launch teaser", "shots": []}]})
    )
    return remote


def test_the_catalogue_says_what_each_app_returns_in_words(db, api_key, catalogue, logged_in_client):
    page = words_of(logged_in_client.get(reverse("studio:apps")).content)
    assert "returns images" in page and "returns a video shot" in page and "returns an animated clip" in page
    assert "returns assets" not in page and "returns job" not in page and "returns motion" not in page


def test_an_apps_form_names_its_fields_and_choices_and_shows_its_defaults(db, api_key, catalogue, logged_in_client):
    page = logged_in_client.get(reverse("studio:app", args=["image", "generate"]), {"board_id": BOARD_ID}).content
    form = one(page, "#app-form")
    words = text_of(form)
    assert not UUID.search(words) and not SCHEMA_KEY.search(words), words
    assert "Up to 4 images on board" in text_of(one(form, "fieldset.studio-picker"))
    assert "An image without a prompt" in text_of(one(form, "fieldset.studio-picker"))
    count = one(form, "input[name=count]")
    assert "Left empty: 1." in text_of(one(form, f"#{count['id']}_helptext"))
    # A select's default is its blank choice, not repeated in the help.
    assert text_of(select(form, "select[name=aspect] option")[0]) == "Default (4:5)"

    video = logged_in_client.get(reverse("studio:app", args=["video", "generate"])).content
    video_words = text_of(one(video, "#app-form"))
    assert not UUID.search(video_words) and not SCHEMA_KEY.search(video_words), video_words
    assert "Start frame image" in texts(video, "#app-form legend") or "Start frame image" in video_words
    assert text_of(one(video, "#app-form button.btn-primary")) == "Run generate shot"


def test_what_was_asked_lists_names_and_pictures_never_ids(db, api_key, catalogue, logged_in_client):
    catalogue.post("/v1/studio/image/apps/generate").mock(
        return_value=httpx.Response(200, json={"status": "complete", "assets": []})
    )
    url = reverse("studio:app", args=["image", "generate"])
    page = logged_in_client.get(url, {"board_id": BOARD_ID}).content
    data = {
        "prompt": "Bikes",
        "aspect": "1:1",
        "count": "2",
        "board_id": BOARD_ID,
        "reference_asset_ids": IMAGE_IDS[:2],
        "idempotency_key": one(page, '#app-form input[name="idempotency_key"]')["value"],
    }
    logged_in_client.post(url, data)
    run = AppRun.objects.get()
    shown = logged_in_client.get(reverse("studio:app_run", args=[run.pk])).content
    asked = one(shown, "section[aria-labelledby=inputs-heading]")
    assert not UUID.search(words_of(shown)) and not SCHEMA_KEY.search(text_of(asked))
    assert texts(asked, "dt") == ["Prompt", "Aspect", "Count", "Board", "Reference images", "Reference images"]
    assert texts(asked, "dd")[:4] == ["Bikes", "1:1", "2", "Spring campaign"]
    assert [img["src"] for img in select(asked, "dd img")] == ["https://cdn.example/0.png", "https://cdn.example/1.png"]

    # A run kept before the words were: its keys in words, its ids never shown.
    AppRun.objects.filter(pk=run.pk).update(asked=[], inputs={"project_id": PROJECT_ID, "seconds": 8})
    legacy = logged_in_client.get(reverse("studio:app_run", args=[run.pk])).content
    legacy_asked = one(legacy, "section[aria-labelledby=inputs-heading]")
    assert not UUID.search(words_of(legacy))
    # (jsonb keeps its own key order: compared as pairs)
    pairs = sorted(zip(texts(legacy_asked, "dt"), texts(legacy_asked, "dd"), strict=True))
    assert pairs == [("Project", "chosen in the form"), ("Seconds", "8")]
