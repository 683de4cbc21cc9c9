"""The Studio turn as a tracked operation (kind `studio.turn`).

A background turn answers 202 with its id; the live poller then reads
`GET /v1/turns/{id}` until the turn is `completed`, `needs_input` or `failed`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.urls import reverse

from dashboard.live.registry import OperationKind, register

TURN_KIND = "studio.turn"
FINAL_TURN_STATUSES = frozenset({"completed", "needs_input", "failed"})

# Members of a turn the page shows in their own place; anything else is
# shown as generic JSON (DESIGN.md, "Where the spec says not shown").
KNOWN_TURN_MEMBERS = frozenset(
    {
        "id",
        "object",
        "status",
        "studio",
        "artifact",
        "conversation_id",
        "message",
        "questions",
        "outline",
        "job",
        "images",
        "video",
        "error",
        "created_at",
        "completed_at",
    }
)


def fetch_turn(client, op) -> dict:
    return client.get(f"/v1/turns/{quote(op.remote_id, safe='')}")


def turn_page_url(op) -> str:
    return reverse("studio:turn", args=[op.pk])


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def read_questions(snapshot: dict) -> list[dict]:
    """`questions` as [{text, options: [str]}], tolerant of odd items."""
    questions = []
    raw = snapshot.get("questions")
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict):
            options = item.get("options")
            questions.append(
                {
                    "text": _text(item.get("text")),
                    "options": [_text(o) for o in options if o not in (None, "")] if isinstance(options, list) else [],
                }
            )
        elif item not in (None, ""):
            questions.append({"text": _text(item), "options": []})
    return questions


def read_turn(op, snapshot: dict) -> dict[str, Any]:
    """What the turn template shows, read tolerantly from the stored snapshot."""
    artifact = _dict(snapshot.get("artifact"))
    job = _dict(snapshot.get("job"))
    images = [
        image
        for image in (snapshot.get("images") if isinstance(snapshot.get("images"), list) else [])
        if isinstance(image, dict) and isinstance(image.get("url"), str)
    ]
    error = snapshot.get("error")
    return {
        "studio": _text(snapshot.get("studio") or (op.context or {}).get("studio")),
        "status": _text(snapshot.get("status") or op.status),
        "message": _text(snapshot.get("message")),
        "questions": read_questions(snapshot),
        "outline": snapshot.get("outline"),
        "has_outline": snapshot.get("outline") not in (None, "", [], {}),
        "artifact": artifact,
        "artifact_name": _text(artifact.get("name")) or _text(artifact.get("id")),
        "job": job,
        "job_error": job.get("error"),
        "images": images,
        "video": _dict(snapshot.get("video")),
        "error": error,
        "error_message": _text(_dict(error).get("message")) if isinstance(error, dict) else _text(error),
        "conversation_id": _text(snapshot.get("conversation_id") or (op.context or {}).get("conversation_id")),
        "other": {k: v for k, v in snapshot.items() if k not in KNOWN_TURN_MEMBERS},
    }


def turn_context(op, snapshot: dict, request=None) -> dict[str, Any]:
    from studio.forms import LONGEST_MESSAGE, MESSAGE_MAX_LENGTH, ReplyForm

    turn = read_turn(op, snapshot)
    context: dict[str, Any] = {"turn": turn}
    if op.status == "needs_input":
        context["reply_form"] = ReplyForm(
            questions=turn["questions"], max_length=MESSAGE_MAX_LENGTH.get(turn["studio"], LONGEST_MESSAGE)
        )
    return context


STUDIO_TURN = OperationKind(
    name=TURN_KIND,
    title="Studio turn",
    fetch=fetch_turn,
    final_statuses=FINAL_TURN_STATUSES,
    template="studio/turn_snapshot.html",
    context=turn_context,
    page_url=turn_page_url,
)


def register_kinds() -> None:
    register(STUDIO_TURN)
