"""Favourites of the Studio library, kept in the console per person and per
workspace (studio.models.LibraryFavourite). Writes: `favourite_toggle`;
reads: `favourites_list`, `favourite_is`."""

from __future__ import annotations

from studio.models import LibraryFavourite

MAX_FAVOURITES = 1000  # per person and workspace: a favourites page stays one page


def favourite_is(*, user_id: int, workspace_id: str, kind: str, item_id: str) -> bool:
    return LibraryFavourite.objects.filter(
        user_id=user_id, workspace_id=workspace_id, kind=kind, item_id=item_id
    ).exists()


def favourites_list(*, user_id: int, workspace_id: str) -> list[LibraryFavourite]:
    return list(LibraryFavourite.objects.filter(user_id=user_id, workspace_id=workspace_id)[:MAX_FAVOURITES])


def favourite_toggle(
    *, user_id: int, workspace_id: str, kind: str, item_id: str, name: str = "", picture: str = ""
) -> str:
    """Mark or unmark: "added", "removed", or "full" (past MAX_FAVOURITES
    nothing is added, and the caller says so)."""
    mine = LibraryFavourite.objects.filter(user_id=user_id, workspace_id=workspace_id)
    deleted, _ = mine.filter(kind=kind, item_id=item_id).delete()
    if deleted:
        return "removed"
    if mine.count() >= MAX_FAVOURITES:
        return "full"
    LibraryFavourite.objects.get_or_create(
        user_id=user_id,
        workspace_id=workspace_id,
        kind=kind,
        item_id=item_id,
        defaults={"name": name[:300], "picture": picture[:2000]},
    )
    return "added"


def favourites_add(*, user_id: int, workspace_id: str, entries: list[tuple[str, str, str, str]]) -> tuple[int, int]:
    """Mark several items (kind, item id, name, picture) at once, the
    library's selection: none is unmarked. Returns (added, left out because
    the list is full)."""
    mine = LibraryFavourite.objects.filter(user_id=user_id, workspace_id=workspace_id)
    have = set(mine.values_list("kind", "item_id"))
    new = list({(kind, item_id): (kind, item_id, name, picture) for kind, item_id, name, picture in entries}.values())
    new = [entry for entry in new if (entry[0], entry[1]) not in have]
    room = max(0, MAX_FAVOURITES - len(have))
    LibraryFavourite.objects.bulk_create(
        [
            LibraryFavourite(
                user_id=user_id,
                workspace_id=workspace_id,
                kind=kind,
                item_id=item_id,
                name=name[:300],
                picture=picture[:2000],
            )
            for kind, item_id, name, picture in new[:room]
        ],
        ignore_conflicts=True,
    )
    return min(len(new), room), max(0, len(new) - room)
