"""Content Apps against a real sandbox over HTTP: the catalogue and its JSON
Schemas, body validation, not-runnable apps, generated images, video shots
polled by repeating the request, motion, and the library reads."""

from __future__ import annotations

import httpx
import jsonschema_rs
import pytest

from sandbox.content_apps import VIDEO_SHOT_SECONDS
from sandbox.images import png_size
from sandbox.seed import DEMO_WORKSPACE_ID
from tests.html import one

IMAGE_APPS = {
    "generate",
    "product-photo",
    "ad-creative",
    "edit",
    "compose",
    "variations",
    "remove-background",
    "reframe",
    "upscale",
}
VIDEO_APPS = {"generate", "product-ad", "ugc-ad", "recast", "remake", "avatar", "motion"}
NOT_RUNNABLE = {"reference", "camera-path", "story", "clips", "music", "sound-effect"}


def apps(api, studio=None) -> list[dict]:
    params = {"studio": studio} if studio else {}
    response = api.get("/v1/studio/apps", params=params)
    assert response.status_code == 200
    return response.json()["apps"]


def descriptor(api, studio: str, app_id: str) -> dict:
    return next(a for a in apps(api, studio) if a["id"] == app_id)


def seeded_board(api) -> tuple[dict, list[dict]]:
    board = next(
        b for b in api.get("/v1/images/boards", params={"limit": 100}).json()["data"] if b["name"] == "Spring campaign"
    )
    images = api.get("/v1/images", params={"board_id": board["id"]}).json()["data"]
    return board, images


def run(api, studio: str, app_id: str, body: dict, **kwargs) -> httpx.Response:
    return api.post(f"/v1/studio/{studio}/apps/{app_id}", json=body, **kwargs)


def test_catalogue_lists_every_app_of_the_spec_with_its_fields(api):
    listed = apps(api)
    assert {a["id"] for a in listed if a["studio"] == "image"} == IMAGE_APPS
    assert {a["id"] for a in listed if a["studio"] == "video" and a["runnable"]} == VIDEO_APPS
    assert {a["id"] for a in listed if not a["runnable"]} == NOT_RUNNABLE
    for app in listed:
        for field in (
            "label",
            "short_label",
            "description",
            "examples",
            "group",
            "kind",
            "path",
            "runnable",
            "not_runnable_reason",
            "returns",
            "timing",
            "inputs",
        ):
            assert field in app, (app["id"], field)
        assert app["path"] == f"/v1/studio/{app['studio']}/apps/{app['id']}"
        assert (app["not_runnable_reason"] is None) == app["runnable"]
    assert {a["studio"] for a in apps(api, "video")} == {"video"}


def test_inputs_are_real_json_schemas_that_refuse_unknown_fields(api):
    for app in apps(api):
        schema = app["inputs"]
        validator = jsonschema_rs.validator_for(schema)  # raises if the schema itself is invalid
        assert schema["additionalProperties"] is False
        assert not validator.is_valid({"not_a_field": 1})
    remove_bg = descriptor(api, "image", "remove-background")["inputs"]
    assert set(remove_bg["required"]) == {"board_id", "source_asset_id"}
    generate = descriptor(api, "image", "generate")["inputs"]["properties"]
    assert generate["prompt"]["maxLength"] == 6000
    assert generate["count"]["minimum"] == 1 and generate["count"]["maximum"] == 4
    assert "16:9" in generate["aspect"]["enum"] and "watercolor" in generate["style"]["enum"]
    assert generate["reference_asset_ids"]["maxItems"] == 4
    ad = descriptor(api, "video", "product-ad")["inputs"]["properties"]
    assert ad["offer"]["maxLength"] == 2000 and ad["product"]["maxLength"] == 500


def test_body_is_checked_against_the_schema_with_field_details(api):
    response = run(api, "image", "remove-background", {"prompt": "x", "colour": "red"})
    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert {"board_id", "source_asset_id", "prompt", "colour"} <= set(details)
    too_many = run(api, "image", "generate", {"prompt": "a" * 6001, "count": 5, "aspect": "2:1"})
    assert set(too_many.json()["error"]["details"]) == {"prompt", "count", "aspect"}


def test_not_runnable_app_is_422_with_its_reason_and_unknown_app_404(api):
    response = run(api, "video", "music", {"prompt": "Upbeat"})
    assert response.status_code == 422
    reason = descriptor(api, "video", "music")["not_runnable_reason"]
    assert reason in response.json()["error"]["message"]
    assert run(api, "image", "no-such-app", {}).status_code == 404


def test_image_generate_makes_count_real_pngs_sized_by_aspect(api):
    response = run(api, "image", "generate", {"prompt": "A ceramic mug on a table", "count": 2, "aspect": "21:9"})
    assert response.status_code == 200
    assets = response.json()["assets"]
    assert len(assets) == 2
    for asset in assets:
        assert asset["media_type"] == "image" and asset["mime_type"] == "image/png"
        picture = httpx.get(asset["url"])
        assert picture.headers["content-type"] == "image/png"
        assert png_size(picture.content) == (asset["width"], asset["height"]) == (1344, 576)
    poster = httpx.get(assets[0]["url"].replace(".png", ".svg"))
    assert poster.headers["content-type"] == "image/svg+xml" and one(poster.content, "svg")["width"] == "1344"


