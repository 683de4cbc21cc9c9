"""The page-level reads several Objects pages share: an object's definition,
the saved view a page opened and the columns it hides, the records table,
a record's title, its page (values, links by name, history) and the rows of
a conflict to settle.

The seam between the views and the area: a view parses the request, calls
these with the person's `workspace` (`request.workspace`) and `user`, and
renders; nothing here reads the request. Remote and local reads are
`selectors.py`'s, writes `services.py`'s (a settled edit plan:
`services.record_update_plan`); the rules stay in their pure modules
(`edits.py`, `table.py`, `links.py`, `names.py`, `history.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.http import QueryDict
from django.urls import reverse

from dashboard.api import errors
from dashboard.frame.permissions import write_refusal
from dashboard.web.local_formats import integer
from dashboard.web.params import database_id
from dashboard.web.reading import as_dict
from objects import (
    access,
    access_reads,
    comments,
    computed,
    computed_order,
    link_filters,
    linked_cells,
    looks,
    selectors,
)
from objects.access_reads import UNSEEN_RECORD, HiddenRecord, linked_hidden, person_access, policy_fields, record_read
from objects.calendar import date_fields
from objects.fields import FieldDef, cell, field_defs, format_datetime
from objects.filters import FilterPlan, RecordFilter
from objects.forms import CommentForm
from objects.gallery import picture_fields
from objects.grid_groups import FooterRow
from objects.grouping import summaries_read, summarise, valued_keys
from objects.history import history_rows, undoable_change
from objects.linked_fields import MAX_LINKED_OBJECTS, LinkedTarget
from objects.links import Link, links_by_relation
from objects.models import ColumnPreference, ComputedColumn, RecordTally, SavedView
from objects.names import record_titles, record_url, title_of
from objects.table import RecordsTable, TableState, build_table, list_query
from objects.tallies import records_footers_start, records_total_start, total_text

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

    from dashboard.frame.workspace import Workspace
    from objects.models import RecordComment

# What a read-only member is told by every write address of the area (`requires_write`).
READ_ONLY = "Records and objects can be changed only by a member who may write: ask a workspace admin for such a role."
# A saved view shared with the workspace is published to everyone: a write.
SHARE_NEEDS_WRITE = "Sharing a view with the workspace needs a role that writes: ask a workspace admin for one."
# A comment is published to everyone of the workspace, like a shared view.
COMMENT_NEEDS_WRITE = (
    "A comment is published to everyone of the workspace, so writing one needs a role that writes: "
    "ask a workspace admin for one."
)

VIEW_NONE = "all"  # `?view=all`: the whole table, even for a person with a default view
NO_TITLE = "Untitled"


def object_definition(*, workspace: Workspace, object_key: str) -> dict:
    """The object and the fields this person may see (the object's access
    policy: objects/access.py), from the per-workspace cache. Every page
    shows, filters, sorts and exports by these fields only."""
    definition = selectors.object_definition_get(
        client=workspace.client, workspace_id=workspace.id, object_key=object_key
    )
    return access.definition_shown(definition, person_access(workspace=workspace, object_key=object_key).hidden)


def saved_view_open(
    *, workspace: Workspace, user: AbstractBaseUser, object_key: str, query: QueryDict
) -> SavedView | None:
    """The saved view named by the query's `view` when this person may open it."""
    raw = query.get("view", "")
    pk = database_id(raw) if raw and raw != VIEW_NONE else None
    if pk is None:
        return None
    return selectors.saved_view_get(user=user, workspace_id=workspace.id, object_key=object_key, pk=pk)


def hidden_columns(
    *, workspace: Workspace, user: AbstractBaseUser, object_key: str, view: SavedView | None
) -> list[str]:
    """The columns hidden: the open saved view's, else this person's own choice."""
    if view is not None:
        return list(view.hidden_fields)
    return selectors.column_hidden_fields(user=user, workspace_id=workspace.id, object_key=object_key)


