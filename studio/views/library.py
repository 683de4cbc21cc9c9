"""The Studio library: six lists with the one cursor pager, an item page
each, and "edit with the director" (the composer's picker)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from dashboard.fair_use import costly_request
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import is_partial, render_region
from dashboard.web.pager import CursorPager
from studio.content_apps import catalogue_read
from studio.favourites import MAX_FAVOURITES, favourite_is, favourite_toggle, favourites_list
from studio.forms import READ_ONLY
from studio.library import (
    DOCUMENT_TYPES,
    KINDS,
    LibraryFilterForm,
    LibraryQuery,
    artifact_detail,
    boards_all,
    find_image,
    finish_pane,
    image_actions,
    library_page,
    library_search,
)
from studio.library_zip import MAX_ZIP_IMAGES
from studio.preview import see_it
from studio.reading import safe_link
from studio.selection import selection_ids

MAX_BOARD_FILTER = 200


def _board_filter(request: ConsoleRequest, kind: str) -> str:
    board = (request.GET.get("board") or "")[:MAX_BOARD_FILTER] if kind == "images" else ""
    return "" if any(ord(char) < 0x20 for char in board) else board


@costly_request(when="q")
@require_GET
def library_list(request: ConsoleRequest, kind: str) -> HttpResponse:
    """A list, paged by the service; or, once a search, a sort or a type is
    asked for, the first SEARCH_PAGES pages narrowed by the console (the
    contract's lists take no such parameters), saying how much it read."""
    library_kind = KINDS[kind]
    client = request.workspace.client
    board = _board_filter(request, kind)
    # The board select is outside the paged region: a page turn (a partial
    # request) does not read the boards again.
    boards = boards_all(client=client) if kind == "images" and not is_partial(request) else None
    form = LibraryFilterForm(request.GET or None, types=DOCUMENT_TYPES if kind == "documents" else None, boards=boards)
    # A bad value (a sort that is not offered) is shown on its field; the
    # list then shows as if it were not asked for, nothing typed is lost.
    valid = form.is_valid() if form.is_bound else True
    cleaned = form.cleaned_data if form.is_bound and valid else {}
    query = LibraryQuery(q=cleaned.get("q") or "", sort=cleaned.get("sort") or "newest", type=cleaned.get("type") or "")
    context: dict[str, Any] = {
        "kind": library_kind,
        "kinds": KINDS.values(),
        "board": board,
        "form": form,
        "query": query,
        "search": None,
        "max_zip": MAX_ZIP_IMAGES,
        # The boxes of the images already selected are ticked (studio/selection.py).
        "selection": set(selection_ids(session=request.session, workspace_id=request.workspace.id)),
    }
    if query.narrows:
        result = library_search(client=client, kind=library_kind, query=query, board_id=board)
        context.update(items=result.items, search=result, paging=None)
    else:
        pager = CursorPager.from_query(request.GET)
        items, next_cursor = library_page(client=client, kind=library_kind, pager=pager, board_id=board)
        context.update(items=items, paging=pager.links({"board": board}, next_cursor))
    return render_region(request, "studio/library.html", "items", context)


@require_GET
def library_item(request: ConsoleRequest, kind: str, item_id: str) -> HttpResponse:
    library_kind = KINDS[kind]
    client = request.workspace.client
    if kind == "images":
        image = find_image(client=client, image_id=item_id)
        # Actions only for someone who may run an app: a read-only member
        # would open forms they cannot send (and the catalogue read is saved).
        actions = []
        if request.workspace.can_write:
            apps = catalogue_read(client.get("/v1/studio/apps"))
            actions = image_actions(apps, board_id=image["board_id"], image_id=image["id"])
        favourite = favourite_is(user_id=request.user.pk, workspace_id=request.workspace.id, kind=kind, item_id=item_id)
        context = {
            "kind": library_kind,
            "kinds": KINDS.values(),
            "image": image,
            "actions": actions,
            "favourite": favourite,
        }
        return render(request, "studio/library_image.html", context)
    detail = artifact_detail(client=client, studio=library_kind.studio, artifact_id=item_id)
    item = detail["item"]
    pane = finish_pane(
        {
            "studio": library_kind.studio,
            "artifact": {"id": item_id},
            "name": item["name"],
            "url": safe_link(item.get("url")),
            "public_url": safe_link(item.get("public_url")),
            "detail": detail,
            "item": item,
            "library": library_kind,
        }
    )
    see_it(pane, width=request.GET.get("width", ""), now=timezone.now())
    return render(
        request, "studio/library_item.html", {"kind": library_kind, "kinds": KINDS.values(), "pane": pane, "item": item}
    )


@require_POST
@requires_write(READ_ONLY)
def favourite_toggle_view(request: ConsoleRequest, kind: str, item_id: str) -> HttpResponse:
    """Mark or unmark an item as a favourite (a plain form POST: works
    without JavaScript), then back to the page it was marked on. The name and
    picture come from the form (they only label the favourites page; the
    item itself is read from the service when opened). A read-only member
    is refused like every other POST of the Studio: their role is to look."""
    name = (request.POST.get("name") or "")[:300]
    picture = safe_link(request.POST.get("picture"))
    state = favourite_toggle(
        user_id=request.user.pk,
        workspace_id=request.workspace.id,
        kind=kind,
        item_id=item_id,
        name=name,
        picture=picture,
    )
    what = name or "it"
    words = {
        "added": f"Added {what} to your favourites.",
        "removed": f"Removed {what} from your favourites.",
        "full": f"You have {MAX_FAVOURITES} favourites already: remove one to add {what}.",
    }[state]
    (messages.error if state == "full" else messages.success)(request, words)
    back = request.POST.get("next") or ""
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        back = reverse("studio:library_item", args=[kind, item_id])
    return redirect(back)


@require_GET
def favourites(request: ConsoleRequest) -> HttpResponse:
    """The person's favourites in this workspace, read from the console only."""
    items = favourites_list(user_id=request.user.pk, workspace_id=request.workspace.id)
    return render(
        request,
        "studio/library_favourites.html",
        {"kinds": KINDS.values(), "kind": None, "favourites": items, "labels": KINDS},
    )
