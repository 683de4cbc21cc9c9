"""The Studio library: websites, documents, apps, image boards, images, video
projects, and the generated files behind image and video assets.

Time-driven state (a website build, an image that is still being made, a video
shot being filmed) is stored as absolute `*_ready_at` timestamps computed with
the scaled clock when the work starts; every read compares them with the current
time. Nothing runs in the background and nothing is written on read.

Storage kinds: `website`, `document`, `app`, `image_board`, `image_asset`,
`video_project`, `video_asset` (the first, `image_board` and `video_project`
double as the records of the built-in objects `websites`, `image_boards` and
`video_boards`).
"""

from __future__ import annotations

import re
from datetime import datetime

from sandbox.clock import parse_iso
from sandbox.core import PAGE_QUERY, UUID, ApiError, Response, not_found, page_of, paginate, register_schema, route
from sandbox.images import PNG_MIME, SVG_MIME, render_png, render_svg, size_for_aspect

TAG = ["Studio library"]
NULLABLE_STRING = {"type": ["string", "null"]}


def is_ready(ready_at: str | None, now: datetime) -> bool:
    """True once the stored `ready_at` time has passed at `now` (None means
    ready). `now` is the sandbox clock's (`req.clock.now()`), never the wall
    clock's, so an advanced clock moves every state machine."""
    return ready_at is None or now >= parse_iso(ready_at)


def artifact_url(req, studio: str, artifact_id: str) -> str:
    return f"{req.app_url}/{studio}/{artifact_id}"


def file_url(req, file_id: str, ext: str) -> str:
    return f"{req.base_url}/files/{file_id}.{ext}"


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48] or "site"


LEADING_WORDS = {
    "make",
    "create",
    "build",
    "write",
    "design",
    "draft",
    "generate",
    "please",
    "me",
    "a",
    "an",
    "the",
    "new",
    "for",
    "of",
    "website",
    "site",
    "document",
    "app",
    "images",
    "image",
    "video",
    "some",
    "i",
    "want",
    "need",
    "we",
    "can",
    "you",
    "two",
    "three",
    "four",
    "one",
}


def name_from_message(message: str, fallback: str) -> str:
    """A short, readable artifact name from the first words of a message."""
    words = re.findall(r"[A-Za-z0-9][A-Za-z0-9'&-]*", message)
    # Drop the request's leading verbs and articles ("Make a website for ...").
    while len(words) > 2 and words[0].lower() in LEADING_WORDS:
        words = words[1:]
    if not words:
        return fallback
    name = " ".join(words[:6])
    return (name[:1].upper() + name[1:])[:80]


# --------------------------------------------------------------------------
# Websites
# --------------------------------------------------------------------------
def website_status(site: dict, now: datetime) -> str:
    job = site.get("job") or {}
    if job.get("failed"):
        return "failed"
    return "published" if is_ready(job.get("ready_at"), now) else "building"


def website_job(site: dict, now: datetime) -> dict:
    """The latest build job: queued/generate until its time has passed, then
    succeeded/complete (the spec's seen values)."""
    job = site.get("job") or {}
    done = is_ready(job.get("ready_at"), now)
    return {
        "id": job.get("id"),
        "status": "succeeded" if done else "queued",
        "stage": "complete" if done else "generate",
        "error": None,
        "started_at": job.get("started_at"),
        "finished_at": job.get("ready_at") if done else None,
    }


def website_public_url(req, site: dict, now: datetime) -> str | None:
    # Public once the first build has finished; later rebuilds keep it public.
    if is_ready(site.get("first_live_at"), now):
        return f"{req.app_url}/sites/{site['slug']}"
    return None


def render_website(req, site: dict, *, full: bool = False) -> dict:
    now = req.clock.now()
    body = {
        "id": site["id"],
        "object": "website",
        "name": site["name"],
        "status": website_status(site, now),
        "url": artifact_url(req, "website", site["id"]),
        "public_url": website_public_url(req, site, now),
        "created_at": site["created_at"],
        "updated_at": site["updated_at"],
    }
    if full:
        body["build"] = website_job(site, now)
        body["pages"] = site.get("pages", [])
        body["brief"] = site.get("brief", "")
    return body


