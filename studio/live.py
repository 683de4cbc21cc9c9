"""The Studio turn as a tracked operation (kind `studio.turn`).

A background turn answers 202 with its id; the live poller then reads
`GET /v1/turns/{id}` until the turn is `completed`, `needs_input` or `failed`.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from dashboard.api.paths import api_path
from dashboard.live.registry import OperationKind
from dashboard.web.reading import as_dict, as_list, error_message, others, read_questions, text

TURN_KIND = "studio.turn"
FINAL_TURN_STATUSES = frozenset({"completed", "needs_input", "failed"})

# Members of a turn the page shows in their own place; anything else is
# shown in the generic JSON view (the contract leaves a turn's shape open).
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
    return client.get(api_path("/v1/turns/{}", op.remote_id))


def turn_page_url(op) -> str:
    return reverse("studio:turn", args=[op.pk])


def read_turn(op, snapshot: dict) -> dict[str, Any]:
    """What the turn template shows, read tolerantly from the stored snapshot."""
    artifact = as_dict(snapshot.get("artifact"))
    job = as_dict(snapshot.get("job"))
    images = [
        image
        for image in as_list(snapshot.get("images"))
        if isinstance(image, dict) and isinstance(image.get("url"), str)
    ]
    error = snapshot.get("error")
    return {
        "studio": text(snapshot.get("studio") or (op.context or {}).get("studio")),
        "status": text(snapshot.get("status") or op.status),
        "message": text(snapshot.get("message")),
        "questions": read_questions(snapshot.get("questions")),
        "outline": snapshot.get("outline"),
        "has_outline": snapshot.get("outline") not in (None, "", [], {}),
        "artifact": artifact,
        "artifact_name": text(artifact.get("name")) or text(artifact.get("id")),
        "job": job,
        "job_error": job.get("error"),
        "images": images,
        "video": as_dict(snapshot.get("video")),
        "error": error,
        "error_message": error_message(error),
        "conversation_id": text(snapshot.get("conversation_id") or (op.context or {}).get("conversation_id")),
        "other": others(snapshot, KNOWN_TURN_MEMBERS),
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
    person_needed=lambda snapshot: snapshot.get("status") == "needs_input",
)
