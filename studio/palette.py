"""What the Studio adds to the command palette (dashboard/palette/sources.py):

- conversations of the workspace (the tracked turns: the console's
  database), by what was asked, the artifact's name or the studio;
- library items by name: the contract's library lists take no name search
  (`limit`/`cursor` only), so the newest page of each of the six lists is
  read once a minute per workspace (cached) and matched here. An item older
  than a list's first page is found on the Library's own pages;
- saved briefs (studio/briefs.py) by name or words: the console's database;
- "New conversation", Briefs and Content Apps for people who may write.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from django.core.cache import cache
from django.urls import NoReverseMatch, reverse
from django.utils.translation import ngettext

from dashboard.palette.sources import PaletteAction, PaletteResult, PaletteSource, actions_source, ranked
from studio.briefs import briefs_visible, studio_words
from studio.library import KINDS, PAGE_SIZE, read_item
from studio.selectors import conversations_recent

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest

KIND_CONVERSATIONS = "Conversations"
KIND_LIBRARY = "Library"
KIND_BRIEFS = "Briefs"
BRIEFS = 50  # the newest changed of the briefs the person sees, matched here
# How many of the latest conversations are matched (the Studio's own list shows as many).
CONVERSATIONS = 50
LIBRARY_CACHE_SECONDS = 60


def conversations_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    candidates = []
    for conversation in conversations_recent(workspace_id=request.workspace.id, limit=CONVERSATIONS):
        op = conversation.latest.op
        name = str(conversation.artifact.get("name") or "") if isinstance(conversation.artifact, dict) else ""
        title = name or op.title or "A conversation"
        studio = conversation.studio.capitalize() or "Studio"
        turns = conversation.turn_count
        subtitle = ngettext(
            "%(studio)s conversation, %(count)s turn, started by %(person)s",
            "%(studio)s conversation, %(count)s turns, started by %(person)s",
            turns,
        ) % {"studio": studio, "count": turns, "person": conversation.started_by}
        url = reverse("studio:turn", args=[op.pk])
        candidates.append((PaletteResult(title, subtitle, url, KIND_CONVERSATIONS), op.title))
    return ranked(query, candidates, limit=limit)


def _library_key(workspace_id: str) -> str:
    return "palette:library:" + hashlib.sha256(workspace_id.encode("utf-8", "surrogatepass")).hexdigest()


def library_cached(*, client, workspace_id: str) -> list[tuple[str, dict]]:
    """(kind slug, item) of the newest page of each library list."""
    key = _library_key(workspace_id)
    items = cache.get(key)
    if items is None:
        items = []
        for kind in KINDS.values():
            page = client.page(kind.path, {"limit": PAGE_SIZE})
            items += [(kind.slug, row) for raw in page.items if (row := read_item(raw))["id"]]
        # Only what the palette shows is kept (the rows carry images, facts...).
        items = [(slug, {"id": row["id"], "name": row["name"], "facts": row["facts"]}) for slug, row in items]
        cache.set(key, items, LIBRARY_CACHE_SECONDS)
    return items


def library_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    workspace = request.workspace
    candidates = []
    for slug, item in library_cached(client=workspace.client, workspace_id=workspace.id):
        kind = KINDS[slug]
        try:
            url = reverse("studio:library_item", args=[slug, item["id"]])
        except NoReverseMatch:
            continue
        subtitle = ", ".join([kind.singular.capitalize(), *item["facts"][:2]])
        candidates.append((PaletteResult(item["name"], subtitle, url, KIND_LIBRARY), kind.label))
    return ranked(query, candidates, limit=limit)


def briefs_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    seen = briefs_visible(workspace_id=request.workspace.id, user_id=request.user.pk)
    candidates = []
    for brief in seen.order_by("-updated_at", "-id")[:BRIEFS]:
        subtitle = f"Brief for {studio_words(brief.studio).lower()}, {'shared' if brief.shared else 'only you'}"
        url = reverse("studio:brief", args=[brief.pk])
        candidates.append((PaletteResult(brief.name, subtitle, url, KIND_BRIEFS), brief.text[:300]))
    return ranked(query, candidates, limit=limit)


PALETTE_SOURCES = (
    actions_source(
        "Studio actions",
        PaletteAction("New conversation", "studio:index", "studio website document app image video turn", writes=True),
        PaletteAction("Content Apps", "studio:apps", "image video generate run app"),
        PaletteAction("Briefs", "studio:briefs", "brief prompt template saved message"),
    ),
    PaletteSource(label="Briefs", search=briefs_found),
    PaletteSource(label="Conversations", search=conversations_found),
    PaletteSource(label="Library items", search=library_found, remote=True),
)
