"""Content App descriptors, their JSON Schemas, and a small schema checker.

`GET /v1/studio/apps` lists every app id of the spec; each descriptor's `inputs`
is a real JSON Schema (draft 2020-12 subset) built from the spec's body-field
table, so a client can render a form from it and the sandbox validates the very
same schema on `POST /v1/studio/{studio}/apps/{app}` (unknown fields refused).

Which fields each app requires is not in the spec (beyond `board_id` and
`source_asset_id` for remove-background); the choices below are documented in
sandbox/README.md and follow what each app starts from.
"""

from __future__ import annotations

import copy
from typing import Any

ASPECTS = ["4:5", "1:1", "16:9", "9:16", "4:3", "3:4", "21:9"]
STYLES = ["none", "cinematic", "anime", "photorealistic", "digital-art", "oil-painting", "watercolor", "3d-render"]
FORMATS = [
    "auto",
    "product",
    "lifestyle",
    "testimonial",
    "comparison",
    "offer",
    "problem-solution",
    "demo",
    "founder",
    "listicle",
    "native",
    "before-after",
    "meme",
    "zero-star-review",
    "notes-app",
    "apology-letter",
    "text-message",
    "social-comment",
    "receipt",
    "statistic",
    "press",
]
# The real identifiers carry vendor names; the spec writes them as placeholders.
IMAGE_MODELS = ["auto", "image-model-1", "image-model-2", "image-model-3", "image-model-4"]
VIDEO_TIERS = ["auto", "draft", "standard", "cinema", "video-model-1", "video-model-2"]


def _uuid(description: str) -> dict:
    return {"type": "string", "format": "uuid", "description": description}


def _text(max_length: int, description: str) -> dict:
    return {"type": "string", "maxLength": max_length, "description": description}


# Every body field of the spec's Content Apps table, with its rule.
FIELDS: dict[str, dict] = {
    "board_id": _uuid("Image board; required whenever the app uses a source or reference image"),
    "project_id": _uuid("Video project the shot belongs to"),
    "prompt": _text(6000, "What to make"),
    "direction": _text(2000, "Extra direction"),
    "aspect": {"type": "string", "enum": ASPECTS, "default": "4:5", "description": "Aspect ratio"},
    "count": {
        "type": "integer",
        "minimum": 1,
        "maximum": 4,
        "default": 1,
        "description": "How many results; each is charged",
    },
    "style": {"type": "string", "enum": STYLES, "description": "Visual style"},
    "format": {
        "type": "string",
        "enum": FORMATS,
        "default": "auto",
        "description": "Ad format (auto lets the service choose)",
    },
    "model": {
        "type": "string",
        "enum": IMAGE_MODELS,
        "default": "auto",
        "description": "Image model (auto lets the service choose)",
    },
    "reference_asset_ids": {
        "type": "array",
        "items": {"type": "string", "format": "uuid"},
        "maxItems": 4,
        "description": "Up to 4 image asset ids on board_id",
    },
    "source_asset_id": _uuid("Asset to work from"),
    "product_asset_id": _uuid("Clean photo of the product"),
    "subject_asset_id": _uuid("Person or product to place"),
    "scene_asset_id": _uuid("Destination scene or second subject"),
    "identity_asset_id": _uuid("Clear image of the new person or character"),
    "portrait_asset_id": _uuid("Front-facing portrait with one clearly visible person"),
    "creator_asset_id": _uuid("Optional creator reference or opening frame"),
    "start_frame_asset_id": _uuid("Image the shot starts from"),
    "end_frame_asset_id": _uuid("Image the shot ends on; needs start_frame_asset_id"),
    "product": _text(500, "The product's name and what it does"),
    "offer": _text(2000, "The offer"),
    "audience": _text(500, "Who the ad is for"),
    "angle": _text(500, "The ad's angle"),
    "hook": _text(500, "The creator's opening line"),
    "creator": _text(300, "Who is speaking"),
    "ad_format": {"type": "string", "maxLength": 200, "description": "The ad's format as free text"},
    "seconds": {"type": "integer", "minimum": 2, "maximum": 15, "default": 8, "description": "Shot length in seconds"},
}

