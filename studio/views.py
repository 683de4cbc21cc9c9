from __future__ import annotations

from dataclasses import replace

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from dashboard.api import errors
from dashboard.live.selectors import operation_view
from dashboard.web.forms import failed_write
from studio import selectors, services
from studio.forms import CONFLICT_MESSAGE, LONGEST_MESSAGE, MESSAGE_MAX_LENGTH, ReplyForm, TurnForm
from studio.live import read_turn


def _index(request: HttpRequest, form: TurnForm, remote_error=None) -> HttpResponse:
    turns = selectors.turns_recent(user=request.user, workspace_id=request.workspace.id)
    return render(
        request,
        "studio/index.html",
        {
            "form": form,
            "turns": turns,
            "remote_error": remote_error,
            "has_key": bool(request.workspace),
        },
    )


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    # "Continue this conversation" links prefill the studio, conversation and artifact.
    return _index(request, TurnForm(initial=TurnForm.initial_from(request.GET)))


@require_POST
def start_turn(request: HttpRequest) -> HttpResponse:
    form = TurnForm(request.POST)
    if not form.is_valid():
        return _index(request, form)
    data = form.cleaned_data
    try:
        turn = services.turn_start(
            key=request.workspace.require_key(),
            studio=data["studio"],
            message=data["message"],
            idempotency_key=data["idempotency_key"],
            artifact_id=data["artifact_id"],
            conversation_id=data["conversation_id"],
            auto=data["auto"],
        )
    except errors.ApiError as exc:
        return _index(request, form, remote_error=failed_write(request, form, exc, conflict_message=CONFLICT_MESSAGE))
    return redirect("studio:turn", pk=turn.pk)


def _turn_page(request: HttpRequest, turn, reply_form: ReplyForm | None = None, remote_error=None) -> HttpResponse:
    live = operation_view(op=turn, request=request)
    if reply_form is not None:
        live = replace(live, extra={**live.extra, "reply_form": reply_form, "remote_error": remote_error})
    return render(request, "studio/turn.html", {"op": turn, "live": live})


@require_GET
def turn(request: HttpRequest, pk: int) -> HttpResponse:
    return _turn_page(request, selectors.turn_for_viewer(user=request.user, operation_id=pk))


@require_POST
def reply(request: HttpRequest, pk: int) -> HttpResponse:
    turn = selectors.turn_for_viewer(user=request.user, operation_id=pk)
    if turn.status != "needs_input":
        return redirect("studio:turn", pk=turn.pk)
    read = read_turn(turn, turn.snapshot or {})
    form = ReplyForm(
        request.POST,
        questions=read["questions"],
        max_length=MESSAGE_MAX_LENGTH.get(read["studio"], LONGEST_MESSAGE),
    )
    if not form.is_valid():
        return _turn_page(request, turn, reply_form=form)
    try:
        next_turn = services.turn_reply(
            key=request.workspace.require_key(),
            turn=turn,
            message=form.reply_text(),
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except errors.ApiError as exc:
        error = failed_write(request, form, exc, conflict_message=CONFLICT_MESSAGE)
        return _turn_page(request, turn, reply_form=form, remote_error=error)
    return redirect("studio:turn", pk=next_turn.pk)
