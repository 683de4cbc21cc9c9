"""Alternatives side by side (studio/takes.py): "another take" of a finished
document or image turn (its brief read first), a set's takes one at a time
with a 1 / 2 pager, any two compared side by side, and "keep this one".
The takes pages read the console's rows; only a document take whose content
the console has not kept yet is read from the service."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.accounts.middleware import background_request
from dashboard.api import errors
from dashboard.frame.forms import failed_write
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect, poll_unchanged, render_region, stop_polling
from dashboard.web.params import bounded_int
from studio import selectors, takes
from studio.documents import render_content
from studio.forms import CONFLICT_MESSAGE, READ_ONLY, STUDIO_LABELS, AnotherTakeForm, KeepTakeForm
from studio.home_form import read_failure_box
from studio.library import artifact_detail
from studio.models import TakeSet
from studio.pages import turn_read


def _conversation_source(request: ConsoleRequest, pk: int):
    anchor = selectors.turn_in_workspace(workspace_id=request.workspace.id, operation_id=pk)
    turns = selectors.conversation_turns(workspace_id=request.workspace.id, anchor=anchor)
    return anchor, turns, takes.turn_take_source(turns)


@require_http_methods(["GET", "POST"])
@requires_write(READ_ONLY, methods=["POST"])
def take_turn_new(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """Another take of a conversation's finished document or image turn: the
    brief shown (and changeable) first, then sent with "decide for me"."""
    anchor, turns, source = _conversation_source(request, pk)
    studio = turn_read(source)["studio"] if source is not None else ""
    remote_error = None
    if request.method == "POST" and source is not None:
        form = AnotherTakeForm(request.POST, studio=studio)
        if form.is_valid():
            try:
                take = takes.take_another_turn(
                    key=request.workspace.require_key(),
                    workspace_id=request.workspace.id,
                    source=source,
                    message=form.cleaned_data["message"],
                    idempotency_key=form.cleaned_data["idempotency_key"],
                )
            except takes.TakesFull as full:
                form.add_error(None, str(full))
            except errors.ApiError as exc:
                remote_error = failed_write(request, form, exc, conflict_message=CONFLICT_MESSAGE)
            else:
                return client_redirect(request, _take_url(take.takes_id, take.number))
    else:
        brief = takes.take_brief(turns, source) if source is not None else ""
        form = AnotherTakeForm(initial={"message": brief}, studio=studio)
    existing = takes.take_set_of_turns(workspace_id=request.workspace.id, turns=turns)
    return render(
        request,
        "studio/take_new.html",
        {
            "anchor": anchor,
            "source": source,
            "source_read": turn_read(source) if source is not None else {},
            "studio": studio,
            "studio_label": STUDIO_LABELS.get(studio, "Studio"),
            "form": form,
            "remote_error": remote_error,
            "existing": existing,
        },
        status=200 if source is not None else 409,
    )


def _take_url(set_id: int, number: int) -> str:
    return f"{reverse('studio:takes', args=[set_id])}?take={number}"


def _with_content(request: ConsoleRequest, view: takes.TakeView, *, remote: bool = True) -> dict[str, Any]:
    """A take with what it shows: a document's content from the version the
    console kept, else (`remote`: not in a poll) read once from the service,
    a failure said in place and the rest of the page standing."""
    shown: dict[str, Any] = {"view": view, "html": "", "error": None, "missing": False}
    if view.document is not None:
        shown["html"] = render_content(view.document.content, view.document.content_format)
    elif view.document_id and view.state == takes.READY and remote:
        try:
            detail = artifact_detail(client=request.workspace.client, studio="document", artifact_id=view.document_id)
            shown["html"] = detail["document"]["html"]
        except errors.NotFoundError:
            shown["missing"] = True
        except errors.ApiError as exc:
            shown["error"] = read_failure_box(request, exc)
    return shown


def _pick(views: list[takes.TakeView], number: int | None, fallback: takes.TakeView) -> takes.TakeView:
    return next((view for view in views if view.number == number), fallback)


def _set_context(
    request: ConsoleRequest, take_set: TakeSet, *, number: str | None, remote: bool = True
) -> dict[str, Any]:
    """The takes page's context with take `number` shown (the kept one,
    else the newest, when it names none of the set)."""
    views = takes.takes_views(take_set)
    kept = next((view for view in views if view.take.pk == take_set.kept_id), None)
    default = kept or views[-1]
    chosen = _pick(views, bounded_int(number, default=default.number, lowest=1, highest=99), default)
    index = views.index(chosen)
    return {
        "take_set": take_set,
        "views": views,
        "count": len(views),
        "kept": kept,
        "studio_label": STUDIO_LABELS.get(take_set.studio, "Content App"),
        "name": next((view.name for view in views if view.name), "") or "Untitled",
        "can_write": request.workspace.can_write,
        "settled": takes.takes_settled(views),
        "version": takes.take_poll_version(take_set),
        # No toast for takes on screen (dashboard/inbox reads this).
        "on_screen_operations": [view.op.pk for view in views if view.op is not None],
        "shown": _with_content(request, chosen, remote=remote),
        "previous": views[index - 1] if index > 0 else None,
        "next": views[index + 1] if index + 1 < len(views) else None,
        # Compare with the take beside it: the next one, or the one before.
        "other": views[index + 1] if index + 1 < len(views) else (views[index - 1] if index > 0 else None),
    }


@require_GET
def takes_page(request: ConsoleRequest, pk: int) -> HttpResponse:
    """A set's takes one at a time (`take`: its number), with the pager."""
    take_set = takes.take_set_get(workspace_id=request.workspace.id, set_id=pk)
    context = _set_context(request, take_set, number=request.GET.get("take"))
    return render_region(request, "studio/takes.html", "take", context)