# Fields holding image assets that must already be on `board_id`.
BOARD_ASSET_FIELDS = (
    "source_asset_id",
    "product_asset_id",
    "subject_asset_id",
    "scene_asset_id",
    "identity_asset_id",
    "portrait_asset_id",
    "creator_asset_id",
    "start_frame_asset_id",
    "end_frame_asset_id",
)

# (studio, id) -> descriptor without the computed `inputs`/`path`.
# `fields` lists accepted body fields; `required` the fields the app needs.
_APPS: list[dict[str, Any]] = [
    # Image apps: answer `assets`.
    dict(
        studio="image",
        id="generate",
        label="Generate images",
        short_label="Generate",
        description="Make new images from a prompt, optionally guided by reference images.",
        examples=["A ceramic mug on a sunlit kitchen table", "Flat illustration of a city at dusk"],
        group="create",
        kind="generate",
        returns="assets",
        timing="20-90 s",
        fields=["prompt", "aspect", "count", "style", "model", "board_id", "reference_asset_ids"],
        required=["prompt"],
    ),
    dict(
        studio="image",
        id="product-photo",
        label="Product photo",
        short_label="Product",
        description="Place a clean product photo in a styled scene.",
        examples=["On a marble counter with soft morning light"],
        group="commerce",
        kind="generate",
        returns="assets",
        timing="20-90 s",
        fields=[
            "board_id",
            "product_asset_id",
            "prompt",
            "direction",
            "aspect",
            "count",
            "style",
            "model",
            "reference_asset_ids",
        ],
        required=["board_id", "product_asset_id"],
    ),
    dict(
        studio="image",
        id="ad-creative",
        label="Ad creative",
        short_label="Ad",
        description="Design a static ad for a product, offer and audience.",
        examples=["20% off our trail shoes for weekend hikers"],
        group="commerce",
        kind="generate",
        returns="assets",
        timing="20-90 s",
        fields=[
            "product",
            "offer",
            "audience",
            "angle",
            "format",
            "prompt",
            "aspect",
            "count",
            "model",
            "board_id",
            "product_asset_id",
            "reference_asset_ids",
        ],
        required=["product"],
    ),
    dict(
        studio="image",
        id="edit",
        label="Edit image",
        short_label="Edit",
        description="Change an image on the board as the prompt describes.",
        examples=["Make the sky a warm sunset", "Remove the people in the background"],
        group="edit",
        kind="edit",
        returns="assets",
        timing="20-90 s",
        fields=["board_id", "source_asset_id", "prompt", "count", "model", "reference_asset_ids"],
        required=["board_id", "source_asset_id", "prompt"],
    ),
    dict(
        studio="image",
        id="compose",
        label="Compose",
        short_label="Compose",
        description="Place a subject into a scene, or combine two subjects.",
        examples=["Put the bottle on the beach towel"],
        group="edit",
        kind="compose",
        returns="assets",
        timing="20-90 s",
        fields=["board_id", "subject_asset_id", "scene_asset_id", "prompt", "direction", "aspect", "count", "model"],
        required=["board_id", "subject_asset_id", "scene_asset_id"],
    ),
    dict(
        studio="image",
        id="variations",
        label="Variations",
        short_label="Vary",
        description="Make variations of an image on the board.",
        examples=["Same composition, different colour palettes"],
        group="edit",
        kind="variations",
        returns="assets",
        timing="20-90 s",
        fields=["board_id", "source_asset_id", "prompt", "aspect", "count", "model"],
        required=["board_id", "source_asset_id"],
    ),
    dict(
        studio="image",
        id="remove-background",
        label="Remove background",
        short_label="Cut out",
        description="Cut the subject out onto a transparent background.",
        examples=["Cut out the product photo"],
        group="tools",
        kind="utility",
        returns="assets",
        timing="20-90 s",
        fields=["board_id", "source_asset_id"],
        required=["board_id", "source_asset_id"],
    ),
    dict(
        studio="image",
        id="reframe",
        label="Reframe",
        short_label="Reframe",
        description="Extend or crop an image to a new aspect ratio.",
        examples=["Make it 16:9 for a banner"],
        group="tools",
        kind="utility",
        returns="assets",
        timing="20-90 s",
        fields=["board_id", "source_asset_id", "aspect", "prompt", "direction"],
        required=["board_id", "source_asset_id", "aspect"],
    ),
    dict(
        studio="image",
        id="upscale",
        label="Upscale",
        short_label="Upscale",
        description="Make a sharper, larger copy of an image.",
        examples=["Upscale the hero image for print"],
        group="tools",
        kind="utility",
        returns="assets",
        timing="20-90 s",
        fields=["board_id", "source_asset_id"],
        required=["board_id", "source_asset_id"],
    ),
    # Video apps: answer `status`, `job` and, once complete, `asset`.
    dict(
        studio="video",
        id="generate",
        label="Generate shot",
        short_label="Shot",
        description="Film an AI shot from a prompt; without a project it lands in the Library.",
        examples=["Slow dolly shot across a coffee bar at opening time"],
        group="create",
        kind="shot",
        returns="job",
        timing="1-3 min",
        fields=[
            "prompt",
            "project_id",
            "seconds",
            "aspect",
            "style",
            "model",
            "board_id",
            "start_frame_asset_id",
            "end_frame_asset_id",
        ],
        required=["prompt"],
    ),
    dict(
        studio="video",
        id="product-ad",
        label="Product ad",
        short_label="Product ad",
        description="Film a product ad shot inside a video project.",
        examples=["Hero shot of the headphones with the offer on screen"],
        group="ads",
        kind="shot",
        returns="job",
        timing="1-3 min",
        fields=[
            "project_id",
            "product",
            "product_asset_id",
            "offer",
            "audience",
            "angle",
            "hook",
            "ad_format",
            "direction",
            "board_id",
        ],
        required=["project_id", "product"],
    ),
    dict(
        studio="video",
        id="ugc-ad",
        label="UGC ad",
        short_label="UGC",
        description="Film a creator-style ad with a spoken hook.",
        examples=["A runner explains why she switched shoes"],
        group="ads",
        kind="shot",
        returns="job",
        timing="1-3 min",
        fields=[
            "project_id",
            "product",
            "hook",
            "creator",
            "creator_asset_id",
            "audience",
            "angle",
            "offer",
            "ad_format",
            "board_id",
        ],
        required=["project_id", "product"],
    ),
    dict(
        studio="video",
        id="recast",
        label="Recast",
        short_label="Recast",
        description="Replace the person in a clip (at most 15 seconds) with a new identity.",
        examples=["Swap the presenter for the brand mascot"],
        group="edit",
        kind="shot",
        returns="job",
        timing="1-3 min",
        fields=["project_id", "source_asset_id", "identity_asset_id", "direction", "board_id"],
        required=["project_id", "source_asset_id", "identity_asset_id"],
    ),
    dict(
        studio="video",
        id="remake",
        label="Remake",
        short_label="Remake",
        description="Re-film a clip (at most 15 seconds) in a new setting or style.",
        examples=["Same moves, but in a neon-lit street at night"],
        group="edit",
        kind="shot",
        returns="job",
        timing="1-3 min",
        fields=["project_id", "source_asset_id", "prompt", "direction", "style"],
        required=["project_id", "source_asset_id", "prompt"],
    ),
    dict(
        studio="video",
        id="avatar",
        label="Talking avatar",
        short_label="Avatar",
        description="Make a portrait speak a script.",
        examples=["Welcome to our spring collection..."],
        group="people",
        kind="shot",
        returns="job",
        timing="1-3 min",
        fields=["project_id", "portrait_asset_id", "prompt", "direction", "board_id"],
        required=["project_id", "portrait_asset_id", "prompt"],
    ),
    dict(
        studio="video",
        id="motion",
        label="Motion graphic",
        short_label="Motion",
        description="Generate an editable animated composition (titles, charts, logos).",
        examples=["Animated bar chart of quarterly revenue, brand colours, 6 seconds"],
        group="graphics",
        kind="motion",
        returns="motion",
        timing="1-4 min",
        fields=["prompt", "project_id", "aspect", "seconds", "style", "direction"],
        required=["prompt"],
    ),
]