def link_columns_shown(
    *, workspace: Workspace, user: AbstractBaseUser, object_key: str, view: SavedView | None
) -> list[str]:
    """The linked-record columns shown: the open saved view's, else this person's own choice."""
    if view is not None:
        return list(view.link_columns)
    preference = selectors.column_preference(user=user, workspace_id=workspace.id, object_key=object_key)
    return list(preference.link_columns) if preference else []


def filter_linked_fields(*, workspace: Workspace, query: QueryDict) -> tuple[list[FieldDef], list[str]]:
    """The linked records' fields a query's filter names (their objects'
    definitions from the cache), and what could not be read."""
    return link_filters.query_linked_fields(query, lambda key: object_definition(workspace=workspace, object_key=key))


def filter_plan(
    *, workspace: Workspace, object_key: str, record_filter: RecordFilter, fields: list[FieldDef]
) -> FilterPlan:
    """A filter's plan, its conditions on linked records read (once, not per
    row: objects/link_filters.py), as every look and the export apply it;
    narrowed to the records and fields this person may see (objects/access.py),
    the access kept on the filter for a background count of it."""
    person = person_access(workspace=workspace, object_key=object_key)
    record_filter.access = person
    plan = record_filter.plan(fields, zone=workspace.zone)
    if not person.everything:
        access.narrow(plan, person, policy_fields(workspace=workspace, object_key=object_key), zone=workspace.zone)
    if plan.linked:
        link_filters.read_links(
            plan,
            client=workspace.client,
            workspace_id=workspace.id,
            object_key=object_key,
            zone=workspace.zone,
            seconds=link_filters.LINKED_SECONDS,
        )
    return plan


def offered_linked_fields(*, workspace: Workspace, object_key: str, record_filter: RecordFilter) -> list[FieldDef]:
    """The linked records' fields the filter bar offers: those the filter
    names, then those of the objects this object's links were seen to
    reach (objects/selectors.py `relation_targets_in_use`), a few objects at
    most, their definitions from the cache; one that cannot be read is not offered."""
    offered = {f.key: f for f in record_filter.linked}
    seen = selectors.relation_targets_in_use(workspace_id=workspace.id, object_key=object_key)
    for relation_key, other in seen[:MAX_LINKED_OBJECTS]:
        target = LinkedTarget(relation_key=relation_key, object_key=other)
        fields, problem = link_filters.target_fields(
            target, lambda key: object_definition(workspace=workspace, object_key=key)
        )
        if not problem:
            for f in fields:
                offered.setdefault(f.key, f)
    return list(offered.values())


@dataclass(frozen=True)
class RecordsRead:
    """One page of an object's records for a query (the table's search,
    filters, sort, page size and cursor), with what it was read by."""

    definition: dict
    fields: list[FieldDef]
    state: TableState
    plan: FilterPlan
    page: selectors.RecordsPage
    # The object's computed columns (one query), and how far a sort by one read, in words.
    columns: list[ComputedColumn] = field(default_factory=list)
    sort_note: str = ""


def records_read(*, workspace: Workspace, object_key: str, query: QueryDict) -> RecordsRead:
    """The records of a query as the records table reads them (the table and
    the API): the definition (cached), then one page (one remote call when the
    service answers the whole filter, else up to the page budget; sorted or
    filtered by a computed column: objects/computed_order.py)."""
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    linked, problems = filter_linked_fields(workspace=workspace, query=query)
    columns, computed_fields = computed_order.table_columns(
        workspace_id=workspace.id, object_key=object_key, fields=fields
    )
    state = TableState.from_query(query, fields, linked, computed_fields)
    plan = filter_plan(workspace=workspace, object_key=object_key, record_filter=state.filter, fields=fields)
    plan.problems[:0] = problems
    # One page: the service's (or narrowed up to the budget), or sorted and filtered by computed columns.
    read = computed_order.records_page(
        workspace=workspace, object_key=object_key, plan=plan, state=state, columns=columns, fields=fields
    )
    return RecordsRead(definition, fields, state, plan, read.page, columns=columns, sort_note=read.sort_note)


