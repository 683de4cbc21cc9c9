"""Saved views of the runs list (issue #35, item 4; agents.models.RunView):
a status tab, an agent (and one of its threads) and a search, under a name,
private or shared with the workspace, and one default per person and
workspace that the Runs page opens with. Like Objects' saved views
(objects/views/saved_views.py), kept in the console and scoped by the
workspace of the person's working key: another workspace's view, or someone
else's private one, is not found.

What a view keeps is the runs page's own query string, re-read by
`run_view_query` whenever it is saved or opened, so a view can never carry
anything the page would not accept from its address."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django.db.models import Q, QuerySet
from django.db.models.functions import Lower
from django.urls import reverse

from agents.forms import RUN_STATUSES, uuid_or_empty
from agents.models import RunView, RunViewDefault

NAME_MAX_LENGTH = 80
MAX_VIEWS = 100  # per person and workspace: the bar stays short
QUERY_WORDS_MAX = 200  # the search box's own limit
STATUS_VALUES = frozenset(value for value, _ in RUN_STATUSES)


# Sharing publishes the view to the workspace: a write (frame.permissions.write_refusal explains it).
SHARE_NEEDS_WRITE = "Sharing a view with the workspace needs a role that writes: ask a workspace admin for one."


class RunViewRefused(ValueError):
    """A view that was not saved; str() is the reason in words."""


def run_view_query(query: Mapping[str, Any]) -> str:
    """The runs page's query string as a view keeps it: only what the page
    reads (status, agent, thread with an agent, the search), re-checked."""
    kept: list[tuple[str, str]] = []
    status = str(query.get("status") or "")
    if status and status in STATUS_VALUES:
        kept.append(("status", status))
    agent = uuid_or_empty(query.get("agent"))
    if agent:
        kept.append(("agent", agent))
        thread = uuid_or_empty(query.get("thread"))
        if thread:
            kept.append(("thread", thread))
    words = " ".join(str(query.get("q") or "").split())[:QUERY_WORDS_MAX]
    if words:
        kept.append(("q", words))
    return urlencode(kept)


def run_view_address(view: RunView) -> str:
    """The runs page with the view's query, naming the view (so it shows as the one open)."""
    query = "&".join(part for part in (view.query, f"view={view.pk}") if part)
    return f"{reverse('agents:runs')}?{query}"


# --- reads ---------------------------------------------------------------------


def run_views_visible(*, user_id: int | None, workspace_id: str) -> QuerySet[RunView]:
    """This person's views and the workspace's shared ones, by name."""
    if not workspace_id:
        return RunView.objects.none()
    return (
        RunView.objects.filter(workspace_id=workspace_id)
        .filter(Q(owner_id=user_id) | Q(shared=True))
        .select_related("owner")
        .order_by(Lower("name"), "pk")
    )


def run_view_get(*, user_id: int | None, workspace_id: str, pk: int | None) -> RunView | None:
    if pk is None:
        return None
    return run_views_visible(user_id=user_id, workspace_id=workspace_id).filter(pk=pk).first()


def run_view_default(*, user_id: int | None, workspace_id: str) -> RunView | None:
    """The view this person's Runs page opens with here, if they may still see it."""
    if user_id is None:
        return None
    chosen = RunViewDefault.objects.filter(user_id=user_id, workspace_id=workspace_id).select_related("view").first()
    if chosen is None:
        return None
    view = chosen.view
    return view if view.workspace_id == workspace_id and (view.shared or view.owner_id == user_id) else None


# --- writes --------------------------------------------------------------------


def run_view_save(*, user, workspace_id: str, name: str, query: Mapping[str, Any], shared: bool) -> RunView:
    """Save the runs list as it is under a name (the same name replaces this person's view)."""
    name = " ".join((name or "").split())
    if not name:
        raise RunViewRefused("Give the view a name.")
    if len(name) > NAME_MAX_LENGTH:
        raise RunViewRefused(f"A view's name takes at most {NAME_MAX_LENGTH} characters.")
    mine = RunView.objects.filter(owner=user, workspace_id=workspace_id)
    if not mine.filter(name=name).exists() and mine.count() >= MAX_VIEWS:
        raise RunViewRefused(f"You keep {MAX_VIEWS} views of runs here, the most: delete one first.")
    view, _ = RunView.objects.update_or_create(
        owner=user,
        workspace_id=workspace_id,
        name=name,
        defaults={"query": run_view_query(query), "shared": shared},
    )
    return view


def run_view_default_toggle(*, user, workspace_id: str, view: RunView) -> bool:
    """Make `view` the one the Runs page opens with; again: no default. Returns whether it is now the default."""
    current = RunViewDefault.objects.filter(user=user, workspace_id=workspace_id).first()
    if current is not None and current.view_id == view.pk:
        current.delete()
        return False
    RunViewDefault.objects.update_or_create(user=user, workspace_id=workspace_id, defaults={"view": view})
    return True


def run_view_delete(*, view: RunView, user) -> None:
    if view.owner_id != user.pk:
        raise RunViewRefused(f"Only {view.owner.get_username()} can delete the view “{view.name}”.")
    view.delete()
