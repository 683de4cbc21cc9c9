"""Agent insights: every agent's runs in charts (agents:insights) and one
agent's (agents:agent_insights, also a section of the agent page).

Read-only for every role, and no remote call: the numbers are the facts a
worker keeps (agents/services.py `insights_refresh`). Opening the page asks
for a refresh when they are older than the interval; the page says how old
they are. While a refresh is on its way the region polls the console
(agents:insights_poll: 204 while the refresh state is unchanged, the
region with 286 once it is read), so a first visit fills itself in; after
that nothing moves while someone reads it."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from agents.pages import insights_context, insights_version
from dashboard.accounts.middleware import background_request
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import poll_unchanged, render_region, stop_polling


@require_GET
def insights(request: ConsoleRequest) -> HttpResponse:
    context = insights_context(workspace=request.workspace, query=request.GET)
    return render_region(request, "agents/insights.html", "insights", context)


@require_GET
def agent_insights(request: ConsoleRequest, agent_id: str) -> HttpResponse:
    """One agent's insights as a page of its own, or the agent page's section
    (a partial request: the window chosen there swaps the section alone)."""
    context = insights_context(workspace=request.workspace, query=request.GET, agent_id=str(agent_id))
    return render_region(request, "agents/insights.html", "insights", context)


@background_request
@never_cache
@require_GET
def insights_poll(request: ConsoleRequest, agent_id: str | None = None) -> HttpResponse:
    """The insights region while a refresh of its runs is on its way: 204
    while the refresh state it shows is current (one query), else the
    region, with 286 once nothing is on its way (the polling stops). The
    console's database only."""
    workspace_id = request.workspace.id
    unchanged = poll_unchanged(request, lambda: insights_version(workspace_id=workspace_id))
    if unchanged is not None:
        return unchanged
    context = insights_context(
        workspace=request.workspace, query=request.GET, agent_id=str(agent_id) if agent_id else None
    )
    response = render(request, "agents/insights.html#insights", context)
    return stop_polling(response, final=not context["freshness"]["updating"])