def records_table(*, workspace: Workspace, user: AbstractBaseUser, object_key: str, query: QueryDict) -> RecordsTable:
    """The records table for a query: one page of records (one remote call
    when the service answers the whole filter, else up to the page budget:
    `selectors.record_page`; the definition besides, cached), the open saved
    view, the columns shown."""
    table, view, preference = _records_grid(workspace=workspace, user=user, object_key=object_key, query=query)
    state, records = table.state, table.read.items if table.read else []
    if table.total is None:
        # The service's lists carry no total: counted in the background, polled.
        table.count = records_total_start(workspace=workspace, object_key=object_key, record_filter=state.filter)
    if state.footers and records:
        table.footer, table.footer_count = table_footer(
            workspace=workspace, object_key=object_key, table=table, records=records
        )
    known = selectors.relation_keys_in_use(workspace_id=workspace.id, object_key=object_key)
    table.relation_keys = list(dict.fromkeys([*table.link_columns, *known]))
    table.view = view
    table.views = selectors.saved_views(user=user, workspace_id=workspace.id, object_key=object_key)
    table.default_view_id = preference.default_view_id if preference else None
    return table


def records_slice(
    *, workspace: Workspace, user: AbstractBaseUser, object_key: str, query: QueryDict, at: int
) -> RecordsTable:
    """One slice of a long table's rows from the query's cursor on, as one
    scrolls (static/js/objects_window.js): the rows the table's page would
    show there, with the same columns, and the next slice's address. Reads
    what a page reads for its rows (the definition cached, one page of the
    service, links and computed values of these rows) and nothing of the
    page around them: the totals are the page's background counts."""
    table, _view, _preference = _records_grid(workspace=workspace, user=user, object_key=object_key, query=query)
    table.slice_at = at
    return table


def _records_grid(
    *, workspace: Workspace, user: AbstractBaseUser, object_key: str, query: QueryDict
) -> tuple[RecordsTable, SavedView | None, ColumnPreference | None]:
    """The table's rows and columns for a query, with the saved view open and
    this person's column preference (for what the page adds around them)."""
    read = records_read(workspace=workspace, object_key=object_key, query=query)
    definition, fields, state, plan, page = read.definition, read.fields, read.state, read.plan, read.page
    view = saved_view_open(workspace=workspace, user=user, object_key=object_key, query=query)
    # Read once: it holds both this person's hidden columns and their default view.
    preference = selectors.column_preference(user=user, workspace_id=workspace.id, object_key=object_key)
    chosen = view if view is not None else preference
    link_columns = [k for k in (chosen.link_columns if chosen else []) if isinstance(k, str) and k]
    linked, links_problem = (
        linked_cells.page_links(
            workspace=workspace,
            object_key=object_key,
            records=page.items,
            relation_keys=link_columns,
            definition_of=lambda key: object_definition(workspace=workspace, object_key=key),
        )
        if link_columns and page.items
        else ({}, "")
    )
    checked, computed_read = computed.compute(
        workspace=workspace,
        object_key=object_key,
        records=page.items,
        columns=read.columns,
        fields=fields,
    )
    table = build_table(
        object_key=object_key,
        definition=definition,
        fields=fields,
        records=page.items,
        next_cursor=page.next_cursor,
        state=state,
        hidden_fields=list(chosen.hidden_fields) if chosen else [],
        filter_problems=plan.problems,
        zone=workspace.zone,
        editable=workspace.can_write and definition.get("kind") != "system",
        link_columns=link_columns,
        linked=linked,
        computed=computed.grid_columns(checked),
        computed_cells=computed.grid_cells(checked, computed_read, zone=workspace.zone),
        read_only=person_access(workspace=workspace, object_key=object_key).read_only,
    )
    table.computed_problem = computed_read.problem
    table.read = page
    table.filter_partial = [*plan.partial, *([read.sort_note] if read.sort_note else [])]
    table.filter_summary = state.filter.summary(fields)
    table.links_problem = links_problem
    return table, view, preference


