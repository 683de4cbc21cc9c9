"""Studio home and the conversation page: turns as a chat, the director's
questions as one-click answers, the live status, the composer, and the
artifact pane beside them."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from dashboard.accounts.middleware import background_request
from dashboard.api import errors
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.remote_errors import RemoteErrorView, describe_remote_error
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect, is_partial, poll_unchanged, stop_polling
from dashboard.web.params import database_id
from studio import pages, selectors, services
from studio.forms import (
    CONFLICT_MESSAGE,
    READ_ONLY,
    MessageForm,
    TryAgainForm,
    TurnForm,
)
from studio.home_form import home_page, read_failure_box
from studio.live import turn_failure
from studio.pages import PICKED_GONE, turn_read

# --- Studio home (studio/home_form.py) ------------------------------------------


@require_GET
def index(request: ConsoleRequest) -> HttpResponse:
    # "Edit with the director" links from the library prefill the studio and the item;
    # "Start a new conversation from this message" (`?from_turn=`) the studio and message.
    forked = pages.forked_initial(workspace=request.workspace, turn_id=database_id(request.GET.get("from_turn")))
    return home_page(request, TurnForm(initial={**TurnForm.initial_from(request.GET), **forked}))


@require_POST
@requires_write(READ_ONLY)
def start_turn(request: ConsoleRequest) -> HttpResponseBase:
    form = TurnForm(request.POST)
    if not form.is_valid():
        return home_page(request, form)
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
            return home_page(request, form, remote_error=failed_write(request, form, exc))
        form.add_error(None, PICKED_GONE)
        return home_page(request, form, picked_error=PICKED_GONE)
    except errors.ApiError as exc:
        return home_page(
            request, form, remote_error=failed_write(request, form, exc, conflict_message=CONFLICT_MESSAGE)
        )
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
    """The live region's context (studio/pages.py) with the failed turn's
    form: `try_again` as posted (its key kept) and `try_again_error` why that
    post failed, when the page answers one. A retry that ran out of credits
    offers no retry (it cannot succeed)."""
    thread = pages.thread_context(workspace=request.workspace, anchor=anchor, for_poll=for_poll)
    if try_again_error is not None and not try_again_error.retry_helps:
        thread["failure"] = "credits"
    thread["try_again"] = (try_again or TryAgainForm()) if thread["failure"] == "failed" else None
    thread["try_again_error"] = try_again_error
    return thread


def _pane(request: ConsoleRequest, thread: dict[str, Any]) -> dict[str, Any]:
    # ?width= picks the preview's width (phone or desktop): links that work without JavaScript.
    pane = pages.pane_context(workspace=request.workspace, thread=thread, width=request.GET.get("width", ""))
    if pane["error"] is not None:
        pane["error"] = read_failure_box(request, pane["error"])
    return pane


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
        changed = pages.changed_initial(thread, change)
        composer = MessageForm(studio=thread["studio"], initial=changed)
        if changed:
            # The person asked to change the message: the cursor is there.
            composer.fields["message"].widget.attrs["autofocus"] = True
    return render(
        request,
        "studio/conversation.html",
        {**thread, "pane": _pane(request, thread), "composer": composer, "remote_error": remote_error},
    )


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
    studio = turn_read(latest)["studio"]
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
    read = turn_read(failed)
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