# --------------------------------------------------------------------------
# Documents and apps
# --------------------------------------------------------------------------
def render_document(req, doc: dict, *, full: bool = False) -> dict:
    body = {
        "id": doc["id"],
        "object": "document",
        "name": doc["name"],
        "doc_type": doc.get("doc_type", "document"),
        "url": artifact_url(req, "document", doc["id"]),
        "public_url": None,
        "word_count": len((doc.get("content") or "").split()),
        "created_at": doc["created_at"],
        "updated_at": doc["updated_at"],
    }
    if full:
        body["format"] = "markdown"
        body["content"] = doc.get("content", "")
        body["outline"] = doc.get("outline")
        body["revision"] = doc.get("revision", 1)
    return body


def render_app(req, app: dict, *, full: bool = False) -> dict:
    body = {
        "id": app["id"],
        "object": "app",
        "name": app["name"],
        "status": app.get("status", "live"),
        "url": artifact_url(req, "app", app["id"]),
        "public_url": f"{req.app_url}/apps/{app['id']}/live" if app.get("status") == "live" else None,
        "has_unpublished_changes": bool(app.get("has_unpublished_changes")),
        "created_at": app["created_at"],
        "updated_at": app["updated_at"],
    }
    if full:
        body["screens"] = app.get("screens", [])
        body["objects"] = app.get("objects", [])
        body["actions"] = app.get("actions", [])
    return body


# --------------------------------------------------------------------------
# Image boards and image assets
# --------------------------------------------------------------------------
def create_image_asset(
    req,
    *,
    board_id: str | None,
    prompt: str,
    aspect: str | None = None,
    ready_at: str | None = None,
    made_by: str = "turn",
    size: tuple[int, int] | None = None,
    store=None,
    workspace_id: str | None = None,
    created_at: str | None = None,
) -> dict:
    """Store one generated image (its pixels are drawn on request from the prompt)."""
    width, height = size or size_for_aspect(aspect)
    doc = {
        "board_id": board_id,
        "prompt": prompt,
        "aspect": aspect or "4:5",
        "width": width,
        "height": height,
        "mime_type": PNG_MIME,
        "ready_at": ready_at,
        "made_by": made_by,
    }
    if created_at:
        doc["created_at"] = doc["updated_at"] = created_at
    store = store or req.store
    return store.insert("image_asset", doc, workspace_id=workspace_id or req.workspace_id)


def render_image_asset(req, asset: dict) -> dict:
    return {
        "id": asset["id"],
        "url": file_url(req, asset["id"], "png"),
        "media_type": "image",
        "mime_type": asset.get("mime_type", PNG_MIME),
        "width": asset["width"],
        "height": asset["height"],
        "duration_seconds": None,
        "prompt": asset.get("prompt", ""),
        "board_id": asset.get("board_id"),
        "created_at": asset["created_at"],
    }


def ready_images(req, *, board_id: str | None = None) -> list[dict]:
    where = {"board_id": board_id} if board_id else None
    now = req.clock.now()
    return [
        a
        for a in req.store.list("image_asset", workspace_id=req.workspace_id, where=where)
        if is_ready(a.get("ready_at"), now)
    ]


def render_board(req, board: dict) -> dict:
    images = ready_images(req, board_id=board["id"])
    return {
        "id": board["id"],
        "object": "image_board",
        "name": board["name"],
        "url": artifact_url(req, "image", board["id"]),
        "image_count": len(images),
        "cover_url": file_url(req, images[-1]["id"], "png") if images else None,
        "created_at": board["created_at"],
        "updated_at": board["updated_at"],
    }


# --------------------------------------------------------------------------
# Video projects and video assets
# --------------------------------------------------------------------------
def create_video_asset(
    req,
    *,
    project_id: str | None,
    prompt: str,
    seconds: float,
    aspect: str = "9:16",
    ready_at: str | None = None,
    made_by: str = "generate",
) -> dict:
    width, height = size_for_aspect(aspect)
    return req.store.insert(
        "video_asset",
        {
            "project_id": project_id,
            "prompt": prompt,
            "seconds": seconds,
            "aspect": aspect,
            "width": width,
            "height": height,
            "ready_at": ready_at,
            "made_by": made_by,
        },
        workspace_id=req.workspace_id,
    )


