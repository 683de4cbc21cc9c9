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
import re
from typing import Any

ASPECTS = ["4:5", "1:1", "16:9", "9:16", "4:3", "3:4", "21:9"]
STYLES = ["none", "cinematic", "anime", "photorealistic", "digital-art", "oil-painting", "watercolor", "3d-render"]
FORMATS = [
    "auto", "product", "lifestyle", "testimonial", "comparison", "offer", "problem-solution", "demo", "founder",
    "listicle", "native", "before-after", "meme", "zero-star-review", "notes-app", "apology-letter", "text-message",
    "social-comment", "receipt", "statistic", "press",
]
# The real identifiers carry vendor names; the spec writes them as placeholders.
IMAGE_MODELS = ["auto", "image-model-1", "image-model-2", "image-model-3", "image-model-4"]
VIDEO_TIERS = ["auto", "draft", "standard", "cinema", "video-model-1", "video-model-2"]

UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


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
    "count": {"type": "integer", "minimum": 1, "maximum": 4, "default": 1, "description": "How many results; each is charged"},
    "style": {"type": "string", "enum": STYLES, "description": "Visual style"},
    "format": {"type": "string", "enum": FORMATS, "default": "auto", "description": "Ad format (auto lets the service choose)"},
    "model": {"type": "string", "enum": IMAGE_MODELS, "default": "auto", "description": "Image model (auto lets the service choose)"},
    "reference_asset_ids": {
        "type": "array", "items": {"type": "string", "format": "uuid"}, "maxItems": 4,
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
    "source_asset_id", "product_asset_id", "subject_asset_id", "scene_asset_id", "identity_asset_id",
    "portrait_asset_id", "creator_asset_id", "start_frame_asset_id", "end_frame_asset_id",
)

