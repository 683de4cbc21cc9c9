"""Collections of the Studio library (issue #21, item 5), kept in the console
(studio.models.LibraryCollection, LibraryCollectionItem).

Shared with the team, not private: a collection belongs to the workspace, so
everyone holding a working key of it sees and edits the same ones (a
campaign's images gathered by one maker are there for the others, as the
library itself is). Favourites (studio/favourites.py) are the personal list.
Every read and write is scoped by the workspace id of the person's working
key (`request.workspace.id`): a collection of another workspace is a 404.

Reads: `collections_list`, `collection_get`, `collection_items`.
Writes: `collection_create`, `collection_rename`, `collection_delete`,
`collection_add`, `collection_remove_item`; a refusal is a
`CollectionRefused` whose message is the words to show.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Count
from django.db.models.functions import Lower
from django.http import Http404

from dashboard.web.local_formats import integer
from studio.models import LibraryCollection, LibraryCollectionItem

MAX_COLLECTIONS = 200  # per workspace: the list stays one page
MAX_COLLECTION_ITEMS = 1000  # per collection: its page stays one page
NAME_MAX_LENGTH = 100


class CollectionRefused(ValueError):
    """A write that was not made; str() is the reason in words."""


@dataclass(frozen=True)
class CollectionEntry:
    """What is added: an item of the library with the words and picture to show."""

    kind: str
    item_id: str
    name: str = ""
    picture: str = ""


def collections_list(*, workspace_id: str) -> list[LibraryCollection]:
    """The workspace's collections by name, each with `item_count`."""
    if not workspace_id:
        return []
    return list(
        LibraryCollection.objects.filter(workspace_id=workspace_id)
        .annotate(item_count=Count("items"))
        .order_by(Lower("name"), "id")[:MAX_COLLECTIONS]
    )


def collection_get(*, workspace_id: str, collection_id: int) -> LibraryCollection:
    """A collection of this workspace; 404 for any other, with no hint it exists."""
    found = (
        LibraryCollection.objects.filter(pk=collection_id, workspace_id=workspace_id).first() if workspace_id else None
    )
    if found is None:
        raise Http404("No such collection.")
    return found


def collection_items(*, collection: LibraryCollection, kind: str = "") -> list[LibraryCollectionItem]:
    items = collection.items.all()
    if kind:
        items = items.filter(kind=kind)
    return list(items[:MAX_COLLECTION_ITEMS])


def _clean_name(name: str) -> str:
    name = " ".join((name or "").split())
    if not name:
        raise CollectionRefused("Give the collection a name.")
    if len(name) > NAME_MAX_LENGTH:
        raise CollectionRefused(
            f"A collection's name can be at most {NAME_MAX_LENGTH} characters; this one has {integer(len(name))}."
        )
    return name


def _name_taken(workspace_id: str, name: str, *, other_than: int | None = None) -> bool:
    same = LibraryCollection.objects.filter(workspace_id=workspace_id, name__iexact=name)
    if other_than is not None:
        same = same.exclude(pk=other_than)
    return same.exists()


def collection_create(*, workspace_id: str, user_id: int, name: str) -> LibraryCollection:
    name = _clean_name(name)
    if LibraryCollection.objects.filter(workspace_id=workspace_id).count() >= MAX_COLLECTIONS:
        raise CollectionRefused(f"This workspace has {MAX_COLLECTIONS} collections already: remove one first.")
    if _name_taken(workspace_id, name):
        raise CollectionRefused(f"There is a collection called “{name}” already.")
    try:
        with transaction.atomic():
            return LibraryCollection.objects.create(workspace_id=workspace_id, name=name, created_by_id=user_id)
    except IntegrityError:  # made meanwhile by a teammate
        raise CollectionRefused(f"There is a collection called “{name}” already.") from None


def collection_rename(*, collection: LibraryCollection, name: str) -> LibraryCollection:
    name = _clean_name(name)
    if _name_taken(collection.workspace_id, name, other_than=collection.pk):
        raise CollectionRefused(f"There is a collection called “{name}” already.")
    collection.name = name
    try:
        with transaction.atomic():
            collection.save(update_fields=["name", "updated_at"])
    except IntegrityError:
        raise CollectionRefused(f"There is a collection called “{name}” already.") from None
    return collection


def collection_delete(*, collection: LibraryCollection) -> None:
    """The collection and its list go; the items themselves stay in the library."""
    collection.delete()


def collection_add(*, collection: LibraryCollection, entries: list[CollectionEntry], user_id: int) -> int:
    """Add items (already there: left as they are); returns how many were new.
    Past MAX_COLLECTION_ITEMS nothing is added and the refusal says so."""
    entries = list({(entry.kind, entry.item_id): entry for entry in entries}.values())
    have = set(collection.items.filter(item_id__in=[entry.item_id for entry in entries]).values_list("kind", "item_id"))
    new = [entry for entry in entries if (entry.kind, entry.item_id) not in have]
    if collection.items.count() + len(new) > MAX_COLLECTION_ITEMS:
        raise CollectionRefused(
            f"A collection holds at most {integer(MAX_COLLECTION_ITEMS)} items; “{collection.name}” has "
            f"{integer(collection.items.count())}. Nothing was added."
        )
    LibraryCollectionItem.objects.bulk_create(
        [
            LibraryCollectionItem(
                collection=collection,
                kind=entry.kind,
                item_id=entry.item_id[:200],
                name=entry.name[:300],
                picture=entry.picture[:2000],
                added_by_id=user_id,
            )
            for entry in new
        ],
        ignore_conflicts=True,  # added meanwhile by a teammate: still once
    )
    collection.save(update_fields=["updated_at"])
    return len(new)


def collection_remove_item(*, collection: LibraryCollection, kind: str, item_id: str) -> bool:
    deleted, _ = collection.items.filter(kind=kind, item_id=item_id).delete()
    return bool(deleted)
