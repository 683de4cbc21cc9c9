"""The linked-records column of the records grid: for the rows of one page,
each relation key's linked records as (title, address), read within a
budget (records.py's `records_table` asks; the grid's cells show them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from django.utils.translation import ngettext

from dashboard.api.messages import meaning_of, said_by_service, with_request_id
from objects import selectors
from objects.access_reads import UNSEEN_RECORD, linked_hidden
from objects.links import Link, link_from
from objects.names import record_titles, record_url, title_of

if TYPE_CHECKING:
    from dashboard.frame.workspace import Workspace


# Titles of linked records read per page (besides the cached ones): a page of
# 100 rows may link to many records, and titles are read one at a time.
LINKED_TITLE_LOOKUPS = 50


def page_links(
    *,
    workspace: Workspace,
    object_key: str,
    records: list[dict],
    relation_keys: list[str],
    definition_of: Callable[[str], dict],
) -> tuple[dict[str, dict[str, list[tuple[str, str]]]], str]:
    """The page's rows' linked records per relation key, as (title, address),
    and what went wrong reading them, if anything (the page still stands).
    Remote calls: one per row whose links are not cached (the contract lists
    links one record at a time), then titles not cached, at most
    LINKED_TITLE_LOOKUPS."""
    record_ids = [str(record.get("id") or "") for record in records if isinstance(record, dict)]
    raw, failures = selectors.record_links_many(
        client=workspace.client, workspace_id=workspace.id, object_key=object_key, record_ids=record_ids
    )
    wanted = set(relation_keys)
    by_record: dict[str, list[Link]] = {}
    for record_id, bodies in raw.items():
        seen = [link_from(body, object_key=object_key, record_id=record_id) for body in bodies]
        by_record[record_id] = [link for link in seen if link.relation_key in wanted and link.record_id]
    every = [link for links in by_record.values() for link in links]
    # A record of this very page is named by the page (no read).
    definition = definition_of(object_key)
    titles = {(object_key, str(record.get("id"))): title_of(record, definition) for record in records}
    titles.update(
        record_titles(
            client=workspace.client,
            workspace_id=workspace.id,
            refs=[
                (link.object_key, link.record_id)
                for link in every
                if not link.title and (link.object_key, link.record_id) not in titles
            ],
            definition_of=definition_of,
            max_lookups=LINKED_TITLE_LOOKUPS,
        )
    )
    unseen = linked_hidden(workspace=workspace, refs=[(link.object_key, link.record_id) for link in every])
    linked: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for record_id, named in by_record.items():
        for link in named:
            title = link.title or titles.get((link.object_key, link.record_id), "") or link.label
            ref = (link.object_key, link.record_id)
            shown = (str(UNSEEN_RECORD), "") if ref in unseen else (title, record_url(*ref))
            linked.setdefault(record_id, {}).setdefault(link.relation_key, []).append(shown)
    problem = ""
    if failures:
        exc = failures[-1]
        meaning = meaning_of(exc)
        unread = len(set(record_ids) - set(raw))
        said = said_by_service(exc)
        # The catalogue's words are translated (meaning_of); the service's own (said) are not.
        reason = f"{meaning.title}: {said}" if said else meaning.title
        words = ngettext(
            "Linked records of %(count)s row could not be read: %(reason)s.",
            "Linked records of %(count)s rows could not be read: %(reason)s.",
            unread,
        ) % {"count": unread, "reason": reason}
        problem = with_request_id(f"{words} {meaning.advice}", exc)
    return linked, problem
