"""The gallery of an object's records: a card per record with the picture of
one image (or web address) field and the record's title, a page at a time.
Whether a picture may be shown is the console's image policy's call
(dashboard/frame/images.py, in the template): an address the browser would
refuse shows the placeholder naming its host, never a broken image."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.web.reading import as_dict, text
from objects import selectors
from objects.fields import FieldDef, is_web_address, title_field_key
from objects.schema import FieldType

CARDS_PER_PAGE = 24
PICTURE_TYPES = (FieldType.IMAGE, FieldType.URL)


def picture_fields(fields: list[FieldDef]) -> list[FieldDef]:
    """Image fields first, then web addresses (which may point at a picture)."""
    return sorted((f for f in fields if f.type in PICTURE_TYPES), key=lambda f: f.type != FieldType.IMAGE)


@dataclass(frozen=True)
class GalleryCard:
    id: str
    title: str
    picture: str  # a web address, or "" (no picture)


@dataclass(frozen=True)
class GalleryPage:
    cards: list[GalleryCard]
    next_cursor: str


def gallery_page(
    *, client, object_key: str, definition: dict, by: FieldDef, filters: dict, search: str, cursor: str | None
) -> GalleryPage:
    """One page of cards, the most recently updated first (one remote call)."""
    page = selectors.record_list(
        client=client,
        object_key=object_key,
        filters=filters,
        search=search or None,
        sort="-updated_at",
        cursor=cursor,
        limit=CARDS_PER_PAGE,
    )
    title_key = title_field_key(definition)
    cards = []
    for item in page.items:
        record = as_dict(item)
        values = as_dict(record.get("values"))
        title = values.get(title_key) if title_key else None
        picture = values.get(by.key)
        cards.append(
            GalleryCard(
                id=text(record.get("id")),
                title=text(title) if title not in (None, "") else "Untitled",
                picture=str(picture).strip() if is_web_address(picture) else "",
            )
        )
    return GalleryPage(cards=cards, next_cursor=page.next_cursor or "")