NOT_RUNNABLE: list[dict[str, Any]] = [
    dict(
        studio="video",
        id="reference",
        label="Reference",
        short_label="Reference",
        description="Collect reference looks for a project.",
        group="planning",
        kind="reference",
        reason="Reference boards are made in the Studio web app; there is nothing to run through the API.",
    ),
    dict(
        studio="video",
        id="camera-path",
        label="Camera path",
        short_label="Camera",
        description="Draw a camera move over a still.",
        group="planning",
        kind="camera",
        reason="Camera paths are drawn by hand in the Studio editor.",
    ),
    dict(
        studio="video",
        id="story",
        label="Story",
        short_label="Story",
        description="Plan a multi-shot story.",
        group="planning",
        kind="story",
        reason="Stories are planned by the video director; send a video turn instead.",
    ),
    dict(
        studio="video",
        id="clips",
        label="Find clips",
        short_label="Clips",
        description="Find stock clips for a project.",
        group="library",
        kind="search",
        reason="Finding clips needs confirmation in the Studio; it is returned in video.pending_requests.",
    ),
    dict(
        studio="video",
        id="music",
        label="Music",
        short_label="Music",
        description="Place music under a project.",
        group="audio",
        kind="audio",
        reason="Music placement is a video turn edit; send a video turn instead.",
    ),
    dict(
        studio="video",
        id="sound-effect",
        label="Sound effect",
        short_label="SFX",
        description="Add a sound effect.",
        group="audio",
        kind="audio",
        reason="Sound effects are added in the Studio editor.",
    ),
]