# (studio, id) -> descriptor without the computed `inputs`/`path`.
# `fields` lists accepted body fields; `required` the fields the app needs.
_APPS: list[dict[str, Any]] = [
    # Image apps: answer `assets`.
    dict(studio="image", id="generate", label="Generate images", short_label="Generate",
         description="Make new images from a prompt, optionally guided by reference images.",
         examples=["A ceramic mug on a sunlit kitchen table", "Flat illustration of a city at dusk"],
         group="create", kind="generate", returns="assets", timing="20-90 s",
         fields=["prompt", "aspect", "count", "style", "model", "board_id", "reference_asset_ids"],
         required=["prompt"]),
    dict(studio="image", id="product-photo", label="Product photo", short_label="Product",
         description="Place a clean product photo in a styled scene.",
         examples=["On a marble counter with soft morning light"],
         group="commerce", kind="generate", returns="assets", timing="20-90 s",
         fields=["board_id", "product_asset_id", "prompt", "direction", "aspect", "count", "style", "model",
                 "reference_asset_ids"],
         required=["board_id", "product_asset_id"]),
    dict(studio="image", id="ad-creative", label="Ad creative", short_label="Ad",
         description="Design a static ad for a product, offer and audience.",
         examples=["20% off our trail shoes for weekend hikers"],
         group="commerce", kind="generate", returns="assets", timing="20-90 s",
         fields=["product", "offer", "audience", "angle", "format", "prompt", "aspect", "count", "model",
                 "board_id", "product_asset_id", "reference_asset_ids"],
         required=["product"]),
    dict(studio="image", id="edit", label="Edit image", short_label="Edit",
         description="Change an image on the board as the prompt describes.",
         examples=["Make the sky a warm sunset", "Remove the people in the background"],
         group="edit", kind="edit", returns="assets", timing="20-90 s",
         fields=["board_id", "source_asset_id", "prompt", "count", "model", "reference_asset_ids"],
         required=["board_id", "source_asset_id", "prompt"]),
    dict(studio="image", id="compose", label="Compose", short_label="Compose",
         description="Place a subject into a scene, or combine two subjects.",
         examples=["Put the bottle on the beach towel"],
         group="edit", kind="compose", returns="assets", timing="20-90 s",
         fields=["board_id", "subject_asset_id", "scene_asset_id", "prompt", "direction", "aspect", "count",
                 "model"],
         required=["board_id", "subject_asset_id", "scene_asset_id"]),
    dict(studio="image", id="variations", label="Variations", short_label="Vary",
         description="Make variations of an image on the board.",
         examples=["Same composition, different colour palettes"],
         group="edit", kind="variations", returns="assets", timing="20-90 s",
         fields=["board_id", "source_asset_id", "prompt", "aspect", "count", "model"],
         required=["board_id", "source_asset_id"]),
    dict(studio="image", id="remove-background", label="Remove background", short_label="Cut out",
         description="Cut the subject out onto a transparent background.",
         examples=["Cut out the product photo"],
         group="tools", kind="utility", returns="assets", timing="20-90 s",
         fields=["board_id", "source_asset_id"],
         required=["board_id", "source_asset_id"]),
    dict(studio="image", id="reframe", label="Reframe", short_label="Reframe",
         description="Extend or crop an image to a new aspect ratio.",
         examples=["Make it 16:9 for a banner"],
         group="tools", kind="utility", returns="assets", timing="20-90 s",
         fields=["board_id", "source_asset_id", "aspect", "prompt", "direction"],
         required=["board_id", "source_asset_id", "aspect"]),
    dict(studio="image", id="upscale", label="Upscale", short_label="Upscale",
         description="Make a sharper, larger copy of an image.",
         examples=["Upscale the hero image for print"],
         group="tools", kind="utility", returns="assets", timing="20-90 s",
         fields=["board_id", "source_asset_id"],
         required=["board_id", "source_asset_id"]),
    # Video apps: answer `status`, `job` and, once complete, `asset`.
    dict(studio="video", id="generate", label="Generate shot", short_label="Shot",
         description="Film an AI shot from a prompt; without a project it lands in the Library.",
         examples=["Slow dolly shot across a coffee bar at opening time"],
         group="create", kind="shot", returns="job", timing="1-3 min",
         fields=["prompt", "project_id", "seconds", "aspect", "style", "model", "board_id",
                 "start_frame_asset_id", "end_frame_asset_id"],
         required=["prompt"]),
    dict(studio="video", id="product-ad", label="Product ad", short_label="Product ad",
         description="Film a product ad shot inside a video project.",
         examples=["Hero shot of the headphones with the offer on screen"],
         group="ads", kind="shot", returns="job", timing="1-3 min",
         fields=["project_id", "product", "product_asset_id", "offer", "audience", "angle", "hook", "ad_format",
                 "direction", "board_id"],
         required=["project_id", "product"]),
    dict(studio="video", id="ugc-ad", label="UGC ad", short_label="UGC",
         description="Film a creator-style ad with a spoken hook.",
         examples=["A runner explains why she switched shoes"],
         group="ads", kind="shot", returns="job", timing="1-3 min",
         fields=["project_id", "product", "hook", "creator", "creator_asset_id", "audience", "angle", "offer",
                 "ad_format", "board_id"],
         required=["project_id", "product"]),
    dict(studio="video", id="recast", label="Recast", short_label="Recast",
         description="Replace the person in a clip (at most 15 seconds) with a new identity.",
         examples=["Swap the presenter for the brand mascot"],
         group="edit", kind="shot", returns="job", timing="1-3 min",
         fields=["project_id", "source_asset_id", "identity_asset_id", "direction", "board_id"],
         required=["project_id", "source_asset_id", "identity_asset_id"]),
    dict(studio="video", id="remake", label="Remake", short_label="Remake",
         description="Re-film a clip (at most 15 seconds) in a new setting or style.",
         examples=["Same moves, but in a neon-lit street at night"],
         group="edit", kind="shot", returns="job", timing="1-3 min",
         fields=["project_id", "source_asset_id", "prompt", "direction", "style"],
         required=["project_id", "source_asset_id", "prompt"]),
    dict(studio="video", id="avatar", label="Talking avatar", short_label="Avatar",
         description="Make a portrait speak a script.",
         examples=["Welcome to our spring collection..."],
         group="people", kind="shot", returns="job", timing="1-3 min",
         fields=["project_id", "portrait_asset_id", "prompt", "direction", "board_id"],
         required=["project_id", "portrait_asset_id", "prompt"]),
    dict(studio="video", id="motion", label="Motion graphic", short_label="Motion",
         description="Generate an editable animated composition (titles, charts, logos).",
         examples=["Animated bar chart of quarterly revenue, brand colours, 6 seconds"],
         group="graphics", kind="motion", returns="motion", timing="1-4 min",
         fields=["prompt", "project_id", "aspect", "seconds", "style", "direction"],
         required=["prompt"]),
]