def table_footer(
    *, workspace: Workspace, object_key: str, table: RecordsTable, records: list[dict]
) -> tuple[FooterRow, RecordTally | None]:
    """The table's footer row: over the page's records when they are every
    record of the filter, else over every record, counted in the background
    (the tally of the footers, objects/tallies.py: polled like the total) and
    meanwhile, or when the count stopped, "of the first N"."""
    if table.total is not None and table.state.page_number == 1:
        summaries = table.page_summaries or summarise(records, table.fields, valued=valued_keys(table.state.aggregates))
        return FooterRow(label="Total", summaries=summaries), None
    tally = records_footers_start(workspace=workspace, object_key=object_key, record_filter=table.state.filter)
    return footer_of_count(tally, table=table, records=records), tally


def records_footer_table(
    *, workspace: Workspace, user: AbstractBaseUser, object_key: str, query: QueryDict, count: RecordTally
) -> RecordsTable:
    """The table's columns (no records: the footers' poll reads no page)
    and its footer row as the background count tells it now."""
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    state = TableState.from_query(query, fields)
    view = saved_view_open(workspace=workspace, user=user, object_key=object_key, query=query)
    table = build_table(
        object_key=object_key,
        definition=definition,
        fields=fields,
        records=[],
        next_cursor=None,
        state=state,
        hidden_fields=hidden_columns(workspace=workspace, user=user, object_key=object_key, view=view),
        filter_problems=[],
        zone=workspace.zone,
        editable=workspace.can_write and definition.get("kind") != "system",
        link_columns=link_columns_shown(workspace=workspace, user=user, object_key=object_key, view=view),
        read_only=person_access(workspace=workspace, object_key=object_key).read_only,
    )
    table.footer, table.footer_count = footer_of_count(count, table=table, records=[]), count
    return table


def footer_of_count(tally: RecordTally, *, table: RecordsTable, records: list[dict]) -> FooterRow:
    """The footer row as a background count of every record tells it so far."""
    if tally.status == RecordTally.DONE:
        return FooterRow(label="Total", summaries=summaries_read(tally.groups or {}, table.fields))
    if tally.records_read:  # counting, or stopped after the most pages: what it counted
        label = f"Total of the first {integer(tally.records_read)}"
        return FooterRow(label=label, summaries=summaries_read(tally.groups or {}, table.fields))
    if not records:  # a poll, before the first page was counted, or a count that could not go on
        return FooterRow(label=f"Total: {total_text(tally)}", summaries={})
    shown = len(records)
    summaries = table.page_summaries or summarise(records, table.fields, valued=valued_keys(table.state.aggregates))
    return FooterRow(label=f"Total of the {integer(shown)} shown", summaries=summaries)


def default_view_address(*, workspace: Workspace, user: AbstractBaseUser, object_key: str) -> str | None:
    """Where a bare records address goes: this person's default view, if any
    (and still theirs or shared)."""
    preference = selectors.column_preference(user=user, workspace_id=workspace.id, object_key=object_key)
    view = preference.default_view if preference and preference.default_view_id else None
    if view is None or not (view.owner_id == user.pk or view.shared):
        return None
    return view_address(view)


def view_address(view: SavedView) -> str:
    if view.kind != looks.TABLE:
        return looks.look_address(
            kind=looks.look_kind(view.kind),
            object_key=view.object_key,
            query=view.query,
            settings=view.settings,
            view_pk=view.pk,
        )
    records_url = reverse("objects:records", args=[view.object_key])
    return f"{records_url}?{view.query + '&' if view.query else ''}{urlencode({'view': view.pk})}"


