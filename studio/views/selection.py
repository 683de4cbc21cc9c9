"""The library's selection (studio/selection.py): a page's boxes applied,
everything on a board, in a collection or matching a search added, cleared,
and the selection's own page with what can be done with it (a ZIP, a
collection or favourites, a share link), each through the existing path.

The boxes are a plain form posting here (works without JavaScript: its
"Update the selection" button, then back to the page); with htmx each box
posts the same form on change and only the count region is swapped. The
selection is console data of one workspace: every view reads it under the
working key's workspace id (the key gate refuses anyone without one).
Unguarded writes: the selection is the person's own, in their session, and
nothing is written in the workspace (a Viewer selects to download, as the ZIP
allows them)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_GET, require_POST

from dashboard.frame.workspace import ConsoleRequest
from dashboard.idempotency import new_idempotency_key
from dashboard.web.htmx import is_partial, next_url
from dashboard.web.params import database_id
from studio.library import KINDS, LibraryFilterForm, LibraryQuery, board_images, library_search
from studio.library_collections import collection_get, collection_items
from studio.reading import usable_id
from studio.selection import (
    MAX_SELECTION,
    SelectionChange,
    selection_add,
    selection_apply,
    selection_clear,
    selection_ids,
)

TEMPLATE = "studio/library_selection.html"
REGION = "selection-count"


def _context(request: ConsoleRequest, **extra: Any) -> dict[str, Any]:
    ids = selection_ids(session=request.session, workspace_id=request.workspace.id)
    return {"kinds": KINDS.values(), "kind": None, "selection": ids, "max_selection": MAX_SELECTION, **extra}


def _answer(request: ConsoleRequest, change: SelectionChange, done: str = "") -> HttpResponseBase:
    """htmx: the count region (saying what was left out); else the words as a
    message and back to the page the form was on."""
    if is_partial(request):
        back = next_url(request, reverse("studio:library", args=["images"]))
        return render(request, f"{TEMPLATE}#{REGION}", _context(request, note=change.words, back=back))
    if change.words:
        messages.error(request, change.words)
    elif done:
        messages.success(request, done)
    return redirect(next_url(request, reverse("studio:library", args=["images"])))


@require_GET
def selection_page(request: ConsoleRequest) -> HttpResponse:
    """The selection: how many, and what can be done with them."""
    return render(request, TEMPLATE, _context(request, idempotency_key=new_idempotency_key()))


@require_POST
def selection_update(request: ConsoleRequest) -> HttpResponseBase:
    """A page's boxes: of the images it showed (`shown`), those ticked
    (`image`) are selected, the others not. `all=page` ticks them all;
    `then=zip|collect|share` goes on to that action with the selection."""
    shown = request.POST.getlist("shown")
    picked = shown if request.POST.get("all") == "page" else request.POST.getlist("image")
    change = selection_apply(session=request.session, workspace_id=request.workspace.id, shown=shown, picked=picked)
    then = request.POST.get("then")
    if then in ("zip", "collect", "share") and not is_partial(request):
        if change.words:
            messages.error(request, change.words)
        if not change.count:
            messages.error(request, gettext("Choose at least one image."))
            return redirect(next_url(request, reverse("studio:library", args=["images"])))
        target = {
            "zip": reverse("studio:library_zip"),
            "collect": reverse("studio:collection_add"),
            "share": reverse("studio:share_images"),
        }[then]
        return redirect(f"{target}?selection=1")
    return _answer(request, change)


def _search_ids(request: ConsoleRequest) -> list[str]:
    form = LibraryFilterForm(request.POST, boards=[])
    form.fields.pop("board", None)
    cleaned = form.cleaned_data if form.is_valid() else {}
    query = LibraryQuery(q=cleaned.get("q") or "", sort=cleaned.get("sort") or "newest")
    board = usable_id(request.POST.get("board"))
    result = library_search(client=request.workspace.client, kind=KINDS["images"], query=query, board_id=board)
    return [item["id"] for item in result.items]


@require_POST
def selection_add_all(request: ConsoleRequest) -> HttpResponseBase:
    """Everything on a board (`board`: its images, one call), in a collection
    (`collection`: the console's own list, no remote call) or matching a
    search (`search`: the library's bounded search)."""
    source = request.POST.get("source")
    board = usable_id(request.POST.get("board"))
    if source == "board" and board:
        ids = [image["id"] for image in board_images(client=request.workspace.client, board_id=board)]
        where = gettext("on this board")
    elif source == "collection":
        collection = collection_get(
            workspace_id=request.workspace.id, collection_id=database_id(request.POST.get("collection")) or 0
        )
        ids = [item.item_id for item in collection_items(collection=collection, kind="images")]
        where = gettext("in “%(collection)s”") % {"collection": collection.name}
    elif source == "search":
        ids = _search_ids(request)
        where = gettext("matching the search")
    else:
        ids, where = [], ""
    change = selection_add(session=request.session, workspace_id=request.workspace.id, ids=ids)
    done = ngettext(
        "Selected %(count)s more image %(where)s: %(total)s in all.",
        "Selected %(count)s more images %(where)s: %(total)s in all.",
        change.added,
    ) % {"count": change.added, "where": where, "total": change.count}
    if not ids:
        done = gettext("There are no images to select here.")
    return _answer(request, change, done)


@require_POST
def selection_clear_view(request: ConsoleRequest) -> HttpResponseBase:
    change = selection_clear(session=request.session, workspace_id=request.workspace.id)
    return _answer(request, change, "The selection is empty now.")
