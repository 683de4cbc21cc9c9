"""The Studio library: what the workspace has made, read from the service.

Six lists (websites, documents, apps, image boards, images, video projects),
each paged with the one cursor pager, and one item page per kind. The same
lists are the composer's artifact picker ("edit with the director"), so
nobody pastes an id. The pane beside a conversation reads its artifact here
too (`artifact_detail`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.utils.translation import gettext, ngettext

from dashboard.api import errors
from dashboard.api.paths import api_path
from dashboard.web.pager import CursorPager
from dashboard.web.reading import as_dict, as_list, number, text, when
from studio.content_apps import AppInfo, picker_kind
from studio.documents import read_document
from studio.preview import screenshot
from studio.reading import read_image, safe_link, usable_id
from studio.words import counted, prose, status_words

PAGE_SIZE = 24
VIDEO_SEARCH_PAGES = 5  # pages of /v1/videos searched for one project (there is no read by id)
IMAGE_LIMIT = 100  # images of one board shown (the first page of `GET /v1/images?board_id=`)
# The list endpoints take only `limit`/`cursor` (and `board_id` for images):
# no search, sort or type. So a search, a sort other than the service's own
# order, or a type reads at most SEARCH_PAGES pages of SEARCH_PAGE_SIZE and
# narrows them in the console, and the page says how many it read (as
# objects/bulk.py's dry run does) instead of claiming it looked everywhere.
SEARCH_PAGES = 5
SEARCH_PAGE_SIZE = 100
MAX_QUERY = 200  # characters of a search kept


@dataclass(frozen=True)
class LibraryKind:
    slug: str
    label: str
    singular: str
    path: str
    studio: str  # the studio that edits it ("" for none)
    item_path: str = ""  # the read by id, when the service has one


KINDS: dict[str, LibraryKind] = {
    kind.slug: kind
    for kind in (
        LibraryKind("websites", "Websites", "website", "/v1/websites", "website", "/v1/websites/{}"),
        LibraryKind("documents", "Documents", "document", "/v1/documents", "document", "/v1/documents/{}"),
        LibraryKind("apps", "Apps", "app", "/v1/apps", "app", "/v1/apps/{}"),
        LibraryKind("boards", "Image boards", "image board", "/v1/images/boards", "image"),
        LibraryKind("images", "Images", "image", "/v1/images", ""),
        LibraryKind("videos", "Video projects", "video project", "/v1/videos", "video"),
    )
}
KIND_OF_STUDIO = {kind.studio: kind for kind in KINDS.values() if kind.studio}


def read_item(raw: Any) -> dict[str, Any]:
    """One library item as a list row shows it."""
    item = as_dict(raw)
    status = text(item.get("status"))
    facts = [
        value
        for value in (
            prose(text(item.get("doc_type"))),
            status_words(status),
            # Counts agree with their number ("1 image", never "1 images").
            counted(number(item.get("image_count")), lambda n: ngettext("%(count)s image", "%(count)s images", n)),
            counted(number(item.get("shot_count")), lambda n: ngettext("%(count)s shot", "%(count)s shots", n)),
            counted(number(item.get("word_count")), lambda n: ngettext("%(count)s word", "%(count)s words", n)),
            gettext("unpublished changes") if item.get("has_unpublished_changes") is True else "",
        )
        if value
    ]
    return {
        "id": usable_id(item.get("id")),
        "name": text(item.get("name") or item.get("title") or item.get("prompt")) or "(untitled)",
        # What a search matches besides the name, and the "type" filter's value.
        "prompt": text(item.get("prompt") or item.get("description")),
        "type": text(item.get("doc_type") or item.get("type")),
        "facts": facts,
        "url": safe_link(item.get("url")),
        "public_url": safe_link(item.get("public_url")),
        "cover": safe_link(item.get("cover_url")),
        "image": read_image(item),
        "updated": when(item.get("updated_at") or item.get("created_at")),
    }


def library_page(*, client, kind: LibraryKind, pager: CursorPager, board_id: str = "") -> tuple[list[dict], str | None]:
    params: dict[str, Any] = {"limit": PAGE_SIZE}
    if pager.remote_cursor:
        params["cursor"] = pager.remote_cursor
    if board_id and kind.slug == "images":
        params["board_id"] = board_id
    page = client.page(kind.path, params)
    return [row for item in page.items if (row := read_item(item))["id"]], page.next_cursor


SORTS = {"newest": "Newest first", "oldest": "Oldest first", "name": "Name A to Z"}


class LibraryFilterForm(forms.Form):
    """The library's search, sort and type filter (a GET form: the address
    carries the search, so it can be bookmarked and the back button works)."""

    q = forms.CharField(label="Search by name or prompt", required=False, max_length=MAX_QUERY, strip=True)
    sort = forms.ChoiceField(label="Sort", required=False, choices=list(SORTS.items()))
    type = forms.CharField(label="Type", required=False, max_length=60, strip=True)

    def __init__(
        self, *args: Any, types: list[str] | None = None, boards: list[dict] | None = None, **kwargs: Any
    ) -> None:
        # Its own ids: the header's palette search is on every page too.
        kwargs.setdefault("auto_id", "library_%s")
        super().__init__(*args, **kwargs)
        if boards is not None:  # images: which board (the contract's own `board_id` parameter)
            self.fields["board"] = forms.ChoiceField(
                label="Board",
                required=False,
                choices=[("", "Every board"), *((board["id"], board["name"]) for board in boards)],
            )
        if types:  # documents: the kinds the service names (deck, proposal, ...)
            self.fields["type"] = forms.ChoiceField(
                label="Type",
                required=False,
                choices=[("", "Any type"), *((value, prose(value)) for value in types)],
            )
        else:
            del self.fields["type"]


DOCUMENT_TYPES = ["deck", "proposal", "resume", "invoice", "one-pager", "report"]  # the contract's document kinds


@dataclass(frozen=True)
class LibraryQuery:
    q: str = ""
    sort: str = "newest"
    type: str = ""

    @property
    def narrows(self) -> bool:
        """Whether the console must read pages itself (the service has no such params)."""
        return bool(self.q or self.type or self.sort != "newest")


@dataclass(frozen=True)
class SearchResult:
    items: list[dict[str, Any]]
    read: int  # items read from the service
    pages: int  # pages read
    more: bool  # the service had more than the console read


def _sort_when(item: dict[str, Any]) -> datetime:
    return item["updated"] or datetime.min.replace(tzinfo=UTC)  # undated last when newest first


def _matches(item: dict[str, Any], query: LibraryQuery) -> bool:
    if query.type and item["type"].lower() != query.type.lower():
        return False
    if not query.q:
        return True
    needle = query.q.casefold()
    image = item.get("image") or {}
    haystack = " ".join((item["name"], item["prompt"], text(image.get("prompt")))).casefold()
    return all(word in haystack for word in needle.split())


def library_search(*, client, kind: LibraryKind, query: LibraryQuery, board_id: str = "") -> SearchResult:
    """Up to SEARCH_PAGES pages of a list, narrowed and sorted by the console."""
    rows: list[dict[str, Any]] = []
    read = pages = 0
    cursor: str | None = None
    while pages < SEARCH_PAGES:
        params: dict[str, Any] = {"limit": SEARCH_PAGE_SIZE}
        if cursor:
            params["cursor"] = cursor
        if board_id and kind.slug == "images":
            params["board_id"] = board_id
        page = client.page(kind.path, params)
        pages += 1
        read += len(page.items)
        rows.extend(row for item in page.items if (row := read_item(item))["id"] and _matches(row, query))
        cursor = page.next_cursor
        if not cursor:
            break
    if query.sort == "name":
        rows.sort(key=lambda row: row["name"].casefold())
    else:
        rows.sort(key=_sort_when, reverse=query.sort != "oldest")
    return SearchResult(items=rows, read=read, pages=pages, more=bool(cursor))


@dataclass(frozen=True)
class ImageAction:
    label: str
    studio: str
    app: str
    query: str  # the app page's prefill: its board and this image in the field that takes it


def image_actions(apps: list[AppInfo], *, board_id: str, image_id: str) -> list[ImageAction]:
    """The image Content Apps that take an image as a source or reference,
    each opened with this board and this image already picked (the app page
    prefills from its address, as "Run again with changes" does from a run)."""
    actions = []
    for app in apps:
        if app.studio != "image" or not app.runnable:
            continue
        properties = as_dict(app.inputs.get("properties"))
        fields = [
            name
            for name, prop in properties.items()
            if picker_kind(app.studio, name, as_dict(prop)) in ("image", "images")
        ]
        if not fields:
            continue
        # The first picker is the source (remove-background's source_asset_id);
        # an app with only references gets the image as its first reference.
        pairs = [("board_id", board_id)] if board_id and "board_id" in properties else []
        pairs.append((fields[0], image_id))
        actions.append(ImageAction(label=app.label, studio=app.studio, app=app.id, query=urlencode(pairs)))
    return actions


def images_by_ids(*, client, image_ids: list[str]) -> list[dict[str, Any]]:
    """The chosen images, in the order they were chosen, found in at most
    SEARCH_PAGES pages of `GET /v1/images` (there is no read by id)."""
    wanted = dict.fromkeys(image_ids)
    found: dict[str, dict[str, Any]] = {}
    cursor: str | None = None
    for _ in range(SEARCH_PAGES):
        page = client.page("/v1/images", {"limit": SEARCH_PAGE_SIZE, **({"cursor": cursor} if cursor else {})})
        for item in page.items:
            image = read_image(item)
            if image and image["id"] in wanted:
                found[image["id"]] = image
        cursor = page.next_cursor
        if not cursor or len(found) == len(wanted):
            break
    return [found[image_id] for image_id in wanted if image_id in found]


def board_images(*, client, board_id: str) -> list[dict[str, Any]]:
    """The finished images of one board (its first page, up to IMAGE_LIMIT)."""
    page = client.page("/v1/images", {"board_id": board_id, "limit": IMAGE_LIMIT})
    return [image for item in page.items if (image := read_image(item))]


def boards_all(*, client, limit: int = 100) -> list[dict[str, Any]]:
    page = client.page("/v1/images/boards", {"limit": limit})
    return [row for item in page.items if (row := read_item(item))["id"]]


def videos_all(*, client, limit: int = 100) -> list[dict[str, Any]]:
    page = client.page("/v1/videos", {"limit": limit})
    return [row for item in page.items if (row := read_item(item))["id"]]


def _find_in_list(*, client, path: str, item_id: str, what: str) -> dict:
    cursor = None
    for _ in range(VIDEO_SEARCH_PAGES):
        page = client.page(path, {"limit": 100, **({"cursor": cursor} if cursor else {})})
        for item in page.items:
            if text(as_dict(item).get("id")) == item_id:
                return as_dict(item)
        cursor = page.next_cursor
        if not cursor:
            break
    raise errors.NotFoundError(f"No {what} with this id in this workspace.", status=404)


def _read_video(raw: dict) -> dict[str, Any]:
    shots = []
    for shot in as_list(raw.get("shots")):
        shot = as_dict(shot)
        shots.append(
            {
                "prompt": text(shot.get("prompt")) or "A shot",
                "seconds": number(shot.get("seconds")),
                "app": text(shot.get("app")),
                "poster": safe_link(shot.get("url")),
            }
        )
    return {"shots": shots, "duration": number(raw.get("duration_seconds")), "title": text(raw.get("title"))}


def artifact_detail(*, client, studio: str, artifact_id: str) -> dict[str, Any]:
    """Everything the pane (and an item page) shows of one artifact, read
    from the service. Raises the transport's ApiError (a 404 for an id that
    is not in this workspace)."""
    kind = KIND_OF_STUDIO.get(studio)
    if kind is None or not artifact_id:
        raise errors.NotFoundError("The console does not know this kind of item.", status=404)
    detail: dict[str, Any] = {"studio": studio, "kind": kind, "id": artifact_id}
    if studio == "image":
        board = _find_in_list(client=client, path=kind.path, item_id=artifact_id, what="image board")
        detail.update(item=read_item(board), images=board_images(client=client, board_id=artifact_id))
        return detail
    if studio == "video":
        project = _find_in_list(client=client, path=kind.path, item_id=artifact_id, what="video project")
        detail.update(item=read_item(project), video=_read_video(project))
        return detail
    raw = as_dict(client.get(api_path(kind.item_path, artifact_id)))
    detail["item"] = read_item(raw)
    if studio == "website":
        build = as_dict(raw.get("build") or raw.get("job"))
        detail["build"] = {
            "status": text(build.get("status")),
            "stage": text(build.get("stage")),
            "error": build.get("error"),
        }
        detail["screenshot"] = screenshot(raw)
        detail["pages"] = [
            {"path": text(as_dict(page).get("path")), "title": text(as_dict(page).get("title") or page)}
            for page in as_list(raw.get("pages"))
        ]
    elif studio == "document":
        detail["document"] = read_document(raw)
    elif studio == "app":
        detail["screens"] = [text(as_dict(s).get("name") or s) for s in as_list(raw.get("screens"))]
        detail["unpublished"] = raw.get("has_unpublished_changes") is True
        detail["screenshot"] = screenshot(raw)
    return detail


def find_image(*, client, image_id: str) -> dict[str, Any]:
    """One image asset (the service has no read by id: its list is searched)."""
    raw = _find_in_list(client=client, path="/v1/images", item_id=image_id, what="image")
    image = read_image(raw)
    if image is None:
        raise errors.NotFoundError("The service has no file for this image.", status=404)
    return image


def finish_pane(pane: dict[str, Any]) -> dict[str, Any]:
    """What the pane's header shows: the service's current word on the item
    when it was read, else what the turn said of it."""
    item = as_dict(pane.get("item"))
    pane["title"] = text(item.get("name")) if item else text(pane.get("name"))
    pane["open_url"] = pane.get("url") or text(item.get("url"))
    pane["public"] = pane.get("public_url") or text(item.get("public_url"))
    pane["facts"] = item.get("facts") or []
    return pane
