"""The reads behind conditions on a linked record's fields (objects/linked_fields.py):
which linked objects an address names, their fields, and, for a filter
plan, the records linked to the ones where each condition holds.

The contract lists links one record at a time and has no filter by link,
so a linked condition is read from the other end, once per page (never
once per row): the linked object's records where the condition holds
(the service's exact filter when it can say it, else the console's check
on its pages: at most LINKED_PAGES pages of 100), then the links of each
of those (at most LINKED_LOOKUPS reads, cached ones free: the records
table's own links cache). The records at the other end of those links, on
this object, are the ids the condition keeps (`LinkedCheck.ids`). When a
budget runs out, or a read fails, the condition says so in words
(`LinkedCheck.partial`): the records it keeps are then some of those that
hold, never records that do not.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING

from dashboard.api import errors
from dashboard.api.attempts import separate_read_budget
from dashboard.api.messages import meaning_of
from dashboard.web.local_formats import integer
from objects import selectors
from objects.fields import FieldDef, field_defs
from objects.filters import FilterPlan, LinkedCheck, RecordFilter
from objects.linked_fields import LinkedTarget, linked_fields, own_field, parse_linked_key, targets_in_query
from objects.links import link_from

if TYPE_CHECKING:
    from django.http import QueryDict

    from dashboard.api import ServiceClient

# Pages of the linked object read for one condition (100 records each).
LINKED_PAGES = 10
# Link lists of matching linked records read for one condition (uncached ones: one call each).
LINKED_LOOKUPS = 100
# Of the request's read budget (SERVICE_READ_BUDGET), for one link's reads: the page's own read goes on after.
LINKED_SECONDS = 4.0

DefinitionOf = Callable[[str], dict]


def query_linked_fields(query: QueryDict, definition_of: DefinitionOf) -> tuple[list[FieldDef], list[str]]:
    """The linked fields an address's filter names (their objects' definitions
    read through `definition_of`, cached), and a message for each linked
    object that could not be read (its conditions are left out)."""
    found: list[FieldDef] = []
    problems: list[str] = []
    for target in targets_in_query(query):
        fields, problem = target_fields(target, definition_of)
        found.extend(fields)
        if problem:
            problems.append(problem)
    return found, problems


def target_fields(target: LinkedTarget, definition_of: DefinitionOf) -> tuple[list[FieldDef], str]:
    try:
        definition = definition_of(target.object_key)
    except errors.ApiError as exc:
        return (
            [],
            f"{target.label}: the linked object “{target.object_key}” could not be read ({meaning_of(exc).title}).",
        )
    return linked_fields(target, field_defs(definition)), ""


def read_links(
    plan: FilterPlan,
    *,
    client: ServiceClient,
    workspace_id: str,
    object_key: str,
    zone: dt.tzinfo = dt.UTC,
    seconds: float | None = None,
) -> None:
    """Fill each linked condition of `plan` with the ids of this object's
    records it keeps (see the module's note). The conditions on one link
    outside OR groups are read together: one same linked record must hold
    them all ("a company in Retail with fewer than 300 employees"). Remote
    calls: per link read, at most LINKED_PAGES pages and LINKED_LOOKUPS link
    lists, within `seconds` of the request's read budget (a page passes
    LINKED_SECONDS; None: a background count's, which has none), whatever the number of rows the page then checks."""
    reads: list[tuple[LinkedTarget, list[LinkedCheck]]] = []
    together: dict[LinkedTarget, list[LinkedCheck]] = {}
    for check in plan.linked:
        parsed = parse_linked_key(check.key)
        if parsed is None:
            continue
        if check.together:
            if parsed[0] not in together:
                together[parsed[0]] = []
                reads.append((parsed[0], together[parsed[0]]))
            together[parsed[0]].append(check)
        else:
            reads.append((parsed[0], [check]))
    for target, checks in reads:
        with separate_read_budget(seconds) if seconds is not None else nullcontext():
            ids, partial = _read(
                target, checks, client=client, workspace_id=workspace_id, object_key=object_key, zone=zone
            )
        for check in checks:
            check.ids, check.partial = ids, partial


def _read(
    target: LinkedTarget,
    checks: list[LinkedCheck],
    *,
    client: ServiceClient,
    workspace_id: str,
    object_key: str,
    zone: dt.tzinfo,
) -> tuple[frozenset[str], str]:
    """(this object's records linked to a `target` record holding every
    check, what could not be read in words: empty when nothing)."""
    owns = [own_field(check.field) for check in checks]
    conditions = {own.key: replace(check.condition, key=own.key) for own, check in zip(owns, checks, strict=True)}
    sub = RecordFilter(conditions=conditions).plan(owns, zone=zone)
    words = " and ".join(dict.fromkeys(check.field.label for check in checks))
    matched: list[str] = []
    cursor: str | None = None
    more = False
    try:
        for _ in range(LINKED_PAGES):
            page = selectors.record_list(
                client=client,
                object_key=target.object_key,
                filters=sub.remote,
                search=sub.search,
                sort="created_at",
                cursor=cursor,
                limit=selectors.SCAN_PAGE_SIZE,
            )
            matched.extend(str(r.get("id")) for r in page.items if isinstance(r, dict) and sub.matches(r))
            more = bool(page.next_cursor) and page.next_cursor != cursor
            if not more:
                break
            cursor = page.next_cursor
    except errors.ApiError as exc:
        return frozenset(), (
            f"{words}: the linked records could not be read ({meaning_of(exc).title}), so this condition"
            " keeps no record: the result is partial."
        )
    wanted = list(dict.fromkeys(r for r in matched if r))
    looked_up = wanted[:LINKED_LOOKUPS]
    raw, failures = selectors.record_links_many(
        client=client, workspace_id=workspace_id, object_key=target.object_key, record_ids=looked_up
    )
    ids: set[str] = set()
    for linked_id, bodies in raw.items():
        for body in bodies:
            link = link_from(body, object_key=target.object_key, record_id=linked_id)
            if link.relation_key == target.relation_key and link.object_key == object_key and link.record_id:
                ids.add(link.record_id)
    gaps = []
    if more:
        gaps.append(f"only the first {integer(LINKED_PAGES * selectors.SCAN_PAGE_SIZE)} linked records were checked")
    if len(wanted) > len(looked_up):
        gaps.append(
            f"the links of only {integer(len(looked_up))} of the {integer(len(wanted))} matching linked records were read"
        )
    unread = len(looked_up) - len(raw)
    if unread:
        reason = f" ({meaning_of(failures[-1]).title})" if failures else ""
        gaps.append(f"the links of {integer(unread)} matching linked records could not be read{reason}")
    if not gaps:
        return frozenset(ids), ""
    return frozenset(ids), (
        f"{words}: the result is partial: {'; '.join(gaps)}. Records linked only to the others are not"
        " shown; narrow the linked condition to see them all."
    )
