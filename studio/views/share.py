"""Share links (studio/sharing.py): making one from a document, a board,
a collection's images or the library's selection,
one's list with Revoke, and the public page people without an account open."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.accounts.lockout import client_address
from dashboard.accounts.throttle import throttle_hit
from dashboard.api import ServiceClient
from dashboard.api.paths import api_path
from dashboard.frame.permissions import requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import client_redirect
from dashboard.web.params import database_id
from studio import sharing
from studio.forms import SHARE_READ_ONLY, ShareForm
from studio.library import KINDS, artifact_detail, board_images, images_by_ids
from studio.library_collections import collection_get, collection_items
from studio.models import DocumentVersion, ShareLink
from studio.selection import selection_ids

# The library lists a link can be made from, and what each shares.
SHAREABLE = {"documents": ShareLink.DOCUMENT, "boards": ShareLink.IMAGES}
# The token made by the last POST, shown once on the list (Post/Redirect/Get:
# reloading the list never makes a second link). Kept in the maker's own
# session, never in a URL or a log.
MADE_SESSION_KEY = "studio_share_made"
ROBOTS = "noindex, nofollow, noarchive"


def _read(client: ServiceClient, kind: str, item_id: str) -> tuple[str, dict[str, Any]]:
    """The title and snapshot of what is about to be shared, read from the
    service with the maker's key (a 404 of the service is its error page)."""
    if kind == "documents":
        raw = client.get(api_path(KINDS["documents"].item_path, item_id))
        document = sharing.document_snapshot(raw)
        return document["name"] or "Untitled document", {"document": document}
    detail = artifact_detail(client=client, studio="image", artifact_id=item_id)
    images = sharing.images_snapshot(detail.get("images") or board_images(client=client, board_id=item_id))
    return detail["item"]["name"], {"images": images}


@require_http_methods(["GET", "POST"])
@requires_write(SHARE_READ_ONLY)
def share_new(request: ConsoleRequest, kind: str, item_id: str) -> HttpResponseBase:
    """Make a share link of a document or of a board's images."""
    if kind not in SHAREABLE:
        raise Http404("Only documents and image boards can be shared.")
    form = ShareForm(request.POST or None)
    # `?version=<pk>`: one of the document's kept versions (studio/versions.py),
    # copied from the console's own row; else its current content, read now.
    version = None
    if kind == "documents" and "version" in request.GET:
        version = DocumentVersion.objects.filter(
            pk=database_id(request.GET.get("version")) or 0, workspace_id=request.workspace.id, document_id=item_id
        ).first()
        if version is None:
            raise Http404("This document has no kept version with this number.")
        title = version.name or "Untitled document"
        snapshot = {"document": {"name": title, "content": version.content, "format": version.content_format}}
    else:
        title, snapshot = _read(request.workspace.client, kind, item_id)
    nothing = kind == "boards" and not snapshot["images"]
    if request.method == "POST" and form.is_valid() and not nothing:
        _link, token = sharing.share_create(
            user=request.user,
            workspace_id=request.workspace.id,
            key=request.workspace.key,
            kind=SHAREABLE[kind],
            title=title,
            source_id=item_id,
            snapshot=snapshot,
            days=form.cleaned_data["days"],
            version_pk=version.pk if version is not None else None,
        )
        request.session[MADE_SESSION_KEY] = token
        return client_redirect(request, reverse("studio:shares"))
    context = {
        "form": form,
        "title": title,
        "kind": KINDS[kind],
        "item_id": item_id,
        "version": version,
        "nothing": nothing,
        "image_count": len(snapshot.get("images") or []),
    }
    return render(request, "studio/share_new.html", context)


