"""The home page: an overview of the person's workspace, its live
"Running now" region, and an Administrator's getting-started checklist
(dashboard/home/getting_started.py), hidden and shown again here. Served from the console's database; the areas'
sections make one remote read at most, kept a minute (dashboard/frame/home.py)."""

from __future__ import annotations

from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from dashboard.accounts.middleware import background_request
from dashboard.frame.areas import home_cards
from dashboard.frame.home import home_viewer
from dashboard.frame.key_gate import works_without_key
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.home import selectors
from dashboard.home.getting_started import getting_started
from dashboard.people import services
from dashboard.people.roles import MANAGE_PEOPLE
from dashboard.web.htmx import is_partial, poll_unchanged, stop_polling


@require_GET
def home(request: ConsoleRequest) -> HttpResponse:
    """What needs the person, what runs now, the areas' sections (their
    recent work and quick actions), then every area as a compact card.
    Without a working key: the prompt to add one and the cards."""
    context: dict = {"cards": home_cards(request.user), "getting_started": getting_started(request.user)}
    # Without a working key (none, or one that no longer decrypts: a refused
    # one never gets here, the workspace middleware answers with the refusal
    # page) the page offers to add a key, and the cards.
    viewer = home_viewer(request)
    if viewer is not None:
        sections = selectors.area_sections(viewer)
        needs = selectors.needs_you(viewer=viewer.inbox_viewer, now=viewer.now)
        context.update(
            {
                "overview": True,
                "needs_you": needs,
                "sections_version": needs.version,
                "home_poll_seconds": selectors.home_poll_seconds(),
                "running": selectors.running_now(user=viewer.user, workspace_id=viewer.workspace_id, now=viewer.now),
                "sections": sections,
                "actions": [action for section in sections for action in section.actions],
                "workspace_zone": viewer.zone,
            }
        )
    return render(request, "dashboard/home.html", context)


@works_without_key
@require_POST
@requires_permission(MANAGE_PEOPLE, "The getting-started checklist is for Administrators.")
def getting_started_toggle(request: ConsoleRequest) -> HttpResponseBase:
    """Hide the checklist (`hide=1`) or show it again (`hide=0`): the
    person's own choice. htmx gets the region, a plain form goes back Home."""
    hidden = request.POST.get("hide") == "1"
    services.person_getting_started_hide(user=request.user, hidden=hidden)
    if not is_partial(request):
        return redirect("home")
    return render(request, "dashboard/home.html#getting_started", {"getting_started": getting_started(request.user)})


@background_request
@never_cache
@require_GET
def needs_you(request: ConsoleRequest) -> HttpResponse:
    """The home page's "What needs you", polled while the page is open (the
    inbox can change at any time): 204 while the version it shows is current
    (two small queries), else the card again. Before the workspace's first
    inbox refresh the card says it is reading the workspace, never "nothing
    waits". The console's database only."""
    workspace_id = request.workspace.working_id or ""
    unchanged = poll_unchanged(
        request, lambda: selectors.needs_you_version(user=request.user, workspace_id=workspace_id)
    )
    if unchanged is not None:
        return unchanged
    viewer = home_viewer(request)
    if viewer is None:
        return HttpResponse(status=204)  # no working key now: the next page says so, the card stays
    state = selectors.needs_you(viewer=viewer.inbox_viewer, now=viewer.now)
    return render(request, "dashboard/home.html#needs_you", {"needs_you": state, "workspace_zone": viewer.zone})


@background_request
@never_cache
@require_GET
def sections(request: ConsoleRequest) -> HttpResponse:
    """The areas' sections, polled while the page is open with the version
    of what they are read from (the inbox's stored items, the person's own
    work: "What needs you"'s version): 204 while it is current, else the
    sections again (their remote read, if any, kept a minute as on the page)."""
    workspace_id = request.workspace.working_id or ""
    unchanged = poll_unchanged(
        request, lambda: selectors.needs_you_version(user=request.user, workspace_id=workspace_id)
    )
    if unchanged is not None:
        return unchanged
    viewer = home_viewer(request)
    if viewer is None:
        return HttpResponse(status=204)  # no working key now: the next page says so
    context = {
        "sections": selectors.area_sections(viewer),
        "sections_version": selectors.needs_you_version(user=viewer.user, workspace_id=viewer.workspace_id),
        "home_poll_seconds": selectors.home_poll_seconds(),
        "workspace_zone": viewer.zone,
    }
    return render(request, "dashboard/home.html#sections", context)


@background_request
@never_cache
@require_GET
def running(request: ConsoleRequest) -> HttpResponse:
    """The home page's "Running now", polled while something runs. The poll
    URL carries the version the page shows: while current, 204 from one
    query and nothing rendered. Otherwise the region again; once nothing
    runs, that render comes with 286, which stops the polling. The
    console's database only: no viewer ever costs a remote call."""
    now = timezone.now()
    unchanged = poll_unchanged(request, lambda: selectors.running_version(user=request.user, now=now))
    if unchanged is not None:
        return unchanged
    workspace = request.workspace
    state = selectors.running_now(user=request.user, workspace_id=workspace.working_id, now=now)
    response = render(request, "dashboard/home.html#running", {"running": state, "workspace_zone": workspace.zone})
    return stop_polling(response, final=not state.rows)
