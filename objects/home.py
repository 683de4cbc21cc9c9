"""What Objects adds to the home page (dashboard/frame/home.py): the records
the person edited lately (their `RecordChange` rows, with titles), and the
"New record" quick action, a picker of the workspace's objects.

The workspace's objects (`GET /v1/objects?kind=custom`, one page) are the
one remote read the home page may make, kept a minute per person and
workspace (`HomeViewer.remembered`), and only when needed:

- titles come from the titles cache first (objects/names.py, filled by every
  records page), then from what the person wrote into the record's title
  field (their own changes, read with the object's definition): the objects
  are read only for a title the console does not know, never one read per record;
- the picker shows the objects when they are known; otherwise its choices
  are asked for when the person opens it (`objects:home_picker`), so the
  home page never waits on the service for a menu nobody opened.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.urls import reverse

from dashboard.api import errors
from dashboard.frame.home import HomeAction, HomeChoice, HomeSection, HomeViewer, waited_words
from dashboard.web.converters import RemoteIdConverter
from dashboard.web.reading import as_dict, text
from objects.fields import title_field_key
from objects.models import RecordChange
from objects.names import record_url, title_cache_key
from objects.selectors import object_list

logger = logging.getLogger("objects.home")
_KEY = re.compile(RemoteIdConverter.regex)

RECORDS_SHOWN = 5
# The person's latest changes read to find the records they edited lately.
CHANGES_READ = 50
# Objects offered by the "New record" picker (the first page of custom objects).
OBJECTS_READ = 100
OBJECTS_OFFERED = 6
OBJECTS_REMEMBERED = "objects:custom"


def usable_key(value: Any) -> bool:
    """A key the console's own paths can carry (an odd one is left out of the picker, never a 500)."""
    return isinstance(value, str) and _KEY.fullmatch(value) is not None


@dataclass(frozen=True)
class EditedRecord:
    title: str
    object_name: str  # "Deal"
    action: str  # "Edited", "Created"...
    at: datetime
    ago: str
    url: str


def objects_of(viewer: HomeViewer) -> list[dict] | None:
    """The workspace's custom objects (the home page's one remote read, kept
    a minute), or None when the service could not say (the section still
    stands: titles fall back, the picker becomes a link to the objects list)."""

    def read() -> list[dict]:
        page = object_list(client=viewer.client, kind="custom", cursor=None, limit=OBJECTS_READ)
        return [as_dict(item) for item in page.items if usable_key(as_dict(item).get("key"))]

    try:
        return viewer.remembered(OBJECTS_REMEMBERED, read)
    except errors.ApiError as exc:
        logger.info("Home: no objects list: %s", exc.message)
        return None


def _written_title(changes: list[RecordChange], field_key: str | None) -> str:
    """The latest value the person wrote into the record's title field."""
    if not field_key:
        return ""
    for change in changes:  # newest first
        for entry in change.changes if isinstance(change.changes, list) else []:
            entry = as_dict(entry)
            after = entry.get("after")
            if entry.get("field") == field_key and after not in (None, "") and not isinstance(after, (dict, list)):
                return text(after)
    return ""


def _choices(objects: list[dict]) -> tuple[HomeChoice, ...]:
    return tuple(
        HomeChoice(
            text(item.get("singular_name") or item.get("plural_name") or item["key"]),
            reverse("objects:record_new", args=[item["key"]]),
        )
        for item in objects[:OBJECTS_OFFERED]
    )


def new_record_action(objects: list[dict] | None, *, known: bool = True) -> HomeAction:
    """ "New record": a picker of the objects when they are `known`, else one
    whose choices load when opened. Without any (none yet, or the service did
    not answer), the objects list is where to start."""
    everything = reverse("objects:index")
    if not known:
        return HomeAction(
            "New record", everything, more_label="All objects", choices_url=reverse("objects:home_picker")
        )
    if not objects:
        return HomeAction("New record", everything, more_label="All objects")
    return HomeAction("New record", everything, choices=_choices(objects), more_label="All objects")


def records_you_edited(viewer: HomeViewer) -> HomeSection | None:
    """The records this person changed through the console lately, newest first."""
    changes = list(
        RecordChange.objects.filter(workspace_id=viewer.workspace_id, user=viewer.user).order_by("-created_at", "-pk")[
            :CHANGES_READ
        ]
    )
    by_record: dict[tuple[str, str], list[RecordChange]] = {}
    for change in changes:
        by_record.setdefault((change.object_key, change.record_id), []).append(change)
    shown = list(by_record.items())[:RECORDS_SHOWN]
    keys = {
        ref: title_cache_key(workspace_id=viewer.workspace_id, object_key=ref[0], record_id=ref[1]) for ref, _ in shown
    }
    cached = cache.get_many(list(keys.values()))
    titles = {ref: cached[key] for ref, key in keys.items() if cached.get(key)}
    objects: list[dict] | None = viewer.remembered_only(OBJECTS_REMEMBERED)
    if objects is None and len(titles) < len(shown):
        objects = objects_of(viewer)
    definitions: dict[str, dict[str, Any]] = {item["key"]: item for item in objects or []}
    rows = []
    for (object_key, record_id), record_changes in shown:
        definition = definitions.get(object_key, {})
        object_name = text(definition.get("singular_name")) or object_key
        title = titles.get((object_key, record_id)) or _written_title(record_changes, title_field_key(definition))
        latest = record_changes[0]
        rows.append(
            EditedRecord(
                # Without a title anywhere: what it is and the start of its id, never a blank link.
                title=title or f"{object_name} {record_id[:8]}",
                object_name=object_name,
                action=RecordChange.Action(latest.action).label if latest.action in RecordChange.Action else "Changed",
                at=latest.created_at,
                ago=waited_words(latest.created_at, viewer.now),
                url=record_url(object_key, record_id),
            )
        )
    return HomeSection(
        title="Records you edited",
        template="objects/home_section.html",
        context={"records": rows},
        has_items=bool(rows),
        empty="Records you create or change here appear in this list, with a link back to each.",
        more=("All objects", reverse("objects:index")),
        actions=(new_record_action(objects, known=objects is not None),) if viewer.can_write else (),
    )