# The looks by one field: the setting that names it and the fields it may be.
LOOK_FIELDS: dict[str, tuple[str, Callable[[list[FieldDef]], list[FieldDef]]]] = {
    looks.CALENDAR: ("date", date_fields),
    looks.GALLERY: ("image", picture_fields),
}


def look_context(
    *,
    workspace: Workspace,
    user: AbstractBaseUser,
    object_key: str,
    query: QueryDict,
    kind: str,
) -> dict[str, Any]:
    """What every way to look (kanban, calendar, gallery, chart) shows alike:
    the object, the table's search and filters it carries (checked, and as
    the service's filter), the switch between looks, the saved view it was
    opened as and what "Save this view" posts (objects/looks.py). For a look
    by one field (LOOK_FIELDS), the fields it can be by (`choices`) and the one
    its setting names, else the first (`by`); `base_pairs` keep filter and choice."""
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    linked, problems = filter_linked_fields(workspace=workspace, query=query)
    # Conditions on formula columns hold here too (computed on each record read); a lookup's do not.
    formulas = computed.counted_specs(workspace_id=workspace.id, object_key=object_key, fields=fields)
    record_filter = RecordFilter.from_query(query, fields, linked, computed.counted_fields(formulas))
    # The same plan as the table's: the service's part sent, the rest checked on each record read.
    plan = filter_plan(workspace=workspace, object_key=object_key, record_filter=record_filter, fields=fields)
    plan.compute_values = computed.formula_values_of(formulas)
    uncounted = computed.uncounted_problem(query, formulas)
    plan.problems[:0] = [*problems, *([uncounted] if uncounted else [])]
    pairs = record_filter.pairs()
    settings = looks.settings_from_query(kind, query)
    setting, choose = LOOK_FIELDS.get(kind, ("", None))
    choices = choose(fields) if choose else []
    by = looks.pick_field(choices, query.get(setting)) if choose else None
    return {
        "choices": choices,
        "by": by,
        "base_pairs": [*pairs, *([(setting, by.key)] if by else [])],
        "heading_suffix": f"by {by.label.lower()}" if by else "",
        "definition": definition,
        "fields": fields,
        "object_key": object_key,
        "plural": definition.get("plural_name") or object_key,
        "record_filter": record_filter,
        "plan": plan,
        "filter_problems": plan.problems,
        "filter_partial": plan.partial,
        "filter_pairs": pairs,
        "filter_query": urlencode(pairs),
        "kind": kind,
        "kind_label": dict(looks.KINDS)[kind],
        "saved_view": saved_view_open(workspace=workspace, user=user, object_key=object_key, query=query),
        "save_query": urlencode([*pairs, *looks.settings_pairs(settings)]),
    }


def record_title(definition: dict, record: dict | None) -> str:
    """How a page names a record: its title (objects/names.py), else "Untitled"."""
    return title_of(as_dict(record), definition) or NO_TITLE


def list_carried(raw: str, definition: dict, *, workspace: Workspace, object_key: str) -> str:
    """The records table's query a record page came from (`?list=`), checked as the table reads it."""
    if not raw:
        return ""
    fields = field_defs(definition)
    linked, _problems = filter_linked_fields(workspace=workspace, query=QueryDict(raw[:4000]))
    _columns, by = computed_order.table_columns(workspace_id=workspace.id, object_key=object_key, fields=fields)
    return list_query(raw, fields, linked, by)


