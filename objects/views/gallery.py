"""The gallery of an object's records by an image (or web address) field:
a page of cards at a time, the pager's links swapping the cards in place."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import render_region
from dashboard.web.pager import CursorPager
from objects import looks
from objects.gallery import gallery_page
from objects.records import look_context


@require_GET
def gallery(request: ConsoleRequest, object_key: str) -> HttpResponse:
    workspace = request.workspace
    context = look_context(
        workspace=workspace, user=request.user, object_key=object_key, query=request.GET, kind=looks.GALLERY
    )
    by, base = context["by"], context["base_pairs"]
    pager = CursorPager.from_query(request.GET)
    page = None
    if by is not None:
        page = gallery_page(
            client=workspace.client,
            object_key=object_key,
            definition=context["definition"],
            by=by,
            filters=context["service_filter"],
            search=context["record_filter"].search,
            cursor=pager.remote_cursor,
        )
    context.update(
        page=page,
        paging=pager.links(base, page.next_cursor if page else None),
        save_query=urlencode(base),
    )
    return render_region(request, "objects/gallery.html", "gallery-cards", context)
