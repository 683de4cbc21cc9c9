"""The Studio library: six lists with the one cursor pager, an item page
each, and "edit with the director" (the composer's picker)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import render_region
from dashboard.web.pager import CursorPager
from studio.library import KINDS, artifact_detail, find_image, finish_pane, library_page
from studio.reading import safe_link

MAX_BOARD_FILTER = 200


@require_GET
def library_list(request: ConsoleRequest, kind: str) -> HttpResponse:
    library_kind = KINDS[kind]
    pager = CursorPager.from_query(request.GET)
    board = (request.GET.get("board") or "")[:MAX_BOARD_FILTER] if kind == "images" else ""
    if any(ord(char) < 0x20 for char in board):
        board = ""
    items, next_cursor = library_page(client=request.workspace.client, kind=library_kind, pager=pager, board_id=board)
    context = {
        "kind": library_kind,
        "kinds": KINDS.values(),
        "items": items,
        "board": board,
        "paging": pager.links({"board": board}, next_cursor),
    }
    return render_region(request, "studio/library.html", "items", context)


@require_GET
def library_item(request: ConsoleRequest, kind: str, item_id: str) -> HttpResponse:
    library_kind = KINDS[kind]
    client = request.workspace.client
    if kind == "images":
        image = find_image(client=client, image_id=item_id)
        return render(
            request, "studio/library_image.html", {"kind": library_kind, "kinds": KINDS.values(), "image": image}
        )
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
    return render(
        request, "studio/library_item.html", {"kind": library_kind, "kinds": KINDS.values(), "pane": pane, "item": item}
    )