def _schema(studio: str, app_id: str, fields: list[str], required: list[str], label: str) -> dict:
    properties = {}
    for name in fields:
        prop = copy.deepcopy(FIELDS[name])
        if name == "model" and studio == "video":
            prop.update(enum=VIDEO_TIERS, description="Shot tier")
        if name == "aspect" and studio == "video":
            prop["default"] = "9:16"
        properties[name] = prop
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": label,
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }
    if "end_frame_asset_id" in properties:
        schema["dependentRequired"] = {"end_frame_asset_id": ["start_frame_asset_id"]}
    return schema


def _build_catalogue() -> list[dict]:
    catalogue = []
    for app in _APPS:
        catalogue.append(
            {
                "studio": app["studio"],
                "id": app["id"],
                "label": app["label"],
                "short_label": app["short_label"],
                "description": app["description"],
                "examples": list(app["examples"]),
                "group": app["group"],
                "kind": app["kind"],
                "path": f"/v1/studio/{app['studio']}/apps/{app['id']}",
                "runnable": True,
                "not_runnable_reason": None,
                "returns": app["returns"],
                "timing": app["timing"],
                "inputs": _schema(app["studio"], app["id"], app["fields"], app["required"], app["label"]),
            }
        )
    for app in NOT_RUNNABLE:
        catalogue.append(
            {
                "studio": app["studio"],
                "id": app["id"],
                "label": app["label"],
                "short_label": app["short_label"],
                "description": app["description"],
                "examples": [],
                "group": app["group"],
                "kind": app["kind"],
                "path": f"/v1/studio/{app['studio']}/apps/{app['id']}",
                "runnable": False,
                "not_runnable_reason": app["reason"],
                "returns": "job",
                "timing": "not available",
                "inputs": _schema(app["studio"], app["id"], ["prompt"], [], app["label"]),
            }
        )
    return catalogue


CATALOGUE: list[dict] = _build_catalogue()


def list_apps(studio: str | None = None) -> list[dict]:
    return [copy.deepcopy(app) for app in CATALOGUE if studio in (None, "", app["studio"])]


