"""Deadlines of approvals, per agent and risk, set by Administrators
(agents/deadlines.py): the defaults of the risks, and the overrides."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from agents import deadlines, selectors
from agents.forms import DeadlineForm
from agents.inbox import agent_names_known
from agents.models import ApprovalDeadline
from agents.reading import read_agent_summary
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import MANAGE_PEOPLE

NOT_AN_ADMINISTRATOR = "Only Administrators set approval deadlines. Ask one to change them."


@require_http_methods(["GET", "POST"])
@requires_permission(MANAGE_PEOPLE, NOT_AN_ADMINISTRATOR)
def approval_deadlines(request: ConsoleRequest) -> HttpResponseBase:
    # The agents as the inbox refresh last read them: a post never waits on the
    # service (a deadline is the console's own setting); a page with none known reads the list.
    known = agent_names_known(workspace_id=request.workspace.id)
    if not known and request.method == "GET":
        page = selectors.agent_list(client=request.workspace.client, status=None, cursor=None, limit=100)
        known = {agent["id"]: agent["name"] for agent in map(read_agent_summary, page.items) if agent["id"]}
    agents = sorted(
        ((agent_id, name or agent_id) for agent_id, name in known.items()), key=lambda pair: pair[1].lower()
    )
    form = DeadlineForm(request.POST or None, agents=agents)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        deadlines.deadline_set(
            workspace_id=request.workspace.id,
            agent_id=data["agent_id"],
            agent_name=dict(agents).get(data["agent_id"], ""),
            risk=data["risk"],
            minutes=data["minutes"],
            user=request.user,
        )
        messages.success(request, gettext("The deadline is saved."))
        return redirect("agents:deadlines")
    context = {
        "form": form,
        "defaults": [(risk, deadlines.default_minutes(risk)) for risk in deadlines.RISKS],
        "overrides": ApprovalDeadline.objects.filter(workspace_id=request.workspace.id),
    }
    return render(request, "agents/deadlines.html", context, status=400 if form.errors else 200)