def test_image_app_sources_must_be_on_the_board(api):
    board, images = seeded_board(api)
    other = run(api, "image", "generate", {"prompt": "A different board"}).json()["assets"][0]  # Library, no board
    refused = run(api, "image", "remove-background", {"board_id": board["id"], "source_asset_id": other["id"]})
    assert refused.status_code == 400 and "source_asset_id" in refused.json()["error"]["details"]
    done = run(api, "image", "upscale", {"board_id": board["id"], "source_asset_id": images[0]["id"]})
    assert done.status_code == 200
    upscaled = done.json()["assets"][0]
    assert (upscaled["width"], upscaled["height"]) == (images[0]["width"] * 2, images[0]["height"] * 2)
    assert upscaled["board_id"] == board["id"]
    missing_board = run(
        api,
        "image",
        "upscale",
        {"board_id": "00000000-0000-4000-8000-000000000000", "source_asset_id": images[0]["id"]},
    )
    assert missing_board.status_code == 404


def test_video_shot_is_202_building_then_complete_on_repeat_and_charged_once(fresh_sandbox, fresh_api):
    project = fresh_api.get("/v1/videos").json()["data"][0]
    store = fresh_sandbox.store
    credits_before = store.get("workspace", DEMO_WORKSPACE_ID)["credits"]
    body = {"project_id": project["id"], "product": "Trail shoes that grip on wet rock", "hook": "Rain? No problem."}
    headers = {"Idempotency-Key": "shot-trail-1"}

    first = run(fresh_api, "video", "product-ad", body, headers=headers)
    assert first.status_code == 202
    assert first.json()["status"] == "building" and first.json()["job"]["id"]
    # Skip the filming on the sandbox's clock, then repeat the request once.
    fresh_sandbox.advance(service_seconds=VIDEO_SHOT_SECONDS)
    again = run(fresh_api, "video", "product-ad", body, headers=headers)
    assert again.status_code == 200
    final = again.json()
    assert final["status"] == "complete" and final["job"]["id"] == first.json()["job"]["id"]
    assert final["asset"]["media_type"] == "video"
    assert store.get("workspace", DEMO_WORKSPACE_ID)["credits"] == credits_before - 10
    assert store.count("video_shot", workspace_id=DEMO_WORKSPACE_ID) == 1
    after = next(p for p in fresh_api.get("/v1/videos").json()["data"] if p["id"] == project["id"])
    assert after["shot_count"] == project["shot_count"] + 1
    assert after["shots"][-1]["asset_id"] == final["asset"]["id"]  # added to the end of the video


def test_video_generate_without_project_answers_when_done(api):
    response = run(api, "video", "generate", {"prompt": "Slow dolly across a coffee bar", "seconds": 8})
    assert response.status_code == 200
    assert response.json()["status"] == "complete" and response.json()["asset"]["duration_seconds"] == 8


def test_recast_refuses_a_clip_longer_than_15_seconds(api, sandbox):
    project = api.get("/v1/videos").json()["data"][-1]
    _, images = seeded_board(api)
    long_clip = sandbox.store.find_one("video_asset", workspace_id=DEMO_WORKSPACE_ID, seconds=42)
    response = run(
        api,
        "video",
        "recast",
        {"project_id": project["id"], "source_asset_id": long_clip["id"], "identity_asset_id": images[0]["id"]},
    )
    assert response.status_code == 400
    assert "15 seconds" in response.json()["error"]["details"]["source_asset_id"][0]


@pytest.mark.parametrize(
    "prompt,status", [("Chart", "needs_input"), ("Animated bar chart of quarterly revenue, brand colours", "complete")]
)
def test_motion_asks_for_a_more_specific_prompt_or_answers_the_composition(api, prompt, status):
    response = run(api, "video", "motion", {"prompt": prompt})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == status and body["motion"]["status"] == status
    if status == "needs_input":
        assert body["motion"]["questions"]
    else:
        assert body["motion"]["composition"]["layers"]


def test_content_apps_need_credits(client_for):
    poor = client_for("no_credits")
    response = poor.post("/v1/studio/image/apps/generate", json={"prompt": "A lighthouse at dusk"})
    assert response.status_code == 402


def test_library_reads_page_and_show_full_items(api):
    first = api.get("/v1/images", params={"limit": 2}).json()
    assert len(first["data"]) == 2 and first["next_cursor"]
    second = api.get("/v1/images", params={"limit": 2, "cursor": first["next_cursor"]}).json()
    assert not {i["id"] for i in first["data"]} & {i["id"] for i in second["data"]}
    document = api.get("/v1/documents", params={"limit": 100}).json()["data"][-1]
    assert "content" not in document
    assert "## Summary" in api.get(f"/v1/documents/{document['id']}").json()["content"]
    app = api.get("/v1/apps", params={"limit": 100}).json()["data"][-1]
    assert api.get(f"/v1/apps/{app['id']}").json()["screens"]
    assert api.get("/v1/websites/00000000-0000-4000-8000-000000000000").status_code == 404
    assert api.get("/files/00000000-0000-4000-8000-000000000000.png").status_code == 404


def test_a_video_shot_sent_without_a_key_is_polled_with_the_minted_one(api, sandbox):
    project = api.get("/v1/videos").json()["data"][0]
    body = {"project_id": project["id"], "prompt": "Close-up of rain on a shop window", "seconds": 5}
    first = run(api, "video", "generate", body)
    assert first.status_code == 202
    key = first.json()["idempotency_key"]
    assert key
    sandbox.advance(service_seconds=VIDEO_SHOT_SECONDS)
    again = run(api, "video", "generate", body, headers={"Idempotency-Key": key})
    assert again.status_code == 200
    assert again.json()["job"]["id"] == first.json()["job"]["id"]
    assert again.json()["asset"]["duration_seconds"] == 5
