"""Alerts on aggregates (issue #35, item 5): an Administrator's rule per
agent or per workspace (`AlertRule`), a measure above a threshold, computed
from what the console already stores, never the service:

- failure rate, p95 duration and cost: the run facts the insights worker
  keeps (`RunFact`; a workspace with such a rule is refreshed on beat like
  one someone looks at, agents/services.py `insights_workspaces_due`);
- approvals waiting or overdue: the approvals queue's kept rows (the inbox
  refresh's `WaitingItem`s) and the deadlines (agents/deadlines.py);
- stored keys refused: the keys the service answered 401 to (`ApiKey.refused_at`).

`alerts_evaluate` (the beat task `agents.alerts_evaluate`, no key) reads
those rows once per workspace, whatever its number of rules, and moves a
rule whose verdict changed by a conditional UPDATE of its state: the worker
whose UPDATE moved it records the `AlertEvent` and tells it, in the same
transaction, so a breach is told once and its recovery once, however many
workers evaluate at once and however often. Told through the existing
channels: each Administrator of the workspace on theirs (email, their chat
webhooks, push: dashboard/reach `notify`), the workspace's chat webhooks
(Slack, Teams cards, signed JSON: `notify_workspace_hooks`) and its signed
event endpoints (dashboard/events, `alert.breached` / `alert.recovered`).

A verdict needs enough to go on: a rate or a p95 over fewer finished runs
than the rule's `min_runs` is no verdict, and the rule's state stays as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from agents.deadlines import approval_due_at, deadline_overrides
from agents.insights import money, percentile
from agents.models import AlertEvent, AlertRule, RunFact
from agents.queue import pending_stored
from agents.run_reading import RUN_FINAL_STATUSES, duration_words
from dashboard.events.models import EventType
from dashboard.events.services import console_link, event_emit
from dashboard.keys.models import ApiKey
from dashboard.outbox.services import outbox_send
from dashboard.people.roles import MANAGE_PEOPLE
from dashboard.reach.producing import notify, notify_workspace_hooks
from dashboard.reach.selectors import preferences_of, workspace_people

KIND_ALERT = "alert"  # the notifications' kind (dashboard/reach Delivery.kind)
RUN_MEASURES = frozenset(AlertRule.RUN_MEASURES)
WORKSPACE_ONLY = frozenset({AlertRule.KEYS_REFUSED})
COST_HOURS = 24
# A workspace's facts read per evaluation at most (newest first): far more runs than a window holds in practice.
FACTS_READ = 20_000
MEASURE_WORDS = {
    AlertRule.FAILURE_RATE: "Failure rate",
    AlertRule.COST_PER_DAY: "Cost in the last 24 h",
    AlertRule.P95_DURATION: "p95 duration",
    AlertRule.APPROVALS_WAITING: "Approvals waiting",
    AlertRule.APPROVALS_OVERDUE: "Approvals overdue",
    AlertRule.KEYS_REFUSED: "Stored keys refused",
}


# --- words (pure) ------------------------------------------------------------------------


def value_words(measure: str, value: float | None) -> str:
    if value is None:
        return "not enough runs to say"
    if measure == AlertRule.FAILURE_RATE:
        return f"{value:.0f}%" if value == int(value) else f"{value:.1f}%"
    if measure == AlertRule.COST_PER_DAY:
        return money(value)
    if measure == AlertRule.P95_DURATION:
        return duration_words(value)
    return f"{value:g}"


def rule_words(rule: AlertRule) -> str:
    """ "Failure rate of Lead qualifier over 24 h above 20%"."""
    whose = f"of {rule.agent_name or rule.agent_id}" if rule.agent_id else "of the workspace"
    window = f" over {rule.window_hours} h" if rule.measure in (AlertRule.FAILURE_RATE, AlertRule.P95_DURATION) else ""
    return f"{MEASURE_WORDS.get(rule.measure, rule.measure)} {whose}{window} above {value_words(rule.measure, rule.threshold)}"


# --- the aggregates of one workspace (read once per evaluation) ----------------------------


@dataclass(frozen=True)
class RunRow:
    agent_id: str
    started_at: datetime
    ended_at: datetime | None
    status: str
    cost_usd: float | None


@dataclass
class Aggregates:
    """What one workspace's rules are measured on: a few queries, however many rules."""

    now: datetime
    runs: list[RunRow] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)
    overrides: dict[tuple[str, str], int] = field(default_factory=dict)
    keys_refused: int = 0