def find_app(studio: str, app_id: str) -> dict | None:
    for app in CATALOGUE:
        if app["studio"] == studio and app["id"] == app_id:
            return app
    return None


# -- validation --------------------------------------------------------------
def validate(body: Any, schema: dict) -> dict:
    """Check a run body against an app's `inputs` schema with the core's
    checker (the same messages as every other 400), plus `dependentRequired`.
    Answers the spec's details shape (field -> messages); empty when valid."""
    from sandbox.core import VALIDATOR
    from sandbox.validation import details_from

    if not isinstance(body, dict):
        return {"body": ["must be a JSON object"]}
    errors = VALIDATOR.errors(body, schema)
    for name, needed in schema.get("dependentRequired", {}).items():
        if body.get(name) is not None:
            errors += [((other,), f"is required when {name} is given") for other in needed if body.get(other) is None]
    return details_from(errors)


# --------------------------------------------------------------------------
# Running apps
# --------------------------------------------------------------------------
# Service seconds (scaled by the clock), from the spec's typical durations.
IMAGE_APP_SECONDS = 40
VIDEO_SHOT_SECONDS = 90
LIBRARY_SHOT_SECONDS = 80
MOTION_SECONDS = 120
# Credits: each image made; one video shot; one motion composition.
IMAGE_CREDITS = 1
SHOT_CREDITS = 10
MOTION_CREDITS = 5
MAX_CLIP_SECONDS = 15
SHORT_PROMPT = 20  # characters; a shorter motion prompt is too ambiguous

VIDEO_SOURCE_FIELDS = ("source_asset_id",)  # recast and remake start from a clip


def _image_asset_problems(req, body: dict, *, board_id: str | None, image_fields: list[str]) -> dict:
    """Every source or reference image must exist in the workspace and, when a
    board is named, be on that board (the spec's rule for image apps)."""
    problems: dict[str, list[str]] = {}
    for name in image_fields:
        values = body.get(name)
        if values is None:
            continue
        ids = values if isinstance(values, list) else [values]
        for asset_id in ids:
            asset = req.store.get("image_asset", asset_id, workspace_id=req.workspace_id)
            if asset is None:
                problems.setdefault(name, []).append(f"no image {asset_id} in this workspace")
            elif board_id and asset.get("board_id") != board_id:
                problems.setdefault(name, []).append(f"image {asset_id} is not on board {board_id}")
    return problems


def _check_references(req, studio: str, app: dict, body: dict) -> None:
    from sandbox.core import invalid, not_found

    board_id = body.get("board_id")
    if board_id and req.store.get("image_board", board_id, workspace_id=req.workspace_id) is None:
        raise not_found("image board")
    project_id = body.get("project_id")
    if project_id and req.store.get("video_project", project_id, workspace_id=req.workspace_id) is None:
        raise not_found("video project")
    image_fields = [f for f in BOARD_ASSET_FIELDS if f in body] + (
        ["reference_asset_ids"] if "reference_asset_ids" in body else []
    )
    if studio == "video":
        image_fields = [f for f in image_fields if f not in VIDEO_SOURCE_FIELDS]
    elif image_fields and not board_id:
        raise invalid({"board_id": [f"is required when {image_fields[0]} is given (sources must be on a board)"]})
    problems = _image_asset_problems(req, body, board_id=board_id, image_fields=image_fields)
    if studio == "video" and body.get("source_asset_id"):
        clip = req.store.get("video_asset", body["source_asset_id"], workspace_id=req.workspace_id)
        if clip is None:
            problems.setdefault("source_asset_id", []).append("no video clip with this id in this workspace")
        elif clip.get("seconds", 0) > MAX_CLIP_SECONDS:
            problems.setdefault("source_asset_id", []).append(
                f"the clip is {clip['seconds']} seconds; at most {MAX_CLIP_SECONDS} seconds"
            )
    if problems:
        raise invalid(problems)