def render_video_asset(req, asset: dict) -> dict:
    # The sandbox cannot film: a video asset's file is an SVG poster frame.
    return {
        "id": asset["id"],
        "url": file_url(req, asset["id"], "svg"),
        "media_type": "video",
        "mime_type": SVG_MIME,
        "width": asset["width"],
        "height": asset["height"],
        "duration_seconds": asset["seconds"],
        "prompt": asset.get("prompt", ""),
        "board_id": asset.get("project_id"),
        "created_at": asset["created_at"],
    }


def project_shots(req, project: dict) -> list[dict]:
    """Shots whose filming has finished, in project order (a shot being filmed
    is added to the end of the video once it is done)."""
    now = req.clock.now()
    return [s for s in project.get("shots", []) if is_ready(s.get("ready_at"), now)]


def render_video_project(req, project: dict) -> dict:
    shots = project_shots(req, project)
    return {
        "id": project["id"],
        "object": "video_project",
        "name": project["name"],
        "aspect": project.get("aspect", "9:16"),
        "url": artifact_url(req, "video", project["id"]),
        "shot_count": len(shots),
        "duration_seconds": round(sum(s.get("seconds", 0) for s in shots), 2),
        "shots": [
            {
                "asset_id": s["asset_id"],
                "seconds": s.get("seconds"),
                "app": s.get("app"),
                "prompt": s.get("prompt", ""),
                "url": file_url(req, s["asset_id"], "svg"),
            }
            for s in shots
        ],
        "captions": bool(project.get("captions")),
        "title": project.get("title"),
        "created_at": project["created_at"],
        "updated_at": project["updated_at"],
    }


# --------------------------------------------------------------------------
# OpenAPI schemas
# --------------------------------------------------------------------------
STAMPS = {"created_at": {"type": "string"}, "updated_at": {"type": "string"}}

WEBSITE = register_schema(
    "Website",
    {
        "type": "object",
        "required": ["id", "object", "name", "status", "url", "public_url"],
        "properties": {
            "id": UUID,
            "object": {"const": "website"},
            "name": {"type": "string"},
            "status": {"type": "string", "enum": ["building", "published", "failed"]},
            "url": {"type": "string"},
            "public_url": NULLABLE_STRING,
            "build": {"type": "object"},
            "pages": {"type": "array"},
            **STAMPS,
        },
    },
)
DOCUMENT = register_schema(
    "Document",
    {
        "type": "object",
        "required": ["id", "object", "name", "url"],
        "properties": {
            "id": UUID,
            "object": {"const": "document"},
            "name": {"type": "string"},
            "doc_type": {"type": "string"},
            "url": {"type": "string"},
            "public_url": NULLABLE_STRING,
            "content": {"type": "string"},
            "format": {"type": "string"},
            **STAMPS,
        },
    },
)
APP = register_schema(
    "StudioApp",
    {
        "type": "object",
        "required": ["id", "object", "name", "status", "url"],
        "properties": {
            "id": UUID,
            "object": {"const": "app"},
            "name": {"type": "string"},
            "status": {"type": "string", "enum": ["live", "draft"]},
            "url": {"type": "string"},
            "public_url": NULLABLE_STRING,
            "screens": {"type": "array"},
            **STAMPS,
        },
    },
)
IMAGE_ASSET = register_schema(
    "ImageAsset",
    {
        "type": "object",
        "required": [
            "id",
            "url",
            "media_type",
            "mime_type",
            "width",
            "height",
            "duration_seconds",
            "prompt",
            "board_id",
            "created_at",
        ],
        "properties": {
            "id": UUID,
            "url": {"type": "string"},
            "media_type": {"type": "string"},
            "mime_type": {"type": "string"},
            "width": {"type": "integer"},
            "height": {"type": "integer"},
            "duration_seconds": {"type": ["number", "null"]},
            "prompt": {"type": "string"},
            "board_id": {"type": ["string", "null"]},
            "created_at": {"type": "string"},
        },
    },
)
BOARD = register_schema(
    "ImageBoard",
    {
        "type": "object",
        "required": ["id", "object", "name", "url", "image_count"],
        "properties": {
            "id": UUID,
            "object": {"const": "image_board"},
            "name": {"type": "string"},
            "url": {"type": "string"},
            "image_count": {"type": "integer"},
            "cover_url": NULLABLE_STRING,
            **STAMPS,
        },
    },
)
VIDEO_PROJECT = register_schema(
    "VideoProject",
    {
        "type": "object",
        "required": ["id", "object", "name", "url", "shots"],
        "properties": {
            "id": UUID,
            "object": {"const": "video_project"},
            "name": {"type": "string"},
            "aspect": {"type": "string"},
            "url": {"type": "string"},
            "shot_count": {"type": "integer"},
            "duration_seconds": {"type": "number"},
            "shots": {"type": "array"},
            **STAMPS,
        },
    },
)