def record_page_context(*, workspace: Workspace, object_key: str, record_id: str, list_raw: str) -> dict[str, Any]:
    """The record page: its values, its relationships panel (other records by
    their titles) and its history; `list_raw` is the `?list=` it came with."""
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    record = None
    try:
        record = record_read(workspace=workspace, object_key=object_key, record_id=record_id)
    except errors.NotFoundError as exc:
        # Records of built-in objects belong to their own feature; their links
        # are still listed here (not a record the policy hides).
        if definition.get("kind") != "system" or isinstance(exc, HiddenRecord):
            raise
    values = as_dict(as_dict(record).get("values"))
    links = selectors.relationship_list(
        client=workspace.client, object_key=object_key, record_id=record_id, workspace_id=workspace.id
    )
    link_groups = links_by_relation(links, object_key=object_key, record_id=record_id)
    _name_links(workspace=workspace, link_groups=link_groups)
    zone = workspace.zone
    changes = selectors.record_history(workspace_id=workspace.id, object_key=object_key, record_id=record_id)
    hidden = person_access(workspace=workspace, object_key=object_key).hidden
    history = access_reads.history_links_seen(workspace, history_rows(changes, fields=fields, zone=zone, hidden=hidden))
    columns = computed.computed_columns(workspace_id=workspace.id, object_key=object_key) if record else []
    checked, computed_read = computed.compute(
        workspace=workspace, object_key=object_key, records=[record] if record else [], columns=columns, fields=fields
    )
    row = computed_read.values.get(str(as_dict(record).get("id") or ""), {})
    return {
        "computed_values": [
            (s.label, computed.computed_cell(s, row.get(s.key), zone=zone), s.problem or s.description) for s in checked
        ],
        "computed_problem": computed_read.problem,
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record": record,
        "record_title": record_title(definition, record),
        "values": [(f, cell(f, values.get(f.key), zone=zone)) for f in fields],
        "created_at": format_datetime(record["created_at"], zone=zone) if record and record.get("created_at") else "",
        "updated_at": format_datetime(record["updated_at"], zone=zone) if record and record.get("updated_at") else "",
        "link_groups": link_groups,
        "list_query": list_carried(list_raw, definition, workspace=workspace, object_key=object_key),
        "history": history,
        # Only the latest change can be undone, and only once.
        "undoable": undoable_change(changes),
    }


def _name_links(*, workspace: Workspace, link_groups: list[tuple[str, list[Link]]]) -> None:
    """Give every link the other record's title and address (objects/names.py), unless its policy hides it."""
    every = [link for _key, group in link_groups for link in group if link.record_id]
    titles = record_titles(
        client=workspace.client,
        workspace_id=workspace.id,
        refs=[(link.object_key, link.record_id) for link in every if not link.title],
        definition_of=lambda key: object_definition(workspace=workspace, object_key=key),
    )
    unseen = linked_hidden(workspace=workspace, refs=[(link.object_key, link.record_id) for link in every])
    for link in every:
        if (link.object_key, link.record_id) in unseen:
            link.title, link.url, link.hidden = str(UNSEEN_RECORD), "", True
            continue
        link.title = link.title or titles.get((link.object_key, link.record_id), "")
        link.url = record_url(link.object_key, link.record_id)


def comments_region(
    *,
    workspace: Workspace,
    user: AbstractBaseUser,
    object_key: str,
    record_id: str,
    form: CommentForm | None = None,
    editing: RecordComment | None = None,
    edit_form: CommentForm | None = None,
    just_posted: int | None = None,
    notice: str = "",
) -> dict[str, Any]:
    """The record page's comments region (objects/comments.py): its comments
    (one query, however many), the watch toggle (one), the form to post, or
    why this person may not."""
    watched, watchers = comments.watching(
        user=user, workspace_id=workspace.id, object_key=object_key, record_id=record_id
    )
    return {
        "object_key": object_key,
        "record_id": record_id,
        "comments": comments.record_comments(
            user=user, workspace_id=workspace.id, object_key=object_key, record_id=record_id
        ),
        "comment_form": form or CommentForm(),
        "comment_refusal": write_refusal(workspace, COMMENT_NEEDS_WRITE),
        "editing": editing,
        "edit_form": edit_form,
        # The comment just posted or saved takes the focus after the swap.
        "just_posted": just_posted,
        # What was just done with nothing left to focus (a deleted comment): said under the heading.
        "notice": notice,
        "watched": watched,
        "watchers": watchers,
    }