@background_request
@require_GET
def takes_live(request: ConsoleRequest, pk: int) -> HttpResponse:
    """The set's live region, polled while a take is made: the console's
    rows only (zero remote calls), 204 while unchanged, the shown take's
    region when something changed, 286 once every take is done and its
    content kept."""
    take_set = takes.take_set_get(workspace_id=request.workspace.id, set_id=pk)
    unchanged = poll_unchanged(request, lambda: takes.take_poll_version(take_set))
    if unchanged is not None:
        return unchanged
    context = _set_context(request, take_set, number=request.GET.get("take"), remote=False)
    response = render(request, "studio/takes.html#take", context)
    return stop_polling(response, final=context["settled"])


@require_GET
def takes_compare(request: ConsoleRequest, pk: int) -> HttpResponse:
    """Two takes side by side (`a` and `b`: their numbers; by default the
    first and the newest)."""
    take_set = takes.take_set_get(workspace_id=request.workspace.id, set_id=pk)
    context = _set_context(request, take_set, number=request.GET.get("a"), remote=False)
    views = context["views"]
    first = _pick(views, bounded_int(request.GET.get("a"), default=1, lowest=1, highest=99), views[0])
    second = _pick(views, bounded_int(request.GET.get("b"), default=views[-1].number, lowest=1, highest=99), views[-1])
    same = first.number == second.number and len(views) > 1
    context.update(
        pair=[_with_content(request, first), _with_content(request, second)],
        same=same,
        choices=[(view.number, f"Take {view.number}") for view in views],
        a=first.number,
        b=second.number,
    )
    return render(request, "studio/takes_compare.html", context)


@require_POST
@requires_write(READ_ONLY)
def take_keep(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    """ "Keep this one" (a console write, no remote call): back to where it
    was pressed (the takes page or the comparison)."""
    take_set = takes.take_set_get(workspace_id=request.workspace.id, set_id=pk)
    form = KeepTakeForm(request.POST)
    if not form.is_valid():
        return redirect("studio:takes", pk=take_set.pk)
    take = takes.take_keep(take_set=take_set, number=form.cleaned_data["take"], user_id=request.user.pk)
    messages.success(request, f"Take {take.number} is the one kept. The other takes stay in the library.")
    if request.POST.get("from") == "compare":
        pair = [bounded_int(request.POST.get(name), default=take.number, lowest=1, highest=99) for name in ("a", "b")]
        compare = reverse("studio:takes_compare", args=[take_set.pk])
        return client_redirect(request, f"{compare}?a={pair[0]}&b={pair[1]}")
    return client_redirect(request, _take_url(take_set.pk, take.number))