ID_PATH = {"id": UUID}


def _get(req, kind: str, what: str) -> dict:
    doc = req.store.get(kind, req.path_params["id"], workspace_id=req.workspace_id)
    if doc is None:
        raise not_found(what)
    return doc


def _list(req, kind: str, render) -> dict:
    items = req.store.list(kind, workspace_id=req.workspace_id)
    return paginate(req, items, descending=True, render=render)


# --------------------------------------------------------------------------
# Routes
# --------------------------------------------------------------------------
@route(
    "GET",
    "/v1/websites",
    operation_id="websites_list",
    summary="Websites, newest first",
    description="The workspace's websites, newest first: `status` building or published, `url` (the web app) and `public_url` (null until published).",
    tags=TAG,
    query=PAGE_QUERY,
    responses={200: page_of(WEBSITE)},
)
def websites_list(req):
    return _list(req, "website", lambda d: render_website(req, d))


@route(
    "GET",
    "/v1/websites/{id}",
    operation_id="websites_get",
    summary="One website with its build and status",
    description="One website with its `build` job (status, stage, error), `status`, pages and brief. Poll it while a build runs.",
    tags=TAG,
    path_params=ID_PATH,
    responses={200: WEBSITE},
)
def websites_get(req):
    return render_website(req, _get(req, "website", "website"), full=True)


@route(
    "GET",
    "/v1/documents",
    operation_id="documents_list",
    summary="Documents, newest first",
    description="The workspace's documents (decks, proposals, resumes, invoices, one-pagers, reports), newest first, with their word counts.",
    tags=TAG,
    query=PAGE_QUERY,
    responses={200: page_of(DOCUMENT)},
)
def documents_list(req):
    return _list(req, "document", lambda d: render_document(req, d))


@route(
    "GET",
    "/v1/documents/{id}",
    operation_id="documents_get",
    summary="One document with its full content",
    description="One document with its full markdown `content`, format, outline and revision.",
    tags=TAG,
    path_params=ID_PATH,
    responses={200: DOCUMENT},
)
def documents_get(req):
    return render_document(req, _get(req, "document", "document"), full=True)


@route(
    "GET",
    "/v1/apps",
    operation_id="apps_list",
    summary="Studio apps, newest first",
    description="The workspace's Studio apps, newest first: `status` live, `public_url`, and whether a change to a live app is still unpublished.",
    tags=TAG,
    query=PAGE_QUERY,
    responses={200: page_of(APP)},
)
def apps_list(req):
    return _list(req, "app", lambda d: render_app(req, d))


@route(
    "GET",
    "/v1/apps/{id}",
    operation_id="apps_get",
    summary="One Studio app with its screens",
    description="One Studio app with its screens, the objects it uses and its actions.",
    tags=TAG,
    path_params=ID_PATH,
    responses={200: APP},
)
def apps_get(req):
    return render_app(req, _get(req, "app", "app"), full=True)


@route(
    "GET",
    "/v1/images/boards",
    operation_id="image_boards_list",
    summary="Image boards, newest first",
    description="The workspace's image boards, newest first, with their image counts and cover images.",
    tags=TAG,
    query=PAGE_QUERY,
    responses={200: page_of(BOARD)},
)
def image_boards_list(req):
    return _list(req, "image_board", lambda d: render_board(req, d))


