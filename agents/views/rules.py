"""Approval rules, per agent and risk, set by Administrators (agents/quorum.py):
M of N, who may approve, separation of duties, the outcome at the deadline."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST

from agents import quorum, selectors
from agents.forms import ApprovalRuleForm
from agents.inbox import agent_names_known
from agents.models import ApprovalRule
from agents.reading import read_agent_summary
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import MANAGE_PEOPLE
from dashboard.web.params import database_id

NOT_AN_ADMINISTRATOR = "Only Administrators set approval rules. Ask one to change them."
PEOPLE_LISTED = 200


def _agents(request: ConsoleRequest) -> list[tuple[str, str]]:
    # As the inbox refresh last read them; a page with none known reads the list (a GET only).
    known = agent_names_known(workspace_id=request.workspace.id)
    if not known and request.method == "GET":
        page = selectors.agent_list(client=request.workspace.client, status=None, cursor=None, limit=100)
        known = {agent["id"]: agent["name"] for agent in map(read_agent_summary, page.items) if agent["id"]}
    return sorted(((agent_id, name or agent_id) for agent_id, name in known.items()), key=lambda p: p[1].lower())


def _people() -> list[tuple[str, str]]:
    users = get_user_model().objects.filter(is_active=True).order_by("username")[:PEOPLE_LISTED]
    return [(str(user.pk), user.get_full_name() or user.get_username()) for user in users]


@require_http_methods(["GET", "POST"])
@requires_permission(MANAGE_PEOPLE, NOT_AN_ADMINISTRATOR)
def approval_rules(request: ConsoleRequest) -> HttpResponseBase:
    agents = _agents(request)
    form = ApprovalRuleForm(request.POST or None, agents=agents, people=_people())
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        quorum.rule_set(
            workspace_id=request.workspace.id,
            key=request.workspace.require_key(),
            user=request.user,
            agent_name=dict(agents).get(data["agent_id"], ""),
            data=data,
        )
        messages.success(request, gettext("The rule is saved."))
        return redirect("agents:rules")
    rules = list(ApprovalRule.objects.filter(workspace_id=request.workspace.id))
    context = {"form": form, "rules": [(rule, quorum.rule_words(rule)) for rule in rules]}
    return render(request, "agents/rules.html", context, status=400 if form.errors else 200)


@require_POST
@requires_permission(MANAGE_PEOPLE, NOT_AN_ADMINISTRATOR)
def approval_rule_remove(request: ConsoleRequest) -> HttpResponseBase:
    rule_id = database_id(request.POST.get("rule"))
    removed = rule_id is not None and quorum.rule_remove(
        workspace_id=request.workspace.id, key=request.workspace.require_key(), user=request.user, rule_id=rule_id
    )
    if removed:
        messages.success(
            request, gettext("The rule is removed: one approval by any Approver, escalated at the deadline.")
        )
    else:
        messages.info(request, gettext("That rule was removed already."))
    return redirect("agents:rules")