def _result_size(req, app_id: str, body: dict) -> tuple[int, int] | None:
    from sandbox.images import size_for_aspect

    source = req.store.get("image_asset", body["source_asset_id"]) if body.get("source_asset_id") else None
    if app_id == "upscale" and source:
        return min(source["width"] * 2, 4096), min(source["height"] * 2, 4096)
    if body.get("aspect"):
        return size_for_aspect(body["aspect"])
    if source:
        return source["width"], source["height"]
    return None


def _describe(app_id: str, body: dict, req) -> str:
    if body.get("prompt"):
        return body["prompt"]
    if body.get("product"):
        return f"{app_id}: {body['product']}"
    source = req.store.get("image_asset", body["source_asset_id"]) if body.get("source_asset_id") else None
    if source:
        return f"{app_id} of {source.get('prompt', '')}".strip()
    return app_id


def _check_semantics(req, app: dict, body: dict) -> None:
    """Values the schema accepts but the app cannot use: 422 naming the field
    (the spec's "record values failing validation (message names the field)")."""
    from sandbox.core import unprocessable

    if app["id"] == "reframe" and body.get("source_asset_id") and body.get("aspect"):
        source = req.store.get("image_asset", body["source_asset_id"])
        if source and source.get("aspect", "4:5") == body["aspect"]:
            raise unprocessable(
                f"Aspect (aspect) is already {body['aspect']}; choose another aspect to reframe to.",
                {"aspect": [f"the image is already {body['aspect']}; choose another aspect"]},
            )


def run_image_app(req, app: dict, body: dict):
    from sandbox.library import create_image_asset, render_image_asset

    _check_semantics(req, app, body)

    count = body.get("count", 1)
    req.check_credits(count * IMAGE_CREDITS)  # reserved before the run
    ready_at = req.clock.at(req.clock.iso(), IMAGE_APP_SECONDS)
    prompt = _describe(app["id"], body, req)
    size = _result_size(req, app["id"], body)
    assets = [
        create_image_asset(
            req,
            board_id=body.get("board_id"),
            prompt=f"{prompt} #{i + 1}" if count > 1 else prompt,
            aspect=body.get("aspect"),
            size=size,
            ready_at=ready_at,
            made_by=f"app:{app['id']}",
        )
        for i in range(count)
    ]
    req.charge(len(assets) * IMAGE_CREDITS)  # only what was made
    req.clock.sleep_until(ready_at)
    return {
        "studio": "image",
        "app": app["id"],
        "status": "complete",
        "board_id": body.get("board_id"),
        "credits_charged": len(assets) * IMAGE_CREDITS,
        "assets": [render_image_asset(req, a) for a in assets],
    }


def render_shot(req, shot: dict) -> tuple[int, dict]:
    """A video shot as it is now: 202 building, then 200 complete with `asset`."""
    from sandbox.library import is_ready, render_video_asset

    done = is_ready(shot["ready_at"], req.clock.now())
    job = {
        "id": shot["id"],
        "status": "succeeded" if done else "building",
        "app": shot["app"],
        "project_id": shot.get("project_id"),
        "seconds": shot["seconds"],
        "started_at": shot["created_at"],
        "finished_at": shot["ready_at"] if done else None,
        "error": None,
    }
    body = {
        "studio": "video",
        "app": shot["app"],
        "status": "complete" if done else "building",
        "job": job,
        "project_id": shot.get("project_id"),
        "idempotency_key": shot.get("idempotency_key"),
    }
    if done:
        asset = req.store.get("video_asset", shot["asset_id"])
        body["asset"] = render_video_asset(req, asset)
    return (200 if done else 202), body