@route(
    "GET",
    "/v1/images",
    operation_id="images_list",
    summary="Finished images, newest first; filter by board",
    description="Finished images, newest first; `board_id` narrows to one board (an unknown board answers 404).",
    tags=TAG,
    query={"board_id": {**UUID, "description": "Only images on this board."}, **PAGE_QUERY},
    responses={200: page_of(IMAGE_ASSET)},
)
def images_list(req):
    board_id = req.params.get("board_id")
    if board_id and req.store.get("image_board", board_id, workspace_id=req.workspace_id) is None:
        raise not_found("image board")
    items = ready_images(req, board_id=board_id)
    return paginate(req, items, descending=True, render=lambda d: render_image_asset(req, d))


@route(
    "GET",
    "/v1/videos",
    operation_id="videos_list",
    summary="Video projects, newest first",
    description="The workspace's video projects, newest first: aspect, shots in order (asset, seconds, app, prompt), total duration and title.",
    tags=TAG,
    query=PAGE_QUERY,
    responses={200: page_of(VIDEO_PROJECT)},
)
def videos_list(req):
    return _list(req, "video_project", lambda d: render_video_project(req, d))


@route(
    "GET",
    "/files/{file_name}",
    operation_id="files_get",
    summary="A generated image or video poster file",
    description="Public by address (ids are unguessable), so `<img>` tags can show Studio assets. "
    "`{id}.png` or `{id}.svg`, sized as the asset's aspect asked.",
    tags=TAG,
    auth=False,
    path_params={"file_name": {"type": "string", "pattern": r"^[0-9a-fA-F-]{36}\.(png|svg)$"}},
    responses={200: ("image/png", {"type": "string", "format": "binary"})},
)
def files_get(req):
    file_id, _, ext = req.path_params["file_name"].rpartition(".")
    asset = req.store.get("image_asset", file_id) or req.store.get("video_asset", file_id)
    if asset is None or not is_ready(asset.get("ready_at"), req.clock.now()):
        raise not_found("file")
    if ext == "png":
        data, mime = render_png(prompt=asset.get("prompt", ""), width=asset["width"], height=asset["height"]), PNG_MIME
    elif ext == "svg":
        data, mime = render_svg(prompt=asset.get("prompt", ""), width=asset["width"], height=asset["height"]), SVG_MIME
    else:  # the pattern allows only png and svg
        raise ApiError(404, "not_found", "No such file.")
    return Response(data, content_type=mime, headers={"Cache-Control": "public, max-age=86400"})