def aggregates_read(*, workspace_id: str, rules: Iterable[AlertRule], now: datetime) -> Aggregates:
    rules = list(rules)
    measures = {rule.measure for rule in rules}
    read = Aggregates(now=now)
    if measures & RUN_MEASURES:
        hours = max([COST_HOURS, *(rule.window_hours for rule in rules if rule.measure in RUN_MEASURES)])
        rows = (
            RunFact.objects.filter(workspace_id=workspace_id, started_at__gte=now - timedelta(hours=hours))
            .order_by("-started_at")
            .values_list("agent_id", "started_at", "ended_at", "status", "cost_usd")[:FACTS_READ]
        )
        read.runs = [RunRow(*row) for row in rows]
    if measures & {AlertRule.APPROVALS_WAITING, AlertRule.APPROVALS_OVERDUE}:
        read.pending = [approval for _, approval in pending_stored(workspace_id=workspace_id)]
        if AlertRule.APPROVALS_OVERDUE in measures:
            read.overrides = deadline_overrides(workspace_id=workspace_id)
    if AlertRule.KEYS_REFUSED in measures:
        read.keys_refused = ApiKey.objects.filter(
            workspace_id=workspace_id, refused_at__isnull=False, user__is_active=True
        ).count()
    return read


def measure_value(rule: AlertRule, read: Aggregates) -> float | None:
    """The rule's measure now (None: not enough to go on)."""
    now = read.now

    def runs_since(hours: int) -> list[RunRow]:
        since = now - timedelta(hours=hours)
        return [
            row for row in read.runs if row.started_at >= since and (not rule.agent_id or row.agent_id == rule.agent_id)
        ]

    if rule.measure == AlertRule.COST_PER_DAY:
        return round(sum(row.cost_usd or 0.0 for row in runs_since(COST_HOURS)), 6)
    if rule.measure in (AlertRule.FAILURE_RATE, AlertRule.P95_DURATION):
        finished = [row for row in runs_since(rule.window_hours) if row.status in RUN_FINAL_STATUSES]
        if rule.measure == AlertRule.FAILURE_RATE:
            if len(finished) < max(1, rule.min_runs):
                return None
            return round(100.0 * sum(1 for row in finished if row.status == "failed") / len(finished), 2)
        seconds = [
            (row.ended_at - row.started_at).total_seconds()
            for row in finished
            if row.ended_at is not None and row.ended_at >= row.started_at
        ]
        return percentile(seconds, 0.95) if len(seconds) >= max(1, rule.min_runs) else None
    if rule.measure in (AlertRule.APPROVALS_WAITING, AlertRule.APPROVALS_OVERDUE):
        pending = [a for a in read.pending if not rule.agent_id or a["agent_id"] == rule.agent_id]
        if rule.measure == AlertRule.APPROVALS_WAITING:
            return float(len(pending))
        overdue = 0
        for approval in pending:
            due = approval_due_at(
                requested_at=approval["requested_at"],
                agent_id=approval["agent_id"],
                risk=approval["risk"],
                overrides=read.overrides,
            )
            overdue += 1 if due is not None and due < now else 0
        return float(overdue)
    if rule.measure == AlertRule.KEYS_REFUSED:
        return float(read.keys_refused)
    return None


def verdict(rule: AlertRule, value: float | None) -> str | None:
    """The state the value puts the rule in (None: no verdict, it stays)."""
    if value is None:
        return None
    return AlertRule.BREACHED if value > rule.threshold else AlertRule.OK


# --- evaluation (the beat task's work) -------------------------------------------------------


def _tell(rule: AlertRule, event: AlertEvent, now: datetime) -> int:
    """The breach or recovery on the existing channels; returns the notification rows made."""
    item_key = f"alert:{rule.pk}:{event.pk}"
    path = reverse("agents:alert", args=[rule.pk])
    title = ("Alert: " if event.kind == AlertEvent.BREACHED else "Recovered: ") + event.words
    made = 0
    for person in workspace_people(rule.workspace_id):
        if person.has_perm(MANAGE_PEOPLE, rule.workspace_id):  # Administrators: the people who set alert rules
            made += notify(
                user=person,
                preference=preferences_of(person),
                workspace_id=rule.workspace_id,
                item_key=item_key,
                kind=KIND_ALERT,
                title=title,
                path=path,
                now=now,
                digest=False,
            )
    made += notify_workspace_hooks(
        workspace_id=rule.workspace_id, item_key=item_key, kind=KIND_ALERT, title=title, path=path, now=now
    )
    event_emit(
        workspace_id=rule.workspace_id,
        type=EventType.ALERT_BREACHED if event.kind == AlertEvent.BREACHED else EventType.ALERT_RECOVERED,
        key=item_key,
        data={
            "rule_id": rule.pk,
            "agent_id": rule.agent_id or None,
            "agent_name": rule.agent_name or None,
            "measure": rule.measure,
            "threshold": rule.threshold,
            "value": event.value,
            "words": event.words,
            "url": console_link(path),
        },
        now=now,
    )
    if made:
        outbox_send(task="reach.deliver_due", args=[])
    return made


