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

from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.http import QueryDict
from django.urls import reverse

from dashboard.api import errors
from dashboard.web.params import database_id
from dashboard.web.reading import as_dict
from objects import selectors
from objects.counts import record_count_start
from objects.fields import cell, field_defs, format_datetime
from objects.history import UNDOABLE, history_rows
from objects.links import Link, links_by_relation
from objects.models import SavedView
from objects.names import record_titles, record_url, title_of
from objects.table import RecordsTable, TableState, build_table, list_query

if TYPE_CHECKING:
    from datetime import tzinfo

    from django.contrib.auth.base_user import AbstractBaseUser

    from dashboard.frame.workspace import Workspace
    from objects.edits import Conflict

# What a read-only member is told by every write address of the area (`requires_write`).
READ_ONLY = "Records and objects can be changed only by a member who may write: ask a workspace admin for such a role."
# A saved view shared with the workspace is published to everyone: a write.
SHARE_NEEDS_WRITE = "Sharing a view with the workspace needs a role that writes: ask a workspace admin for one."

VIEW_NONE = "all"  # `?view=all`: the whole table, even for a person with a default view
NO_TITLE = "Untitled"


def object_definition(*, workspace: Workspace, object_key: str) -> dict:
    """The object and its fields, from the per-workspace cache."""
    return selectors.object_definition_get(client=workspace.client, workspace_id=workspace.id, object_key=object_key)


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


def records_table(*, workspace: Workspace, user: AbstractBaseUser, object_key: str, query: QueryDict) -> RecordsTable:
    """The records table for a query: one page of records (one remote call
    when the service answers the whole filter, else up to the page budget:
    `selectors.record_page`; the definition besides, cached), the open saved
    view, the columns shown."""
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    state = TableState.from_query(query, fields)
    plan = state.plan(fields, zone=workspace.zone)
    page = selectors.record_page(
        client=workspace.client,
        object_key=object_key,
        plan=plan,
        sort=state.sort,
        cursor=state.pager.remote_cursor,
        limit=state.limit,
    )
    view = saved_view_open(workspace=workspace, user=user, object_key=object_key, query=query)
    # Read once: it holds both this person's hidden columns and their default view.
    preference = selectors.column_preference(user=user, workspace_id=workspace.id, object_key=object_key)
    own = list(preference.hidden_fields) if preference else []
    table = build_table(
        object_key=object_key,
        definition=definition,
        fields=fields,
        records=page.items,
        next_cursor=page.next_cursor,
        state=state,
        hidden_fields=list(view.hidden_fields) if view is not None else own,
        filter_problems=plan.problems,
        zone=workspace.zone,
        editable=workspace.can_write and definition.get("kind") != "system",
    )
    table.read = page
    table.filter_summary = state.filter.summary(fields)
    if table.total is None:
        # The service's lists carry no total: counted in the background, polled.
        table.count = record_count_start(workspace=workspace, object_key=object_key, record_filter=state.filter)
    table.view = view
    table.views = selectors.saved_views(user=user, workspace_id=workspace.id, object_key=object_key)
    table.default_view_id = preference.default_view_id if preference else None
    return table


def default_view_address(*, workspace: Workspace, user: AbstractBaseUser, object_key: str) -> str | None:
    """Where a bare records address goes: this person's default view, if any
    (and still theirs or shared)."""
    preference = selectors.column_preference(user=user, workspace_id=workspace.id, object_key=object_key)
    view = preference.default_view if preference and preference.default_view_id else None
    if view is None or not (view.owner_id == user.pk or view.shared):
        return None
    return view_address(view)


def view_address(view: SavedView) -> str:
    records_url = reverse("objects:records", args=[view.object_key])
    return f"{records_url}?{view.query + '&' if view.query else ''}{urlencode({'view': view.pk})}"


def record_title(definition: dict, record: dict | None) -> str:
    """How a page names a record: its title (objects/names.py), else "Untitled"."""
    return title_of(as_dict(record), definition) or NO_TITLE


def list_carried(raw: str, definition: dict) -> str:
    """The records table's query a record page came from (`?list=`), checked."""
    return list_query(raw, field_defs(definition)) if raw else ""


def conflict_rows(conflicts: list[Conflict], *, zone: tzinfo) -> list[dict[str, Any]]:
    """Each conflict with its three values as cells (what was shown, theirs now, mine)."""
    return [
        {
            "conflict": c,
            "shown": cell(c.field, c.shown, zone=zone),
            "theirs": cell(c.field, c.theirs, zone=zone),
            "mine": cell(c.field, c.mine, zone=zone),
        }
        for c in conflicts
    ]


def record_page_context(*, workspace: Workspace, object_key: str, record_id: str, list_raw: str) -> dict[str, Any]:
    """The record page: its values, its relationships panel (other records by
    their titles) and its history; `list_raw` is the `?list=` it came with."""
    definition = object_definition(workspace=workspace, object_key=object_key)
    fields = field_defs(definition)
    record = None
    try:
        record = selectors.record_get(client=workspace.client, object_key=object_key, record_id=record_id)
    except errors.NotFoundError:
        # Records of built-in objects belong to their own feature; their links
        # are still listed here.
        if definition.get("kind") != "system":
            raise
    values = as_dict(as_dict(record).get("values"))
    links = selectors.relationship_list(
        client=workspace.client, object_key=object_key, record_id=record_id, workspace_id=workspace.id
    )
    link_groups = links_by_relation(links, object_key=object_key, record_id=record_id)
    _name_links(workspace=workspace, link_groups=link_groups)
    zone = workspace.zone
    history = selectors.record_history(workspace_id=workspace.id, object_key=object_key, record_id=record_id)
    return {
        "definition": definition,
        "object_key": object_key,
        "record_id": record_id,
        "record": record,
        "record_title": record_title(definition, record),
        "values": [(f, cell(f, values.get(f.key), zone=zone)) for f in fields],
        "created_at": format_datetime(record["created_at"], zone=zone) if record and record.get("created_at") else "",
        "updated_at": format_datetime(record["updated_at"], zone=zone) if record and record.get("updated_at") else "",
        "link_groups": link_groups,
        "list_query": list_carried(list_raw, definition),
        "history": history_rows(history, fields=fields, zone=zone),
        # Only the latest change can be undone, and only once.
        "undoable": history[0] if history and history[0].action in UNDOABLE and not history[0].undone_at else None,
    }


def _name_links(*, workspace: Workspace, link_groups: list[tuple[str, list[Link]]]) -> None:
    """Give every link the other record's title (objects/names.py) and its address."""
    every = [link for _key, group in link_groups for link in group if link.record_id]
    titles = record_titles(
        client=workspace.client,
        workspace_id=workspace.id,
        refs=[(link.object_key, link.record_id) for link in every if not link.title],
        definition_of=lambda key: object_definition(workspace=workspace, object_key=key),
    )
    for link in every:
        link.title = link.title or titles.get((link.object_key, link.record_id), "")
        link.url = record_url(link.object_key, link.record_id)