def run_video_shot(req, app: dict, body: dict):
    """Start a shot: charged once, filmed over scaled time, added to the end of
    the project when done. The answer is stored under the Idempotency-Key with a
    replay hook, so repeating the request polls instead of filming again."""
    from sandbox.core import Response
    from sandbox.library import create_video_asset

    req.check_credits(SHOT_CREDITS)
    project_id = body.get("project_id")
    seconds = body.get("seconds", 8)
    started = req.clock.iso()
    ready_at = req.clock.at(started, VIDEO_SHOT_SECONDS if project_id else LIBRARY_SHOT_SECONDS)
    prompt = _describe(app["id"], body, req)
    project = req.store.get("video_project", project_id) if project_id else None
    aspect = body.get("aspect") or (project or {}).get("aspect", "9:16")
    asset = create_video_asset(
        req,
        project_id=project_id,
        prompt=prompt,
        seconds=seconds,
        aspect=aspect,
        ready_at=ready_at,
        made_by=f"app:{app['id']}",
    )
    key = req.ensure_idempotency_key() if project_id else req.idempotency_key
    shot = req.store.insert(
        "video_shot",
        {
            "app": app["id"],
            "project_id": project_id,
            "input": body,
            "seconds": seconds,
            "asset_id": asset["id"],
            "ready_at": ready_at,
            "idempotency_key": key,
            "created_at": started,
        },
        workspace_id=req.workspace_id,
    )
    if project is not None:
        with req.store.lock:
            project = req.store.get("video_project", project_id)
            project["shots"] = project.get("shots", []) + [
                {
                    "asset_id": asset["id"],
                    "seconds": seconds,
                    "app": app["id"],
                    "prompt": prompt,
                    "ready_at": ready_at,
                    "shot_id": shot["id"],
                }
            ]
            req.store.save("video_project", project)
    req.charge(SHOT_CREDITS)
    ref_value = {"shot_id": shot["id"]}
    if project_id:
        status, rendered = render_shot(req, shot)
        return Response(rendered, status=status, replay=("video_shot", ref_value))
    req.clock.sleep_until(ready_at)  # a Library shot answers when done
    status, rendered = render_shot(req, shot)
    return Response(rendered, status=status, replay=("video_shot", ref_value))


def run_motion(req, app: dict, body: dict):
    from sandbox.library import create_video_asset, render_video_asset

    prompt = body["prompt"].strip()
    req.check_credits(MOTION_CREDITS)
    ready_at = req.clock.at(req.clock.iso(), MOTION_SECONDS)
    if len(prompt) < SHORT_PROMPT:
        # Too little to go on: nothing is made and nothing is charged.
        req.clock.sleep_until(req.clock.at(req.clock.iso(), 5))
        return {
            "studio": "video",
            "app": "motion",
            "status": "needs_input",
            "motion": {
                "status": "needs_input",
                "questions": [
                    {
                        "text": "What should the animation show?",
                        "options": ["A title card", "A chart", "A logo reveal"],
                    },
                    {"text": "How long should it run?", "options": ["4 seconds", "6 seconds", "10 seconds"]},
                ],
                "hint": "Send a more specific prompt (what, style, length).",
            },
        }
    seconds = body.get("seconds", 6)
    asset = create_video_asset(
        req,
        project_id=body.get("project_id"),
        prompt=prompt,
        seconds=seconds,
        aspect=body.get("aspect", "9:16"),
        ready_at=ready_at,
        made_by="app:motion",
    )
    if body.get("project_id"):
        with req.store.lock:
            project = req.store.get("video_project", body["project_id"])
            project["shots"] = project.get("shots", []) + [
                {"asset_id": asset["id"], "seconds": seconds, "app": "motion", "prompt": prompt, "ready_at": ready_at}
            ]
            req.store.save("video_project", project)
    req.charge(MOTION_CREDITS)
    req.clock.sleep_until(ready_at)
    return {
        "studio": "video",
        "app": "motion",
        "status": "complete",
        "motion": {
            "status": "complete",
            "id": asset["id"],
            "editable": True,
            "composition": {
                "duration_seconds": seconds,
                "aspect": body.get("aspect", "9:16"),
                "layers": [
                    {"kind": "background"},
                    {"kind": "text", "text": prompt[:120]},
                    {"kind": "shape", "animation": "slide-in"},
                ],
            },
            "asset": render_video_asset(req, asset),
        },
    }


