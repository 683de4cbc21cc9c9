"""The inbox ("Needs you"): the page, the header's count poll (with the
person's toasts) and "Read the service again now". None of them calls the
service: what only the service knows is read by the task `inbox.refresh_workspace`."""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib import messages
from django.core.cache import cache
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from dashboard.accounts.middleware import background_request
from dashboard.frame.areas import inbox_sources
from dashboard.frame.workspace import ConsoleRequest
from dashboard.inbox import selectors, services
from dashboard.inbox.sources import KINDS, InboxItem, InboxViewer
from dashboard.reach.selectors import claims_of
from dashboard.web.htmx import is_partial, next_url, poll_unchanged, render_region
from dashboard.web.pager import choice, tabs

# "Read the service again now" sends one refresh per workspace in this many seconds.
REFRESH_ASK_SECONDS = 15


def _every(seconds: float) -> str:
    """ "every minute", "every 5 minutes", "every 10 seconds"."""
    if seconds < 90:
        return "every minute" if round(seconds) == 60 else f"every {round(seconds)} seconds"
    return f"every {round(seconds / 60)} minutes"


def _asked_key(workspace_id: str) -> str:
    # Workspace ids are the service's: hashed, so any id makes a valid cache key.
    return "inbox:refresh-asked:" + hashlib.blake2s(workspace_id.encode(), digest_size=12).hexdigest()


# The header a page's poll carries to say which tracked operations it shows
# (static/js/inbox.js, from `data-on-screen-operations` attributes): the core
# learns ids only, never which area's page it is.
ON_SCREEN_HEADER = "X-On-Screen-Operations"
MAX_ON_SCREEN = 200  # a conversation's shown turns (studio's MAX_TURNS) fit


def on_screen_operations(request: ConsoleRequest) -> frozenset[int]:
    """The operation ids the polling page says it shows; anything else in
    the header is ignored (it only ever hides the person's own toasts)."""
    raw = (request.headers.get(ON_SCREEN_HEADER) or "")[:4000]
    ids = [int(part) for part in raw.replace(",", " ").split() if part.isdigit() and len(part) < 19]
    return frozenset(ids[:MAX_ON_SCREEN])


def viewer_of(request: ConsoleRequest) -> InboxViewer:
    return InboxViewer(user=request.user, workspace_id=request.workspace.id)


def _item_context(request: ConsoleRequest, item: InboxItem) -> dict[str, Any]:
    """What the item's area template needs (its decision form), from its source."""
    for source in inbox_sources():
        if source.name == item.area and source.context is not None:
            return source.context(item, request) or {}
    return {}


@require_GET
def index(request: ConsoleRequest) -> HttpResponse:
    """Everything waiting for a person in this workspace, the longest waiting
    first, filtered by kind and agent. Zero remote calls."""
    kind = choice(request.GET.get("kind"), KINDS, "")
    agent_id = (request.GET.get("agent") or "")[:200]
    mine = request.GET.get("mine") == "1"
    everything = selectors.inbox_items(viewer=viewer_of(request))
    agents = selectors.agent_choices(everything)
    if agent_id not in dict(agents):
        agent_id = ""
    # Who is on each item, for every line at once (one query, whatever the number of items).
    claims = claims_of(workspace_id=request.workspace.id, item_keys=[item.key for item in everything])
    if mine:
        everything = [item for item in everything if item.key in claims and claims[item.key].user_id == request.user.pk]
    shown = selectors.filtered(everything, kind=kind, agent_id=agent_id)
    counts = selectors.kind_counts(selectors.filtered(everything, agent_id=agent_id))
    kept = {"agent": agent_id, "mine": "1" if mine else ""}
    kind_tabs = tabs(
        [("", gettext("Everything (%(count)d)") % {"count": sum(count for _, _, count in counts)})]
        + [(value, f"{label} ({count})") for value, label, count in counts],
        kind,
        {name: value for name, value in kept.items() if value},
        param="kind",
    )
    rows = [{"item": item, "claim": claims.get(item.key), **_item_context(request, item)} for item in shown]
    context = {
        "rows": rows,
        "kind": kind,
        "mine": mine,
        "agent_id": agent_id,
        "agent_choices": agents,
        "tabs": kind_tabs,
        "total": len(everything),
        "refresh": selectors.last_refresh(workspace_id=request.workspace.id),
        "refresh_every": _every(services.refresh_seconds()),
        "workspace_zone": request.workspace.zone,
        "has_workspace": bool(request.workspace.id),
    }
    return render_region(request, "inbox/index.html", "inbox_list", context)


@background_request
@never_cache
@require_GET
def header(request: ConsoleRequest) -> HttpResponse:
    """The header's count, polled by every page. The poll URL carries the
    version it shows: while current, 204 and nothing rendered. Otherwise the
    new count, with the person's news as toasts (each shown once, in one tab).
    Reads the console's database only: no viewer ever costs a remote call."""
    # The version is read without request.workspace (its key query): one statement.
    # Read once: the unchanged answer compares it, a changed one keys its count with it.
    workspace_id, version = selectors.header_stamp(user=request.user)
    # Someone is looking at this workspace: its approvals are read more often meanwhile.
    services.workspace_watched(workspace_id)
    unchanged = poll_unchanged(request, lambda: version)
    if unchanged is not None:
        return unchanged
    state = selectors.header_state(viewer=viewer_of(request), version=version)
    notices = services.notices_claim(user=request.user, on_screen=on_screen_operations(request))
    return render(request, "inbox/header.html#inbox_header", {"inbox": state, "notices": notices, "oob": True})


@require_POST
def refresh(request: ConsoleRequest) -> HttpResponseBase:
    """Ask the worker to read this workspace's approvals and runs again now.
    No write guard: it only reads the service (every role reads), once per
    workspace at a time however many ask."""
    workspace_id = request.workspace.id
    if workspace_id and cache.add(_asked_key(workspace_id), True, timeout=REFRESH_ASK_SECONDS):
        services.refresh_soon(workspace_id)
        messages.info(request, gettext("The console is reading the service again; the inbox shows it in a moment."))
    elif workspace_id:
        # One reading at a time per workspace, however many people ask.
        messages.info(
            request, gettext("The console is already reading the service again; the inbox shows it in a moment.")
        )
    return redirect(reverse("inbox:index"))


@require_POST
def dismiss(request: ConsoleRequest) -> HttpResponseBase:
    """Put a failure or a video request out of this person's inbox. No write
    guard: it is the person's own preference (no remote write, nobody else's
    inbox changes), so every role, a Viewer's included, may. Approvals are not
    dismissable: they leave when someone who may decide decides."""
    key = (request.POST.get("key") or "")[:200]
    workspace_id = request.workspace.id
    item = next((item for item in selectors.inbox_items(viewer=viewer_of(request)) if item.key == key), None)
    if item is not None and item.dismissable:
        services.item_dismiss(user=request.user, workspace_id=workspace_id, key=key)
    if is_partial(request):
        # The item leaves the list; the header count follows on its next poll.
        return HttpResponse("")
    return redirect(next_url(request, reverse("inbox:index")))
