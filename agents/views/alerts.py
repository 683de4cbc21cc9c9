"""Alert rules on aggregates, set by Administrators (agents/alerts.py): the
rules of the workspace with their state, one rule's page (edit it, its
breaches and recoveries), removal. The console's own rows only: no page
here calls the service (the agents are named as the console last read them)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST

from agents import alerts
from agents.forms import AlertRuleForm
from agents.models import AlertEvent, AlertRule, InsightsRefresh
from agents.queue import stored_agent_names
from dashboard.frame.permissions import requires_permission
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import MANAGE_PEOPLE

NOT_AN_ADMINISTRATOR = "Only Administrators set alert rules. Ask one to change them."
HISTORY_SHOWN = 50


def _agents(workspace_id: str) -> list[tuple[str, str]]:
    # As the inbox refresh and the insights worker last read them (two queries, no remote call).
    known = dict(
        InsightsRefresh.objects.filter(workspace_id=workspace_id).values_list("agent_names", flat=True).first() or {}
    )
    known.update({agent_id: name for agent_id, name in stored_agent_names(workspace_id=workspace_id).items() if name})
    return sorted(
        ((str(agent_id), str(name or agent_id)) for agent_id, name in known.items()), key=lambda p: p[1].lower()
    )


def _agent_name(agents: list[tuple[str, str]], agent_id: str, rule: AlertRule | None = None) -> str:
    if rule is not None and rule.agent_id == agent_id and agent_id not in dict(agents):
        return rule.agent_name
    return dict(agents).get(agent_id, agent_id)


def _with_rule_agent(agents: list[tuple[str, str]], rule: AlertRule) -> list[tuple[str, str]]:
    """A rule's own agent stays choosable when the console no longer knows its name."""
    if rule.agent_id and rule.agent_id not in dict(agents):
        return [*agents, (rule.agent_id, rule.agent_name or rule.agent_id)]
    return agents


def _rule(request: ConsoleRequest, rule_id: int) -> AlertRule:
    rule = AlertRule.objects.filter(workspace_id=request.workspace.id, pk=rule_id).first()
    if rule is None:
        raise Http404("No such alert rule in this workspace.")
    return rule


@require_http_methods(["GET", "POST"])
@requires_permission(MANAGE_PEOPLE, NOT_AN_ADMINISTRATOR)
def alert_rules(request: ConsoleRequest) -> HttpResponseBase:
    workspace_id = request.workspace.id
    agents = _agents(workspace_id)
    form = AlertRuleForm(request.POST or None, agents=agents)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        rule = alerts.rule_save(
            workspace_id=workspace_id,
            key=request.workspace.require_key(),
            user=request.user,
            data=data,
            agent_name=_agent_name(agents, data["agent_id"]),
        )
        messages.success(request, f"The alert is saved: {alerts.rule_words(rule)}.")
        return redirect("agents:alerts")
    rules = list(AlertRule.objects.filter(workspace_id=workspace_id))
    context = {
        "form": form,
        "workspace_zone": request.workspace.zone,
        "rules": [(rule, alerts.rule_words(rule), alerts.value_words(rule.measure, rule.last_value)) for rule in rules],
    }
    return render(request, "agents/alerts.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@requires_permission(MANAGE_PEOPLE, NOT_AN_ADMINISTRATOR)
def alert_rule(request: ConsoleRequest, rule_id: int) -> HttpResponseBase:
    rule = _rule(request, rule_id)
    agents = _with_rule_agent(_agents(request.workspace.id), rule)
    initial = {
        "agent_id": rule.agent_id,
        "measure": rule.measure,
        "threshold": rule.threshold,
        "window_hours": rule.window_hours,
        "min_runs": rule.min_runs,
    }
    form = AlertRuleForm(request.POST or None, agents=agents, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        alerts.rule_save(
            workspace_id=request.workspace.id,
            key=request.workspace.require_key(),
            user=request.user,
            data=data,
            agent_name=_agent_name(agents, data["agent_id"], rule),
            rule=rule,
        )
        messages.success(request, f"The alert is changed: {alerts.rule_words(rule)}.")
        return redirect("agents:alert", rule_id=rule.pk)
    context = {
        "form": form,
        "workspace_zone": request.workspace.zone,
        "rule": rule,
        "words": alerts.rule_words(rule),
        "value": alerts.value_words(rule.measure, rule.last_value),
        "history": list(AlertEvent.objects.filter(rule=rule)[:HISTORY_SHOWN]),
    }
    return render(request, "agents/alert.html", context, status=400 if form.errors else 200)


@require_POST
@requires_permission(MANAGE_PEOPLE, NOT_AN_ADMINISTRATOR)
def alert_rule_delete(request: ConsoleRequest, rule_id: int) -> HttpResponseBase:
    removed = alerts.rule_delete(
        workspace_id=request.workspace.id, key=request.workspace.require_key(), user=request.user, rule_id=rule_id
    )
    if removed:
        messages.success(request, gettext("The alert rule is removed, with its history."))
    else:
        messages.info(request, gettext("That alert rule was removed already."))
    return redirect("agents:alerts")