NOT_RUNNABLE: list[dict[str, Any]] = [
    dict(studio="video", id="reference", label="Reference", short_label="Reference",
         description="Collect reference looks for a project.", group="planning", kind="reference",
         reason="Reference boards are made in the Studio web app; there is nothing to run through the API."),
    dict(studio="video", id="camera-path", label="Camera path", short_label="Camera",
         description="Draw a camera move over a still.", group="planning", kind="camera",
         reason="Camera paths are drawn by hand in the Studio editor."),
    dict(studio="video", id="story", label="Story", short_label="Story",
         description="Plan a multi-shot story.", group="planning", kind="story",
         reason="Stories are planned by the video director; send a video turn instead."),
    dict(studio="video", id="clips", label="Find clips", short_label="Clips",
         description="Find stock clips for a project.", group="library", kind="search",
         reason="Finding clips needs confirmation in the Studio; it is returned in video.pending_requests."),
    dict(studio="video", id="music", label="Music", short_label="Music",
         description="Place music under a project.", group="audio", kind="audio",
         reason="Music placement is a video turn edit; send a video turn instead."),
    dict(studio="video", id="sound-effect", label="Sound effect", short_label="SFX",
         description="Add a sound effect.", group="audio", kind="audio",
         reason="Sound effects are added in the Studio editor."),
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
        catalogue.append({
            "studio": app["studio"], "id": app["id"], "label": app["label"], "short_label": app["short_label"],
            "description": app["description"], "examples": list(app["examples"]), "group": app["group"],
            "kind": app["kind"], "path": f"/v1/studio/{app['studio']}/apps/{app['id']}", "runnable": True,
            "not_runnable_reason": None, "returns": app["returns"], "timing": app["timing"],
            "inputs": _schema(app["studio"], app["id"], app["fields"], app["required"], app["label"]),
        })
    for app in NOT_RUNNABLE:
        catalogue.append({
            "studio": app["studio"], "id": app["id"], "label": app["label"], "short_label": app["short_label"],
            "description": app["description"], "examples": [], "group": app["group"], "kind": app["kind"],
            "path": f"/v1/studio/{app['studio']}/apps/{app['id']}", "runnable": False,
            "not_runnable_reason": app["reason"], "returns": "job", "timing": "not available",
            "inputs": _schema(app["studio"], app["id"], ["prompt"], [], app["label"]),
        })
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

_TYPE_NAMES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
               "array": "a list", "object": "an object"}


def _type_ok(value: Any, expected: str) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "array":
        return isinstance(value, list)
    if expected == "object":
        return isinstance(value, dict)
    return True


def _check_value(value: Any, schema: dict) -> list[str]:
    expected = schema.get("type")
    if expected and not _type_ok(value, expected):
        return [f"Must be {_TYPE_NAMES.get(expected, expected)}."]
    messages = []
    if "enum" in schema and value not in schema["enum"]:
        messages.append("Must be one of: " + ", ".join(map(str, schema["enum"])) + ".")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            messages.append(f"Must be at least {schema['minLength']} characters.")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            messages.append(f"Must be at most {schema['maxLength']} characters (got {len(value)}).")
        if schema.get("format") == "uuid" and not UUID_RE.match(value):
            messages.append("Must be a UUID.")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            messages.append(f"Must be at least {schema['minimum']}.")
        if "maximum" in schema and value > schema["maximum"]:
            messages.append(f"Must be at most {schema['maximum']}.")
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            messages.append(f"At most {schema['maxItems']} items.")
        item_schema = schema.get("items")
        if item_schema:
            for index, item in enumerate(value):
                for message in _check_value(item, item_schema):
                    messages.append(f"Item {index}: {message}")
    return messages


def validate(body: Any, schema: dict) -> dict[str, list[str]]:
    """Check `body` against one of our object schemas; answer field -> messages
    (empty when valid). Covers the keywords the descriptors use."""
    if not isinstance(body, dict):
        return {"body": ["Must be a JSON object."]}
    errors: dict[str, list[str]] = {}
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if body.get(name) is None:
            errors.setdefault(name, []).append("This field is required.")
    for name, value in body.items():
        if name not in properties:
            if schema.get("additionalProperties") is False:
                errors.setdefault(name, []).append("Unknown field; this app does not accept it.")
            continue
        if value is None and name not in schema.get("required", []):
            continue
        messages = _check_value(value, properties[name])
        if messages:
            errors.setdefault(name, []).extend(messages)
    for name, needed in schema.get("dependentRequired", {}).items():
        if body.get(name) is not None:
            for other in needed:
                if body.get(other) is None:
                    errors.setdefault(other, []).append(f"Required when {name} is given.")
    return errors