def rule_evaluate(rule: AlertRule, read: Aggregates) -> str:
    """One rule against its workspace's aggregates: "breached", "recovered"
    (this call moved it and told it) or "" (no change, or another worker moved it)."""
    now = read.now
    value = measure_value(rule, read)
    state = verdict(rule, value)
    AlertRule.objects.filter(pk=rule.pk).update(last_value=value, evaluated_at=now)
    if state is None or state == rule.state:
        return ""
    with transaction.atomic():
        moved = AlertRule.objects.filter(pk=rule.pk, state=rule.state).update(state=state, state_since=now)
        if not moved:
            return ""  # another worker moved it first, and told it
        kind = AlertEvent.BREACHED if state == AlertRule.BREACHED else AlertEvent.RECOVERED
        words = f"{rule_words(rule)}: now {value_words(rule.measure, value)}"
        event = AlertEvent.objects.create(
            rule=rule, kind=kind, value=value, threshold=rule.threshold, words=words[:300], at=now
        )
        event.notified = _tell(rule, event, now)
        event.save(update_fields=["notified"])
    rule.state = state
    return kind


def alerts_evaluate(*, now: datetime | None = None) -> dict[str, int]:
    """Every rule of every workspace, each workspace's rows read once.
    Returns how many rules breached and recovered in this call."""
    now = now or timezone.now()
    told = {AlertEvent.BREACHED: 0, AlertEvent.RECOVERED: 0}
    by_workspace: dict[str, list[AlertRule]] = {}
    for rule in AlertRule.objects.order_by("workspace_id", "pk"):
        by_workspace.setdefault(rule.workspace_id, []).append(rule)
    for workspace_id, rules in by_workspace.items():
        read = aggregates_read(workspace_id=workspace_id, rules=rules, now=now)
        for rule in rules:
            outcome = rule_evaluate(rule, read)
            if outcome:
                told[outcome] += 1
    return told


# --- rules (Administrators) -----------------------------------------------------------------


def _audit(*, user: Any, key: Any, rule: AlertRule, summary: str) -> None:
    from dashboard.audit.services import audit_console_write

    audit_console_write(
        actor=user,
        workspace_id=rule.workspace_id,
        key=key,
        area="agents",
        action="alert.rule",
        path=reverse("agents:alerts"),
        summary=summary,
        details={"rule_id": rule.pk, "agent_id": rule.agent_id, "measure": rule.measure},
    )


def rule_save(
    *, workspace_id: str, key: Any, user: Any, data: dict[str, Any], agent_name: str, rule: AlertRule | None = None
) -> AlertRule:
    """A rule made, or changed in place (its state stays: the next evaluation
    compares the new threshold, and tells a change once), audited."""
    made = rule is None
    rule = rule or AlertRule(workspace_id=workspace_id)
    rule.agent_id = data["agent_id"] or ""
    rule.agent_name = agent_name[:200] if rule.agent_id else ""
    rule.measure = data["measure"]
    rule.threshold = float(data["threshold"])
    rule.window_hours = data.get("window_hours") or 24
    rule.min_runs = data.get("min_runs") or 1
    rule.set_by = user
    with transaction.atomic():
        rule.save()
        _audit(user=user, key=key, rule=rule, summary=f"{'Made' if made else 'Changed'} the alert: {rule_words(rule)}")
    return rule


def rule_delete(*, workspace_id: str, key: Any, user: Any, rule_id: int) -> bool:
    rule = AlertRule.objects.filter(workspace_id=workspace_id, pk=rule_id).first()
    if rule is None:
        return False
    with transaction.atomic():
        _audit(user=user, key=key, rule=rule, summary=f"Removed the alert: {rule_words(rule)}")
        rule.delete()
    return True
