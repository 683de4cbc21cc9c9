"""Studio turns: `POST /v1/studio/{website|document|app|image|video}/turns` and
`GET /v1/turns/{id}`.

A turn is decided when it is created (`decide_outcome`, deterministic triggers
documented in sandbox/README.md) and stored with absolute timestamps computed
from the scaled clock: `director_ready_at` (the director has answered) and, for
website builds, the artifact's build `ready_at`. `render_turn` turns the stored
document into the spec's body for the current time, so polling, replays and
streams all show the same state machine without any background thread:

    building (director working) -> needs_input | completed | failed
    website make:  building (job queued/generate) -> completed (job succeeded/complete)
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime

from sandbox.core import (
    UUID,
    Response,
    accepted,
    event_stream,
    not_both_true,
    not_found,
    ref,
    register_schema,
    replay_hook,
    route,
)
from sandbox.images import ASPECT_SIZES
from sandbox.library import (
    create_image_asset,
    is_ready,
    name_from_message,
    render_image_asset,
    slugify,
    website_job,
    website_public_url,
)

STUDIOS = ("website", "document", "app", "image", "video")
MESSAGE_LIMITS = {"website": 3800, "document": 18000, "app": 18000, "image": 3800, "video": 3800}
# The storage kind of each studio's artifact.
ARTIFACT_KINDS = {
    "website": "website",
    "document": "document",
    "app": "app",
    "image": "image_board",
    "video": "video_project",
}

# Service seconds (scaled by the clock) for the director's answer, from the
# spec's typical durations; website builds take 180 s new, 120 s after an edit.
DIRECTOR_SECONDS = {"website": 10, "document": 40, "app": 80, "image": 40, "video": 25}
WEBSITE_BUILD_SECONDS = 180
WEBSITE_REBUILD_SECONDS = 120

# Credits per turn (image turns: per image made).
TURN_CREDITS = {"website": 5, "document": 3, "app": 8, "image": 1, "video": 2}

SHORT_MESSAGE = 20  # characters; shorter messages without `auto` get questions


# --------------------------------------------------------------------------
# Deterministic triggers (pure)
# --------------------------------------------------------------------------
def decide_outcome(*, message: str, auto: bool, replying: bool) -> str:
    """Which way a turn goes, from its message alone (see README triggers):
    `fail` -> failed; ends with `?` -> answered; a reply to needs_input or
    `auto` -> make; shorter than 20 characters -> needs_input; else make."""
    text = message.strip()
    if "fail" in text.lower():
        return "fail"
    if text.endswith("?"):
        return "answer"
    if replying or auto:
        return "make"
    if len(text) < SHORT_MESSAGE:
        return "needs_input"
    return "make"


def questions_for(studio: str) -> list[dict]:
    if studio == "website":
        return [
            {"text": "What is the website for?", "options": ["A product launch", "A local business", "A portfolio"]},
            {
                "text": "Which style fits best?",
                "options": ["Clean and minimal", "Bold and colourful", "Warm and friendly"],
            },
        ]
    if studio == "document":
        return [
            {
                "text": "Shall I write it from this outline?",
                "options": ["Yes, write it", "Add a pricing section", "Make it shorter"],
            }
        ]
    if studio == "app":
        return [
            {"text": "Which records should the app work with?", "options": ["Contacts", "Companies", "Deals"]},
            {"text": "Who will use it?", "options": ["The sales team", "Customers", "Everyone in the workspace"]},
        ]
    if studio == "image":
        return [
            {
                "text": "What should the image show?",
                "options": ["A product shot", "A lifestyle scene", "An illustration"],
            },
            {"text": "Which aspect ratio?", "options": list(ASPECT_SIZES)},
        ]
    return [
        {
            "text": "What should I change in the project?",
            "options": ["Trim the clips", "Add a title", "Reorder the shots"],
        }
    ]


DOC_TYPES = ("deck", "proposal", "resume", "invoice", "one-pager", "report")


def document_type(message: str) -> str:
    lowered = message.lower()
    for doc_type in DOC_TYPES:
        if doc_type in lowered or doc_type.replace("-", " ") in lowered:
            return doc_type
    return "document"


def outline_for(message: str) -> dict:
    doc_type = document_type(message)
    title = name_from_message(message, "Untitled document")
    sections = {
        "deck": ["Title", "Problem", "Solution", "Market", "Plan", "Ask"],
        "proposal": ["Summary", "Goals", "Approach", "Timeline", "Pricing"],
        "resume": ["Profile", "Experience", "Skills", "Education"],
        "invoice": ["Parties", "Items", "Totals", "Payment terms"],
        "one-pager": ["Headline", "What it is", "Why it matters", "Next step"],
        "report": ["Summary", "Findings", "Details", "Recommendations"],
    }.get(doc_type, ["Introduction", "Main points", "Conclusion"])
    return {"title": title, "doc_type": doc_type, "sections": [{"heading": s} for s in sections]}


def write_document(message: str, outline: dict) -> str:
    """Markdown content built only from what was given (the spec: the director
    uses only the facts in the message)."""
    lines = [f"# {outline['title']}", ""]
    for section in outline["sections"]:
        lines += [f"## {section['heading']}", "", message.strip(), ""]
    return "\n".join(lines).rstrip() + "\n"


NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4}
COUNT_RE = re.compile(
    r"\b([1-9]|one|two|three|four)\s+(?:more\s+|new\s+|different\s+)?"
    r"(?:images|pictures|photos|variations|versions|options)\b"
)


def image_count(message: str) -> int:
    """ "Two images", "3 more photos": 1-4, default 1."""
    match = COUNT_RE.search(message.lower())
    if not match:
        return 1
    number = NUMBER_WORDS.get(match.group(1)) or int(match.group(1))
    return max(1, min(4, number))


def image_aspect(message: str) -> str:
    match = re.search(r"\b(4:5|1:1|16:9|9:16|4:3|3:4|21:9)\b", message)
    return match.group(1) if match else "4:5"


VIDEO_EDITS = [
    ("trim", r"\btrim"),
    ("reorder", r"\b(?:reorder|move|swap)"),
    ("title", r"\btitle"),
    ("overlay", r"\boverlay"),
    ("music", r"\bmusic"),
    ("cut", r"\bcut\b"),
    ("speed", r"\b(?:speed|slow)"),
]
VIDEO_PENDING = [
    ("generate", r"\b(?:film|shoot|new shot|ai shot)", "Film an AI shot"),
    ("motion", r"\b(?:motion|animat)", "Make a motion graphic"),
    ("captions", r"\bcaption", "Add captions"),
    ("clips", r"\b(?:clips|b-roll|stock)", "Find clips"),
]


def plan_video_edits(message: str, shot_count: int) -> dict:
    """Edits named in the message are applied (skipped when the project has no
    shots to edit); paid actions become `pending_requests`, never run."""
    lowered = message.lower()
    applied, skipped, pending = [], [], []
    for name, pattern in VIDEO_EDITS:
        if re.search(pattern, lowered):
            if shot_count or name in ("title", "music"):
                applied.append(name)
            else:
                skipped.append({"operation": name, "reason": "The project has no shots yet."})
    for app, pattern, label in VIDEO_PENDING:
        if re.search(pattern, lowered):
            pending.append(
                {
                    "app": app if app in ("generate", "motion") else None,
                    "kind": app,
                    "label": label,
                    "path": f"/v1/studio/video/apps/{app}" if app in ("generate", "motion") else None,
                    "prompt": message.strip()[:500],
                    "needs_confirmation": True,
                }
            )
    return {"operations": applied, "operations_skipped": skipped, "pending_requests": pending}


# --------------------------------------------------------------------------
# Rendering a stored turn for the current time
# --------------------------------------------------------------------------
def render_artifact(req, turn: dict, now: datetime) -> dict | None:
    if not turn.get("artifact_id"):
        return None
    kind = ARTIFACT_KINDS[turn["studio"]]
    doc = req.store.get(kind, turn["artifact_id"])
    if doc is None:
        return None
    public_url = None
    if turn["studio"] == "website":
        public_url = website_public_url(req, doc, now)
    elif turn["studio"] == "app" and doc.get("status") == "live":
        public_url = f"{req.app_url}/apps/{doc['id']}/live"
    return {
        "id": doc["id"],
        "type": turn["studio"],
        "name": doc["name"],
        "url": f"{req.app_url}/{turn['studio']}/{doc['id']}",
        "public_url": public_url,
    }


def turn_status(req, turn: dict, now: datetime) -> str:
    if not is_ready(turn["director_ready_at"], now):
        return "building"
    outcome = turn["outcome"]
    if outcome == "fail":
        return "failed"
    if outcome == "needs_input":
        return "needs_input"
    if outcome == "make" and turn["studio"] == "website" and not is_ready(turn.get("build_ready_at"), now):
        return "building"
    return "completed"


def render_turn(req, turn: dict) -> dict:
    now = req.clock.now()
    status = turn_status(req, turn, now)
    body = {
        "id": turn["id"],
        "object": "studio.turn",
        "status": status,
        "studio": turn["studio"],
        "artifact": render_artifact(req, turn, now),
        "conversation_id": turn["conversation_id"],
        "message": turn["answer"] if is_ready(turn["director_ready_at"], now) else "The director is working on it.",
        "created_at": turn["created_at"],
        "completed_at": None,
    }
    if status == "needs_input":
        body["questions"] = turn.get("questions") or []
        if turn.get("outline") is not None:
            body["outline"] = turn["outline"]
    if status == "failed":
        body["error"] = turn["error"]
    if turn["studio"] == "website" and turn["outcome"] == "make":
        body["job"] = website_job(
            {"job": {"id": turn["job_id"], "started_at": turn["created_at"], "ready_at": turn["build_ready_at"]}}, now
        )
    elif turn["studio"] == "website":
        body["job"] = None
    if turn["studio"] == "image":
        if status == "completed":
            assets = [req.store.get("image_asset", asset_id) for asset_id in turn.get("image_ids", [])]
            body["images"] = [render_image_asset(req, a) for a in assets if a]
        else:
            body["images"] = []
    if turn["studio"] == "video":
        video = turn.get("video") or {}
        done = status == "completed"
        body["video"] = {
            "operations_applied": len(video.get("operations", [])) if done else 0,
            "operations_skipped": video.get("operations_skipped", []) if done else [],
            "pending_requests": video.get("pending_requests", []) if done else [],
        }
    if status == "completed" and turn["studio"] == "website" and turn["outcome"] == "make":
        body["message"] = "Your website is built and live."
    if status in ("completed", "failed", "needs_input"):
        finished = (
            turn.get("build_ready_at")
            if status == "completed" and turn.get("build_ready_at")
            else turn["director_ready_at"]
        )
        body["completed_at"] = finished
    return body


# --------------------------------------------------------------------------
# Creating a turn
# --------------------------------------------------------------------------
def previous_turn(req, *, conversation_id: str | None, artifact_id: str | None) -> dict | None:
    if conversation_id:
        turns = req.store.list("turn", workspace_id=req.workspace_id, where={"conversation_id": conversation_id})
    elif artifact_id:
        turns = req.store.list("turn", workspace_id=req.workspace_id, where={"artifact_id": artifact_id})
    else:
        return None
    return turns[-1] if turns else None


def make_artifact(req, studio: str, turn: dict, message: str, previous: dict | None) -> None:
    """Create or change the artifact a `make` turn works on; fills the turn's
    artifact_id, job and results."""
    clock = req.clock
    created = turn["created_at"]
    director_ready = turn["director_ready_at"]
    artifact_id = turn.get("artifact_id")
    brief = message if not previous else f"{previous.get('message', '')}\n{message}".strip()
    if studio == "website":
        seconds = WEBSITE_REBUILD_SECONDS if artifact_id else WEBSITE_BUILD_SECONDS
        ready_at = clock.at(director_ready, seconds)
        job = {"id": turn["job_id"], "started_at": created, "ready_at": ready_at}
        if artifact_id:
            site = req.store.get("website", artifact_id)
            site["job"] = job
            site["edits"] = site.get("edits", []) + [message]
            site["status"] = "building"
            req.store.save("website", site)
        else:
            name = name_from_message(brief, "New website")
            site = req.store.insert(
                "website",
                {
                    "name": name,
                    "slug": f"{slugify(name)}-{turn['id'][:6]}",
                    "brief": brief,
                    "job": job,
                    "first_live_at": ready_at,
                    "status": "building",
                    "pages": [
                        {"path": "/", "title": "Home"},
                        {"path": "/about", "title": "About"},
                        {"path": "/contact", "title": "Contact"},
                    ],
                },
                workspace_id=req.workspace_id,
            )
            turn["artifact_id"] = site["id"]
        turn["build_ready_at"] = ready_at
        turn["answer"] = "Building your website now; it will be live in a few minutes."
    elif studio == "document":
        outline = (previous or {}).get("outline") or outline_for(brief)
        if artifact_id:
            doc = req.store.get("document", artifact_id)
            doc["content"] = write_document(brief, {**outline, "title": doc["name"]})
            doc["revision"] = doc.get("revision", 1) + 1
            req.store.save("document", doc)
        else:
            doc = req.store.insert(
                "document",
                {
                    "name": outline["title"],
                    "doc_type": outline["doc_type"],
                    "outline": outline,
                    "content": write_document(brief, outline),
                    "revision": 1,
                },
                workspace_id=req.workspace_id,
            )
            turn["artifact_id"] = doc["id"]
        turn["answer"] = f"I wrote the {outline['doc_type']} from your brief."
    elif studio == "app":
        if artifact_id:
            app = req.store.get("app", artifact_id)
            app["screens"] = app.get("screens", []) + [{"name": name_from_message(message, "New screen")}]
            # A change to a live app stays a draft until published in the Studio.
            app["has_unpublished_changes"] = app.get("status") == "live"
            req.store.save("app", app)
            turn["answer"] = "I changed the app; publish it in the Studio to make the change live."
        else:
            app = req.store.insert(
                "app",
                {
                    "name": name_from_message(brief, "New app"),
                    "status": "live",
                    "brief": brief,
                    "screens": [{"name": "List"}, {"name": "Detail"}, {"name": "Form"}],
                    "objects": ["contacts"],
                    "actions": ["create", "update"],
                    "has_unpublished_changes": False,
                },
                workspace_id=req.workspace_id,
            )
            turn["artifact_id"] = app["id"]
            turn["answer"] = "I built the app, compiled it and published it."
    elif studio == "image":
        if not artifact_id:
            board = req.store.insert(
                "image_board", {"name": name_from_message(brief, "New board")}, workspace_id=req.workspace_id
            )
            turn["artifact_id"] = board["id"]
        count = image_count(message)
        aspect = image_aspect(message)
        assets = [
            create_image_asset(
                req, board_id=turn["artifact_id"], prompt=f"{brief} #{i + 1}", aspect=aspect, ready_at=director_ready
            )
            for i in range(count)
        ]
        turn["image_ids"] = [a["id"] for a in assets]
        turn["answer"] = f"Here {'is' if count == 1 else 'are'} {count} image{'s' if count > 1 else ''} on the board."
    elif studio == "video":
        if artifact_id:
            project = req.store.get("video_project", artifact_id)
        else:
            project = req.store.insert(
                "video_project",
                {"name": name_from_message(brief, "New video"), "aspect": "9:16", "shots": []},
                workspace_id=req.workspace_id,
            )
            turn["artifact_id"] = project["id"]
        plan = plan_video_edits(message, len(project.get("shots", [])))
        if "title" in plan["operations"]:
            project["title"] = name_from_message(message, "Title")
        project["edits"] = project.get("edits", []) + plan["operations"]
        req.store.save("video_project", project)
        turn["video"] = plan
        turn["answer"] = f"Applied {len(plan['operations'])} edit(s)." + (
            " Some actions need your confirmation." if plan["pending_requests"] else ""
        )


def start_turn(req, studio: str) -> dict:
    body = req.body
    message: str = body["message"]
    auto = bool(body.get("auto", False))
    artifact_id = body.get("artifact_id")
    conversation_id = body.get("conversation_id")
    if artifact_id and req.store.get(ARTIFACT_KINDS[studio], artifact_id, workspace_id=req.workspace_id) is None:
        raise not_found(f"{studio} artifact")
    if conversation_id:
        conversation = req.store.get("conversation", conversation_id, workspace_id=req.workspace_id)
        if conversation is None or conversation["studio"] != studio:
            raise not_found(f"{studio} conversation")
    previous = previous_turn(req, conversation_id=conversation_id, artifact_id=artifact_id)
    replying = previous is not None and previous["outcome"] == "needs_input"
    outcome = decide_outcome(message=message, auto=auto, replying=replying)
    cost = TURN_CREDITS[studio] * (image_count(message) if studio == "image" and outcome == "make" else 1)
    req.check_credits(cost)  # refusals come before the turn is claimed

    if not conversation_id:
        conversation_id = (previous or {}).get("conversation_id")
    if not conversation_id:
        conversation_id = req.store.insert("conversation", {"studio": studio}, workspace_id=req.workspace_id)["id"]
    if not artifact_id and previous is not None:
        artifact_id = previous.get("artifact_id")
    created = req.clock.iso()
    turn = {
        "studio": studio,
        "conversation_id": conversation_id,
        "artifact_id": artifact_id,
        "message": message,
        "auto": auto,
        "outcome": outcome,
        "created_at": created,
        "updated_at": created,
        "director_ready_at": req.clock.at(created, DIRECTOR_SECONDS[studio]),
        "job_id": None,
        "build_ready_at": None,
    }
    turn = req.store.insert("turn", turn, workspace_id=req.workspace_id)
    if outcome == "fail":
        turn["answer"] = "The director could not finish this turn."
        turn["error"] = {
            "type": "director_failed",
            "message": "The director failed while working on this turn (the message asked it to fail).",
        }
    elif outcome == "answer":
        turn["answer"] = (
            f"Answering directly: in this {studio} studio I make and change things when you "
            "describe them; ask me to make something and I will."
        )
    elif outcome == "needs_input":
        turn["answer"] = "Before I start, a few questions."
        turn["questions"] = questions_for(studio)
        if studio == "document":
            turn["outline"] = outline_for(message)
    else:
        if studio == "website":
            turn["job_id"] = str(uuid.uuid4())
        make_artifact(req, studio, turn, message, previous if replying else None)
    if outcome != "fail":  # a failed turn is not charged
        req.charge(cost)
    req.store.save("turn", turn, touch=False)
    return turn


# --------------------------------------------------------------------------
# Answering: wait, stream or background
# --------------------------------------------------------------------------
def turn_events(req, turn: dict, *, live: bool):
    """`turn`, `plan`, then one `status` per plan step as the director reaches
    it (spread over its working time), then the final `status` and `result`
    (or `error`). `live`: wait for each step's time, so a client sees the work
    advance; otherwise (a replay of a stream already read) what is due now.
    A website build goes on after the stream: its last status names the stage."""
    yield (
        "turn",
        {"id": turn["id"], "studio": turn["studio"], "conversation_id": turn["conversation_id"], "status": "building"},
    )
    steps = plan_steps(turn)
    yield "plan", {"steps": steps}
    seconds = DIRECTOR_SECONDS[turn["studio"]]
    for index, step in enumerate(steps[:-1]):
        due = req.clock.at(turn["created_at"], seconds * (index + 1) / len(steps))
        if live:
            req.clock.sleep_until(due)
        elif not is_ready(due, req.clock.now()):
            break
        yield "status", {"status": "building", "message": step, "step": index + 1, "steps": len(steps), "stage": None}
    if live:
        req.clock.sleep_until(turn["director_ready_at"])
    current = render_turn(req, turn)
    yield (
        "status",
        {"status": current["status"], "message": current["message"], "stage": (current.get("job") or {}).get("stage")},
    )
    if current["status"] == "failed":
        yield "error", {"message": current["error"]["message"], "request_id": req.request_id}
        return
    yield "result", current


def plan_steps(turn: dict) -> list[str]:
    return {
        "fail": ["Read the message", "Work on it"],
        "answer": ["Read the question", "Answer it"],
        "needs_input": ["Read the message", "Ask what is missing"],
    }.get(turn["outcome"], ["Read the brief", f"Make the {turn['studio']}", "Save it"])


def answer_turn(req, turn: dict, *, mode: str):
    ref_value = {"turn_id": turn["id"], "mode": mode}
    if mode == "stream":
        return event_stream(turn_events(req, turn, live=True), replay=("studio_turn", ref_value))
    if mode == "background":
        return accepted(render_turn(req, turn), replay=("studio_turn", ref_value))
    req.clock.sleep_until(turn["director_ready_at"])
    return Response(render_turn(req, turn), replay=("studio_turn", ref_value))


@replay_hook("studio_turn")
def replay_turn(req, ref_value):
    """A repeated turn request (same Idempotency-Key) never starts a second
    turn: it shows the first turn as it is now (background: 202 until final)."""
    turn = req.store.get("turn", ref_value["turn_id"])
    if turn is None:
        raise not_found("turn")
    if ref_value.get("mode") == "stream":
        # The same stream again (a client that closed it and came back): it
        # follows the turn live from where it is now.
        return event_stream(turn_events(req, turn, live=True))
    body = render_turn(req, turn)
    if ref_value.get("mode") == "background" and body["status"] == "building":
        return accepted(body)
    return Response(body)


# --------------------------------------------------------------------------
# OpenAPI schemas and routes
# --------------------------------------------------------------------------
ARTIFACT = {
    "type": ["object", "null"],
    "required": ["id", "type", "name", "url", "public_url"],
    "properties": {
        "id": UUID,
        "type": {"type": "string", "enum": list(STUDIOS)},
        "name": {"type": "string"},
        "url": {"type": "string"},
        "public_url": {"type": ["string", "null"]},
    },
}
TURN = register_schema(
    "StudioTurn",
    {
        "type": "object",
        "required": [
            "id",
            "object",
            "status",
            "studio",
            "artifact",
            "conversation_id",
            "message",
            "created_at",
            "completed_at",
        ],
        "properties": {
            "id": UUID,
            "object": {"const": "studio.turn"},
            "status": {"type": "string", "enum": ["completed", "needs_input", "building", "failed"]},
            "studio": {"type": "string", "enum": list(STUDIOS)},
            "artifact": ARTIFACT,
            "conversation_id": UUID,
            "message": {"type": "string"},
            "questions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["text", "options"],
                    "properties": {
                        "text": {"type": "string"},
                        "options": {"type": "array", "items": {"type": "string"}},
                    },
                },
            },
            "outline": {},
            "job": {
                "type": ["object", "null"],
                "properties": {"id": UUID, "status": {"type": "string"}, "stage": {"type": "string"}, "error": {}},
            },
            "images": {"type": "array", "items": ref("ImageAsset")},
            "video": {
                "type": "object",
                "required": ["operations_applied", "operations_skipped", "pending_requests"],
                "properties": {
                    "operations_applied": {"type": "integer"},
                    "operations_skipped": {"type": "array"},
                    "pending_requests": {"type": "array"},
                },
            },
            "error": {"type": "object"},
            "created_at": {"type": "string"},
            "completed_at": {"type": ["string", "null"]},
        },
    },
)


def turn_body(studio: str) -> dict:
    return {
        "type": "object",
        "required": ["message"],
        "properties": {
            "message": {
                "type": "string",
                "minLength": 1,
                "maxLength": MESSAGE_LIMITS[studio],
                "description": "What you want; the director's reply goes here too.",
            },
            "artifact_id": {**UUID, "description": f"Work on an existing {studio} artifact."},
            "conversation_id": {**UUID, "description": "Continue a conversation (answer the director's questions)."},
            "auto": {
                "type": "boolean",
                "default": False,
                "description": "The director decides and makes the artifact now.",
            },
            "stream": {"type": "boolean", "default": False, "description": "Answer as server-sent events."},
            "background": {
                "type": "boolean",
                "default": False,
                "description": "Answer 202 at once; poll GET /v1/turns/{id}.",
            },
        },
        **not_both_true("stream", "background", message="cannot be combined with stream; choose one"),
    }


def _turn_handler(studio: str):
    def handler(req):
        turn = start_turn(req, studio)
        mode = "stream" if req.body.get("stream") else "background" if req.body.get("background") else "wait"
        return answer_turn(req, turn, mode=mode)

    handler.__name__ = f"studio_{studio}_turn"
    handler.__doc__ = (
        f"One message to the {studio} director. Waits by default; `stream: true` answers "
        "server-sent events turn, plan, status, then result or error; `background: true` "
        "answers 202 with the turn (poll GET /v1/turns/{id})."
    )
    return handler


for _studio in STUDIOS:
    route(
        "POST",
        f"/v1/studio/{_studio}/turns",
        operation_id=f"studio_{_studio}_turn",
        summary=f"Send a turn to the {_studio} director",
        tags=["Studio"],
        body=turn_body(_studio),
        responses={200: TURN, 202: TURN},
        stream=["turn", "plan", "status", "result", "error"],
        slow=True,
    )(_turn_handler(_studio))


@route(
    "GET",
    "/v1/turns/{id}",
    operation_id="studio_turn_get",
    summary="A Studio turn as it is now",
    description="The turn as it is now (the same body as the turn's own answer). Poll every 5-10 s while `status` is `building`; it ends `completed`, `needs_input` or `failed`.",
    tags=["Studio"],
    path_params={"id": UUID},
    responses={200: TURN},
)
def studio_turn_get(req):
    turn = req.store.get("turn", req.path_params["id"], workspace_id=req.workspace_id)
    if turn is None:
        raise not_found("turn")
    return render_turn(req, turn)