# --------------------------------------------------------------------------
# Routes
# --------------------------------------------------------------------------
def _register_routes() -> None:
    from sandbox.core import ApiError, not_found, ref, register_schema, replay_hook, route, unprocessable

    descriptor = register_schema(
        "ContentApp",
        {
            "type": "object",
            "required": [
                "studio",
                "id",
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
            ],
            "properties": {
                "studio": {"type": "string", "enum": ["image", "video"]},
                "id": {"type": "string"},
                "label": {"type": "string"},
                "short_label": {"type": "string"},
                "description": {"type": "string"},
                "examples": {"type": "array", "items": {"type": "string"}},
                "group": {"type": "string"},
                "kind": {"type": "string"},
                "path": {"type": "string"},
                "runnable": {"type": "boolean"},
                "not_runnable_reason": {"type": ["string", "null"]},
                "returns": {"type": "string", "enum": ["assets", "job", "motion"]},
                "timing": {"type": "string"},
                "inputs": {"type": "object"},
            },
        },
    )
    run_result = register_schema(
        "ContentAppRun",
        {
            "type": "object",
            "required": ["studio", "app", "status"],
            "properties": {
                "studio": {"type": "string"},
                "app": {"type": "string"},
                "status": {"type": "string", "enum": ["complete", "building", "needs_input"]},
                "assets": {"type": "array", "items": ref("ImageAsset")},
                "job": {"type": "object"},
                "asset": {"type": "object"},
                "motion": {"type": "object"},
                "project_id": {"type": ["string", "null"]},
                "board_id": {"type": ["string", "null"]},
                "idempotency_key": {"type": ["string", "null"]},
            },
        },
    )

    @route(
        "GET",
        "/v1/studio/apps",
        operation_id="studio_apps_list",
        summary="Every Content App with its inputs",
        tags=["Content Apps"],
        query={"studio": {"type": "string", "enum": ["image", "video"]}},
        responses={
            200: {
                "type": "object",
                "required": ["apps"],
                "properties": {"apps": {"type": "array", "items": descriptor}},
            }
        },
    )
    def studio_apps_list(req):
        """Free and instant. `inputs` is the JSON Schema of the body each app accepts."""
        return {"apps": list_apps(req.params.get("studio"))}

    @route(
        "POST",
        "/v1/studio/{studio}/apps/{app}",
        operation_id="studio_app_run",
        summary="Run a Content App",
        tags=["Content Apps"],
        path_params={
            "studio": {"type": "string", "enum": ["image", "video"]},
            "app": {"type": "string", "maxLength": 64},
        },
        body={"type": "object", "description": "Only the fields the app's `inputs` schema accepts."},
        body_required=False,
        responses={200: run_result, 202: run_result},
        slow=True,
    )
    def studio_app_run(req):
        """Image apps answer `assets` when saved; video apps with `project_id` answer 202 `building` with a
        `job` (repeat with the same Idempotency-Key to poll: 200 `complete` with `asset`, charged once);
        `generate` without a project answers when done; `motion` answers `motion`. 422 when not runnable."""
        studio, app_id = req.path_params["studio"], req.path_params["app"]
        app = find_app(studio, app_id)
        if app is None:
            raise not_found(f"{studio} app {app_id!r}")
        if not app["runnable"]:
            raise unprocessable(
                f"The {app['label']} app is not runnable: {app['not_runnable_reason']}",
                {"reason": app["not_runnable_reason"], "app": app_id},
            )
        body = req.body or {}
        problems = validate(body, app["inputs"])
        if problems:
            from sandbox.core import invalid

            raise invalid(problems)
        _check_references(req, studio, app, body)
        if studio == "image":
            return run_image_app(req, app, body)
        if app_id == "motion":
            return run_motion(req, app, body)
        return run_video_shot(req, app, body)

    @replay_hook("video_shot")
    def replay_video_shot(req, ref_value):
        from sandbox.core import Response

        shot = req.store.get("video_shot", ref_value["shot_id"])
        if shot is None:
            raise ApiError(404, "not_found", "No such video shot.")
        status, body = render_shot(req, shot)
        return Response(body, status=status)


_register_routes()
