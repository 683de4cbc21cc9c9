"""The gallery of an object's records: a card per record with the picture of
one image (or web address) field and the record's title, a page at a time.
Whether a picture may be shown is the console's image policy's call
(dashboard/frame/images.py, in the template): an address the browser would
refuse shows the placeholder naming its host, never a broken image. The
table's filter plan applies as on the table (objects/selectors.py
record_page): one call when the service answers the whole filter, else its
pages read within OBJECTS_FILTER_PAGE_BUDGET, the records checked."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.web.local_formats import integer
from dashboard.web.reading import as_dict, text
from objects import selectors
from objects.fields import FieldDef, is_web_address, title_field_key
from objects.filters import FilterPlan
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
    # When the console checked the records itself: how far it read, in words.
    read_note: str = ""


def gallery_page(
    *, client, object_key: str, definition: dict, by: FieldDef, plan: FilterPlan, cursor: str | None
) -> GalleryPage:
    """One page of cards, the most recently updated first (one remote call
    when the service answers the whole filter, else up to the page budget)."""
    page = selectors.record_page(
        client=client, object_key=object_key, plan=plan, sort="-updated_at", cursor=cursor, limit=CARDS_PER_PAGE
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
    return GalleryPage(cards=cards, next_cursor=page.next_cursor or "", read_note=_read_note(page))


def _read_note(page: selectors.RecordsPage) -> str:
    if not page.narrowed:
        return ""
    said = f"{integer(page.records_read)} records read ({integer(page.pages_read)} page{'' if page.pages_read == 1 else 's'})"
    if page.budget_spent:
        return f"{said} to find these; refine the filters to see more, or show the next cards."
    return said + "."