def _images_chosen(request: ConsoleRequest) -> tuple[str, list[str], str]:
    """The title, image ids and way back of a set of images to share: the
    person's selection (`selection`) or a collection's images (`collection`)."""
    if request.GET.get("collection"):
        collection = collection_get(
            workspace_id=request.workspace.id, collection_id=database_id(request.GET.get("collection")) or 0
        )
        ids = [item.item_id for item in collection_items(collection=collection, kind="images")]
        return collection.name, ids[: sharing.MAX_IMAGES], reverse("studio:collection", args=[collection.pk])
    ids = selection_ids(session=request.session, workspace_id=request.workspace.id)
    chosen = ngettext("%(count)s selected image", "%(count)s selected images", len(ids)) % {"count": len(ids)}
    return chosen, ids, reverse("studio:selection")


@require_http_methods(["GET", "POST"])
@requires_write(SHARE_READ_ONLY)
def share_images(request: ConsoleRequest) -> HttpResponseBase:
    """Make a share link of the selection's images or a collection's: read
    from the service with the maker's key (only this workspace's are found)."""
    title, ids, back = _images_chosen(request)
    form = ShareForm(request.POST or None)
    images = sharing.images_snapshot(images_by_ids(client=request.workspace.client, image_ids=ids)) if ids else []
    if request.method == "POST" and form.is_valid() and images:
        _link, token = sharing.share_create(
            user=request.user,
            workspace_id=request.workspace.id,
            key=request.workspace.key,
            kind=ShareLink.IMAGES,
            title=title,
            source_id="collection" if request.GET.get("collection") else "selection",
            snapshot={"images": images},
            days=form.cleaned_data["days"],
        )
        request.session[MADE_SESSION_KEY] = token
        return client_redirect(request, reverse("studio:shares"))
    context = {
        "form": form,
        "title": title,
        "kind": KINDS["images"],
        "back": back,
        "nothing": not images,
        "image_count": len(images),
    }
    return render(request, "studio/share_new.html", context)


@require_GET
def shares(request: ConsoleRequest) -> HttpResponse:
    """One's share links in this workspace, the one just made first with its address."""
    token = request.session.pop(MADE_SESSION_KEY, "")
    made = sharing.share_for_token(token) if token else None
    context = {
        "links": sharing.shares_of(user=request.user, workspace_id=request.workspace.id),
        "made": made,
        "made_url": request.build_absolute_uri(reverse("studio:shared", args=[token])) if made else "",
        "now": timezone.now(),
    }
    return render(request, "studio/shares.html", context)


@require_POST
@requires_write(SHARE_READ_ONLY)
def share_revoke(request: ConsoleRequest, pk: int) -> HttpResponseBase:
    link = sharing.share_revoke(user=request.user, workspace_id=request.workspace.id, key=request.workspace.key, pk=pk)
    if link is None:
        raise Http404("No share link of yours with this number.")
    return client_redirect(request, reverse("studio:shares"))


def _public(request: ConsoleRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    response = render(request, "studio/shared.html", context, status=status)
    # Search engines keep neither the page nor its "not found": the header
    # for every crawler, the meta tag (in the template) for those reading HTML.
    response["X-Robots-Tag"] = ROBOTS
    response["Referrer-Policy"] = "no-referrer"  # the token never leaks to an image host or a link's target
    return response


@login_not_required
@never_cache
@require_GET
def shared(request: ConsoleRequest, token: str) -> HttpResponse:
    """The public page of a share link: the snapshot only (no remote call, no
    key, no console chrome). Unknown, revoked and expired are one 404."""
    wait = throttle_hit(
        scope="studio-share",
        ident=client_address(request),
        limit=sharing.OPEN_LIMIT,
        window_seconds=sharing.OPEN_WINDOW_SECONDS,
    )
    if wait is not None:
        response = _public(request, {"state": "busy", "wait": wait}, status=429)
        response["Retry-After"] = str(wait)
        return response
    link = sharing.share_for_token(token)
    if link is None:
        return _public(request, {"state": "gone"}, status=404)
    return _public(request, {"state": "open", "link": link, **sharing.shared_page(link)})