# --------------------------------------------------------------------------
# Demo data (through the core's seed hook)
# --------------------------------------------------------------------------
def _seed_library(ctx) -> None:
    from datetime import timedelta

    from sandbox.clock import iso

    rng = ctx.rng("studio_library")
    ws = ctx.demo_workspace_id
    store = ctx.store
    base = ctx.clock.now() - timedelta(days=5)

    def at(hours: float) -> str:
        return iso(base + timedelta(hours=hours))

    store.insert(
        "website",
        {
            "id": ctx.uuid(rng),
            "name": "Acme Spring Launch",
            "slug": "acme-spring-launch",
            "status": "published",
            "brief": "A launch site for the spring collection with a sign-up form.",
            "job": {"id": ctx.uuid(rng), "started_at": at(0), "ready_at": at(0.05)},
            "first_live_at": at(0.05),
            "pages": [
                {"path": "/", "title": "Home"},
                {"path": "/collection", "title": "Collection"},
                {"path": "/signup", "title": "Sign up"},
            ],
            "created_at": at(0),
            "updated_at": at(0.05),
        },
        workspace_id=ws,
    )
    outline = {
        "title": "Q3 partnership proposal",
        "doc_type": "proposal",
        "sections": [{"heading": h} for h in ("Summary", "Goals", "Approach", "Timeline", "Pricing")],
    }
    store.insert(
        "document",
        {
            "id": ctx.uuid(rng),
            "name": "Q3 partnership proposal",
            "doc_type": "proposal",
            "outline": outline,
            "revision": 2,
            "created_at": at(2),
            "updated_at": at(3),
            "content": "# Q3 partnership proposal\n\n## Summary\n\nAcme and Northwind co-market the spring line to "
            "12,000 shared customers.\n\n## Goals\n\n- 1,500 sign-ups\n- 300 first orders\n\n## Approach\n\n"
            "Joint newsletter, two webinars and a shared landing page.\n\n## Timeline\n\nJuly to September."
            "\n\n## Pricing\n\nEach side covers its own costs; leads are shared weekly.\n",
        },
        workspace_id=ws,
    )
    store.insert(
        "app",
        {
            "id": ctx.uuid(rng),
            "name": "Deal desk",
            "status": "live",
            "brief": "Review and approve discounts on deals.",
            "screens": [{"name": "Deals to review"}, {"name": "Deal"}, {"name": "Approve discount"}],
            "objects": ["deals", "companies"],
            "actions": ["update"],
            "has_unpublished_changes": False,
            "created_at": at(4),
            "updated_at": at(4),
        },
        workspace_id=ws,
    )
    board = store.insert(
        "image_board",
        {"id": ctx.uuid(rng), "name": "Spring campaign", "created_at": at(6), "updated_at": at(6)},
        workspace_id=ws,
    )
    for i, (prompt, aspect) in enumerate(
        [
            ("Trail shoes on a mossy rock, morning light", "4:5"),
            ("Flat lay of the spring collection on linen", "1:1"),
            ("Runner at sunrise on a coastal path", "16:9"),
            ("Close-up of the shoe's sole pattern", "4:5"),
        ]
    ):
        width, height = size_for_aspect(aspect)
        store.insert(
            "image_asset",
            {
                "id": ctx.uuid(rng),
                "board_id": board["id"],
                "prompt": prompt,
                "aspect": aspect,
                "width": width,
                "height": height,
                "mime_type": PNG_MIME,
                "ready_at": None,
                "made_by": "seed",
                "created_at": at(6 + i * 0.1),
                "updated_at": at(6 + i * 0.1),
            },
            workspace_id=ws,
        )
    project_id = ctx.uuid(rng)
    shots = []
    for i, (prompt, seconds) in enumerate([("Opening: the shoe box opens", 4), ("Runner laces up at dawn", 6)]):
        asset = store.insert(
            "video_asset",
            {
                "id": ctx.uuid(rng),
                "project_id": project_id,
                "prompt": prompt,
                "seconds": seconds,
                "aspect": "9:16",
                "width": 720,
                "height": 1280,
                "ready_at": None,
                "made_by": "seed",
                "created_at": at(8 + i),
                "updated_at": at(8 + i),
            },
            workspace_id=ws,
        )
        shots.append(
            {"asset_id": asset["id"], "seconds": seconds, "app": "generate", "prompt": prompt, "ready_at": None}
        )
    store.insert(
        "video_project",
        {
            "id": project_id,
            "name": "Launch teaser",
            "aspect": "9:16",
            "shots": shots,
            "title": "Spring is here",
            "created_at": at(8),
            "updated_at": at(9),
        },
        workspace_id=ws,
    )
    # A Library clip longer than 15 seconds: recast and remake refuse it.
    store.insert(
        "video_asset",
        {
            "id": ctx.uuid(rng),
            "project_id": None,
            "prompt": "Full-length brand film",
            "seconds": 42,
            "aspect": "16:9",
            "width": 1280,
            "height": 720,
            "ready_at": None,
            "made_by": "seed",
            "created_at": at(10),
            "updated_at": at(10),
        },
        workspace_id=ws,
    )


def _register_hooks() -> None:
    from sandbox.objects import register_system_records
    from sandbox.seed import seed_hook

    seed_hook("studio_library", order=100)(_seed_library)
    # A website's status moves with time, so the built-in `websites` records compute it on read.
    register_system_records(
        "websites",
        kind="website",
        values=lambda doc, now: {"name": doc.get("name", ""), "status": website_status(doc, now)},
    )


_register_hooks()
