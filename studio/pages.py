"""What the Studio pages show, given the person's `workspace`
(`request.workspace`) and what the view parsed, never the request: the home
page (the studios, recent conversations, the library item a new conversation
works on, a fork's prefill), a conversation's thread (its turns, the
director's questions as one-click answers, what to try again) and the
artifact pane beside it. Views parse, call these, describe remote errors
with the frame (`describe_remote_error`) and render; no view imports another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import Http404
from django.urls import reverse
from django.utils import timezone

from dashboard.api import errors
from dashboard.idempotency import new_idempotency_key
from dashboard.live.selectors import operation_view
from studio import selectors, takes
from studio.forms import (
    APPROVE_OUTLINE_MESSAGE,
    DECIDE_MESSAGE,
    MESSAGE_MAX_LENGTH,
    STUDIO_LABELS,
    STUDIO_MAKES,
    STUDIOS,
)
from studio.library import KIND_OF_STUDIO, artifact_detail, finish_pane
from studio.live import read_turn, turn_failure
from studio.preview import see_it
from studio.reading import safe_link

if TYPE_CHECKING:
    from dashboard.frame.workspace import Workspace
    from dashboard.live.models import TrackedOperation

PICKED_GONE = "The item you picked is not in this workspace (or no longer exists). Pick another from the library."


def turn_read(op: TrackedOperation) -> dict[str, Any]:
    """What a stored turn shows (studio/live.py read_turn), from its row's
    snapshot (a row not polled yet has none)."""
    return read_turn(op, op.snapshot if isinstance(op.snapshot, dict) else {})


# --- Studio home ---------------------------------------------------------------


def picked_item(
    *, workspace: Workspace, studio: str, artifact_id: str
) -> tuple[dict | None, str | errors.ApiError | None]:
    """The library item a new conversation works on, read from the service
    (an id from the URL is never trusted): (item, None), or (None, what went
    wrong: PICKED_GONE, or the remote error for the view to describe)."""
    if not artifact_id or not workspace:
        return None, None
    try:
        detail = artifact_detail(client=workspace.client, studio=studio, artifact_id=artifact_id)
    except errors.NotFoundError:
        return None, PICKED_GONE
    except errors.ApiError as exc:
        return None, exc
    return {**detail["item"], "studio": studio, "kind": detail["kind"]}, None


def home_context(*, workspace: Workspace, studio: str, picked: dict | None) -> dict[str, Any]:
    """The home page: every studio with what it makes, the recent conversations."""
    return {
        "studios": [
            {
                "name": name,
                "label": label,
                "limit": limit,
                "makes": STUDIO_MAKES[name],
                "start": f"Start {'an' if label[0] in 'AEIOU' else 'a'} {label.lower()}",
                "library": KIND_OF_STUDIO[name],
            }
            for name, label, limit in STUDIOS
        ],
        "conversations": selectors.conversations_recent(workspace_id=workspace.id),
        # "Pick it from the library" opens the chosen studio's list (the browser follows the select).
        "library_kind": KIND_OF_STUDIO.get(studio, KIND_OF_STUDIO["website"]),
        "picked": picked,
        "has_key": bool(workspace),
    }


def forked_initial(*, workspace: Workspace, turn_id: int | None) -> dict[str, Any]:
    """A fork (issue #21, versions): the home form prefilled with a stored
    turn's message and studio, read from the row (never from the URL, which
    carries only the turn's id: a message can be 18,000 characters). The
    item is not carried over: a fork is a new conversation making a new
    item, and the original keeps its own history. A turn of another
    workspace, or none, prefills nothing."""
    if turn_id is None or not workspace:
        return {}
    try:
        op = selectors.turn_in_workspace(workspace_id=workspace.id, operation_id=turn_id)
    except Http404:
        return {}
    read = turn_read(op)
    studio = read["studio"] if read["studio"] in MESSAGE_MAX_LENGTH else "website"
    return {"studio": studio, "message": read["asked"], "auto": read["auto"]}


# --- the conversation ------------------------------------------------------------


def thread_context(*, workspace: Workspace, anchor: TrackedOperation, for_poll: bool = False) -> dict[str, Any]:
    """The live region's context: every turn of the conversation, oldest first."""
    turns = selectors.conversation_turns(workspace_id=workspace.id, anchor=anchor)
    # A turn's view reads its row alone (studio/live.py turn_context).
    views = [operation_view(op=op) for op in turns]
    latest = turns[-1]
    read = turn_read(latest)
    waiting = latest.status == "needs_input"
    return {
        "anchor": anchor,
        "turns": turns,
        "items": [(view, view.extra.get("turn") or {}) for view in views],
        "latest": latest,
        "latest_turn": read,
        "studio": read["studio"],
        "studio_label": STUDIO_LABELS.get(read["studio"], "Studio"),
        "version": selectors.turns_version(turns),
        # The poll names the turns it shows: an unchanged poll is one query on them.
        "turn_ids": ",".join(str(op.pk) for op in turns),
        # No toast for the conversation on screen (dashboard/inbox: the page load's and the polls').
        "on_screen_operations": [op.pk for op in turns],
        "polling": not all(op.is_final for op in turns),
        "waiting": waiting,
        # One key per one-click form: a double click is the same write.
        "question_rows": [(question, new_idempotency_key()) for question in read["questions"]] if waiting else [],
        "decide_key": new_idempotency_key(),
        "approve_key": new_idempotency_key(),
        "decide_message": DECIDE_MESSAGE,
        "approve_message": APPROVE_OUTLINE_MESSAGE,
        "refresh_pane": for_poll,
        # Only the latest turn offers to be tried again: once the conversation
        # went on, an old message sent again would land out of order.
        "failure": turn_failure(latest, read),
        # Alternatives side by side (studio/takes.py): what another take repeats, and the take this conversation is.
        "take_source": takes.turn_take_source(turns),
        "take": takes.take_set_of_turns(workspace_id=workspace.id, turns=turns),
    }


def pane_context(*, workspace: Workspace, thread: dict[str, Any], width: str) -> dict[str, Any]:
    """The artifact pane: what the turns said of the artifact, then what the
    service says of it now (one or two reads). A read that failed leaves its
    error in `error` for the view to describe; the rest of the pane stands."""
    artifact, source = selectors.latest_artifact(thread["turns"])
    studio = str(artifact.get("type") or thread["studio"])
    if studio not in MESSAGE_MAX_LENGTH:
        studio = thread["studio"]
    video_turn = next(
        (
            turn
            for _view, turn in reversed(thread["items"])
            if turn.get("video") or turn.get("pending") or turn.get("skipped")
        ),
        None,
    )
    pane: dict[str, Any] = {
        "studio": studio,
        "artifact": artifact,
        "name": str(artifact.get("name") or "") or "(untitled)",
        "url": safe_link(artifact.get("url")),
        "public_url": safe_link(artifact.get("public_url")),
        "video_turn": video_turn,
        "detail": None,
        "item": {},
        "error": None,
        "missing": False,
        "library": KIND_OF_STUDIO.get(studio),
        "pane_url": reverse("studio:artifact_pane", args=[thread["anchor"].pk]),
    }
    artifact_id = str(artifact.get("id") or "")
    if not artifact_id or source is None:
        return see_it(finish_pane(pane), width=width, now=timezone.now())
    try:
        pane["detail"] = artifact_detail(client=workspace.client, studio=studio, artifact_id=artifact_id)
        pane["item"] = pane["detail"]["item"]
    except errors.NotFoundError:
        pane["missing"] = True
    except errors.ApiError as exc:
        pane["error"] = exc
    return see_it(finish_pane(pane), width=width, source=source, now=timezone.now())


def changed_initial(thread: dict[str, Any], change: int | None) -> dict[str, Any] | None:
    """ "Change and try again": the composer starts with the failed turn's
    message (and its "decide for me"). Only the latest turn of this
    conversation, when it failed, is copied; any other number is ignored."""
    failed = next((op for op in thread["turns"] if op.pk == change), None) if change is not None else None
    if failed is None or failed is not thread["latest"] or thread["failure"] != "failed":
        return None
    read = turn_read(failed)
    return {"message": read["asked"], "auto": read["auto"]}
