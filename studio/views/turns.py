"""Studio home and the conversation page: turns as a chat, the director's
questions as one-click answers, the live status, the composer, and the
artifact pane beside them."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from dashboard.accounts.middleware import background_request
from dashboard.api import errors
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.remote_errors import RemoteErrorView, describe_remote_error
from dashboard.frame.workspace import ConsoleRequest
from dashboard.idempotency import new_idempotency_key
from dashboard.live.selectors import operation_view
from dashboard.web.htmx import client_redirect, is_partial, poll_unchanged, stop_polling
from dashboard.web.params import database_id
from studio import selectors, services
from studio.forms import (
    CONFLICT_MESSAGE,
    MESSAGE_MAX_LENGTH,
    READ_ONLY,
    STUDIO_LABELS,
    STUDIO_MAKES,
    STUDIOS,
    MessageForm,
    TryAgainForm,
    TurnForm,
    message_noun,
)
from studio.library import KIND_OF_STUDIO, artifact_detail, finish_pane
from studio.live import read_turn, turn_failure
from studio.preview import see_it
from studio.reading import safe_link

PICKED_GONE = "The item you picked is not in this workspace (or no longer exists). Pick another from the library."
# What the one-click buttons send.
DECIDE_MESSAGE = "Decide for me and make it now."
APPROVE_OUTLINE_MESSAGE = "The outline is approved: write it."


def box_for(request: ConsoleRequest, exc: errors.ApiError) -> RemoteErrorView:
    """A message box for a read that failed inside a page (a pane, a picker):
    the rest of the page stands; Retry reloads the page."""
    box = describe_remote_error(request, exc)
    box.retry = "link"
    box.retry_url = request.get_full_path()
    return box


# --- Studio home ---------------------------------------------------------------


def _picked(request: ConsoleRequest, studio: str, artifact_id: str) -> tuple[dict | None, Any]:
    """The library item a new conversation works on, read from the service
    (an id from the URL is never trusted): (item, None) or (None, a message)."""
    if not artifact_id or not request.workspace:
        return None, None
    try:
        detail = artifact_detail(client=request.workspace.client, studio=studio, artifact_id=artifact_id)
    except errors.NotFoundError:
        return None, PICKED_GONE
    except errors.ApiError as exc:
        return None, box_for(request, exc)
    return {**detail["item"], "studio": studio, "kind": detail["kind"]}, None


def _home(request: ConsoleRequest, form: TurnForm, remote_error=None, picked_error=None) -> HttpResponse:
    studio = form["studio"].value() or "website"
    artifact_id = str(form["artifact_id"].value() or "")
    picked, problem = _picked(request, studio if studio in MESSAGE_MAX_LENGTH else "website", artifact_id)
    if isinstance(problem, str):
        picked_error = picked_error or problem
    elif problem is not None:
        remote_error = remote_error or problem
    if picked is not None:
        # No studio select: the message box carries the picked studio's limit itself
        # (as data for the counter, never a maxlength that would cut a paste).
        limit = str(MESSAGE_MAX_LENGTH[picked["studio"]])
        noun = message_noun(picked["studio"])
        form.fields["message"].widget.attrs.update({"data-max-length": limit, "data-limit-noun": noun})
    return render(
        request,
        "studio/index.html",
        {
            "form": form,
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
            "conversations": selectors.conversations_recent(workspace_id=request.workspace.id),
            # "Pick it from the library" opens the chosen studio's list (the browser follows the select).
            "library_kind": KIND_OF_STUDIO.get(studio, KIND_OF_STUDIO["website"]),
            "picked": picked,
            "picked_error": picked_error,
            "remote_error": remote_error,
            "has_key": bool(request.workspace),
        },
    )


@require_GET
def index(request: ConsoleRequest) -> HttpResponse:
    # "Edit with the director" links from the library prefill the studio and the item;
    # "Start a new conversation from this message" (`?from_turn=`) the studio and message.
    return _home(request, TurnForm(initial={**TurnForm.initial_from(request.GET), **_forked(request)}))


def _forked(request: ConsoleRequest) -> dict[str, Any]:
    """A fork (issue #21, versions): the home form prefilled with a stored
    turn's message and studio, read from the row (never from the URL, which
    carries only the turn's id: a message can be 18,000 characters). The
    item is not carried over: a fork is a new conversation making a new
    item, and the original keeps its own history. A turn of another
    workspace, or none, prefills nothing."""
    turn_id = database_id(request.GET.get("from_turn"))
    if turn_id is None or not request.workspace:
        return {}
    try:
        op = selectors.turn_in_workspace(workspace_id=request.workspace.id, operation_id=turn_id)
    except Http404:
        return {}
    read = read_turn(op, op.snapshot if isinstance(op.snapshot, dict) else {})
    studio = read["studio"] if read["studio"] in MESSAGE_MAX_LENGTH else "website"
    return {"studio": studio, "message": read["asked"], "auto": read["auto"]}


@require_POST
@requires_write(READ_ONLY)
def start_turn(request: ConsoleRequest) -> HttpResponseBase:
    form = TurnForm(request.POST)
    if not form.is_valid():
        return _home(request, form)
    data = form.cleaned_data
    try:
        turn = services.turn_start(
            key=request.workspace.require_key(),
            studio=data["studio"],
            message=data["message"],
            idempotency_key=data["idempotency_key"],
            artifact_id=data["artifact_id"],
            auto=data["auto"],
        )
    except errors.NotFoundError as exc:
        if not data["artifact_id"]:
            return _home(request, form, remote_error=failed_write(request, form, exc))
        form.add_error(None, PICKED_GONE)
        return _home(request, form, picked_error=PICKED_GONE)
    except errors.ApiError as exc:
        return _home(request, form, remote_error=failed_write(request, form, exc, conflict_message=CONFLICT_MESSAGE))
    return client_redirect(request, reverse("studio:turn", args=[turn.pk]))


# --- the conversation ------------------------------------------------------------


def _thread(
    request: ConsoleRequest,
    anchor,
    *,
    for_poll: bool = False,
    try_again: TryAgainForm | None = None,
    try_again_error: RemoteErrorView | None = None,
) -> dict[str, Any]:
    """The live region's context: every turn of the conversation, oldest first.
    `try_again` is the failed turn's form as posted (its key kept) and
    `try_again_error` why that post failed, when the page answers one."""
    workspace_id = request.workspace.id
    turns = selectors.conversation_turns(workspace_id=workspace_id, anchor=anchor)
    views = [operation_view(op=op, request=request) for op in turns]
    latest = turns[-1]
    read = read_turn(latest, latest.snapshot if isinstance(latest.snapshot, dict) else {})
    waiting = latest.status == "needs_input"
    # Only the latest turn offers to be tried again: once the conversation
    # went on, an old message sent again would land out of order. A retry
    # that ran out of credits offers no retry either (it cannot succeed).
    failure = turn_failure(latest, read)
    if try_again_error is not None and not try_again_error.retry_helps:
        failure = "credits"
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
        "failure": failure,
        "try_again": (try_again or TryAgainForm()) if failure == "failed" else None,
        "try_again_error": try_again_error,
    }


def _pane(request: ConsoleRequest, thread: dict[str, Any]) -> dict[str, Any]:
    """The artifact pane: what the turns said of the artifact, then what the
    service says of it now (one or two reads)."""
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
    # ?width= picks the preview's width (phone or desktop): links that work without JavaScript.
    width = request.GET.get("width", "")
    if not artifact_id or source is None:
        return see_it(finish_pane(pane), width=width, now=timezone.now())
    try:
        pane["detail"] = artifact_detail(client=request.workspace.client, studio=studio, artifact_id=artifact_id)
        pane["item"] = pane["detail"]["item"]
    except errors.NotFoundError:
        pane["missing"] = True
    except errors.ApiError as exc:
        pane["error"] = box_for(request, exc)
    return see_it(finish_pane(pane), width=width, source=source, now=timezone.now())


def _conversation(
    request: ConsoleRequest,
    anchor,
    composer: MessageForm | None = None,
    remote_error=None,
    change: int | None = None,
    **try_again: Any,
) -> HttpResponse:
    thread = _thread(request, anchor, **try_again)
    if composer is None:
        changed = _changed(thread, change)
        composer = MessageForm(studio=thread["studio"], initial=changed)
        if changed:
            # The person asked to change the message: the cursor is there.
            composer.fields["message"].widget.attrs["autofocus"] = True
    return render(
        request,
        "studio/conversation.html",
        {**thread, "pane": _pane(request, thread), "composer": composer, "remote_error": remote_error},
    )


def _changed(thread: dict[str, Any], change: int | None) -> dict[str, Any] | None:
    """ "Change and try again": the composer starts with the failed turn's
    message (and its "decide for me"), focused. Only a turn of this
    conversation that failed is copied; any other number is ignored."""
    failed = next((op for op in thread["turns"] if op.pk == change), None) if change is not None else None
    if failed is None or failed is not thread["latest"] or thread["failure"] != "failed":
        return None
    read = read_turn(failed, failed.snapshot if isinstance(failed.snapshot, dict) else {})
    return {"message": read["asked"], "auto": read["auto"]}


@require_GET
def turn(request: ConsoleRequest, pk: int) -> HttpResponse:
    anchor = selectors.turn_in_workspace(workspace_id=request.workspace.id, operation_id=pk)
    return _conversation(request, anchor, change=database_id(request.GET.get("change")))


@background_request
@require_GET
def conversation_live(request: ConsoleRequest, pk: int) -> HttpResponse:
    """The conversation's live region, polled every 2 s: the console's
    database only (zero remote calls), 204 while the turns it shows are
    unchanged (one query), 286 once every turn is final. A turn a teammate
    adds meanwhile shows on the page's next load."""
    shown = [
        op_id
        for part in request.GET.get("ids", "").split(",")[: selectors.MAX_TURNS + 1]
        if (op_id := database_id(part)) is not None
    ]
    unchanged = poll_unchanged(request, lambda: selectors.shown_turns_version(user=request.user, turn_ids=shown) or "-")
    if unchanged is not None:
        return unchanged
    anchor = selectors.turn_in_workspace(workspace_id=request.workspace.id, operation_id=pk)
    thread = _thread(request, anchor, for_poll=True)
    response = render(request, "studio/conversation.html#thread", thread)
    return stop_polling(response, final=not thread["polling"])


@background_request  # loaded by the live region's poll when a turn finishes, not by the person
@require_GET
def artifact_pane(request: ConsoleRequest, pk: int) -> HttpResponse:
    anchor = selectors.turn_in_workspace(workspace_id=request.workspace.id, operation_id=pk)
    if not is_partial(request):
        return redirect("studio:turn", pk=anchor.pk)
    thread = _thread(request, anchor)
    return render(request, "studio/conversation.html#pane", {**thread, "pane": _pane(request, thread)})


@require_POST
@requires_write(READ_ONLY)
def reply(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """One more message in the conversation (the composer, an option button,
    a free answer, "decide for me", an outline's approval)."""
    anchor = selectors.turn_in_workspace(workspace_id=request.workspace.id, operation_id=pk)
    turns = selectors.conversation_turns(workspace_id=request.workspace.id, anchor=anchor)
    latest = turns[-1]
    studio = read_turn(latest, latest.snapshot if isinstance(latest.snapshot, dict) else {})["studio"]
    form = MessageForm(request.POST, studio=studio)
    if not form.is_valid():
        return _conversation(request, anchor, composer=form)
    try:
        next_turn = services.turn_continue(
            key=request.workspace.require_key(),
            turns=turns,
            message=form.cleaned_data["message"],
            idempotency_key=form.cleaned_data["idempotency_key"],
            auto=form.cleaned_data["auto"],
        )
    except errors.ApiError as exc:
        error = failed_write(request, form, exc, conflict_message=CONFLICT_MESSAGE)
        return _conversation(request, anchor, composer=form, remote_error=error)
    return client_redirect(request, reverse("studio:turn", args=[next_turn.pk]))


@require_POST
@requires_write(READ_ONLY)
def try_again(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """ "Try again" on a failed turn: its message sent once more as a new turn
    of the same conversation (services.turn_try_again), under the key the
    button was rendered with. A turn that did not fail sends nothing."""
    failed = selectors.turn_in_workspace(workspace_id=request.workspace.id, operation_id=pk)
    form = TryAgainForm(request.POST)
    read = read_turn(failed, failed.snapshot if isinstance(failed.snapshot, dict) else {})
    if not form.is_valid() or turn_failure(failed, read) != "failed":
        # A hand-made post, or a page older than the turn's outcome: show the conversation as it is now.
        return client_redirect(request, reverse("studio:turn", args=[failed.pk]))
    turns = selectors.conversation_turns(workspace_id=request.workspace.id, anchor=failed)
    try:
        next_turn = services.turn_try_again(
            key=request.workspace.require_key(),
            turns=turns,
            failed=failed,
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except errors.ApiError as exc:
        # The box goes beside the button it answers (its Retry sends that form
        # again, with its key when the same write is worth repeating).
        error = failed_write(request, form, exc, conflict_message=CONFLICT_MESSAGE) or describe_remote_error(
            request, exc
        )
        return _conversation(request, failed, try_again=form, try_again_error=error)
    return client_redirect(request, reverse("studio:turn", args=[next_turn.pk]))
