"""Agent insights: every agent's runs in charts (agents:insights) and one
agent's (agents:agent_insights, also a section of the agent page).

Read-only for every role, and no remote call: the numbers are the facts a
worker keeps (agents/services.py `insights_refresh`). Opening the page asks
for a refresh when they are older than the interval; the page says how old
they are, and the next look shows the new ones (no poll: charts that move
while someone reads them help nobody)."""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from agents.pages import insights_context
from dashboard.frame.workspace import ConsoleRequest
from dashboard.web.htmx import render_region


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
