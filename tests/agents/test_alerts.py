"""Alerts on aggregates (agents/alerts.py): rules evaluated over seeded run
facts at a fixed moment (`now`, the frozen clock) — a breach told once
however often and by however many workers it is evaluated, its recovery
once; told through the real channels (a real SMTP server, a local chat
webhook, a signed event endpoint verified as a receiver verifies it); the
other measures from the console's own rows; the rules page for
Administrators only, its queries flat from 5 to 50 rules, its errors in words."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from standardwebhooks import Webhook

from agents import alerts, tasks
from agents.forms import A_RATE_IS_A_PERCENT, KEYS_ARE_THE_WORKSPACE_S
from agents.models import AlertEvent, AlertRule, RunFact
from agents.services import insights_workspaces_due
from agents.views.alerts import NOT_AN_ADMINISTRATOR
from dashboard.audit.testing import make_administrator, make_approver
from dashboard.celery import app
from dashboard.events import sending as event_sending
from dashboard.events.models import Delivery as EventDelivery
from dashboard.events.services import endpoint_create
from dashboard.inbox.models import WaitingItem
from dashboard.keys.models import ApiKey
from dashboard.keys.testing import stored_api_key
from dashboard.reach.models import Delivery
from dashboard.reach.sending import delivery_step
from dashboard.reach.services import webhook_add
from tests.html import one, select, text_of, texts
from tests.http_receiver import HttpReceiver

pytestmark = pytest.mark.django_db(transaction=True)

WORKSPACE = "ws-alerts"
AGENT = "11111111-1111-4111-8111-111111111111"
OTHER_AGENT = "22222222-2222-4222-8222-222222222222"
# The frozen clock every evaluation here is given (a minute ago: a signed event is checked against real time).
NOW = timezone.now().replace(microsecond=0) - timedelta(minutes=1)


@pytest.fixture(autouse=True)
def channels_settings(settings):
    settings.REACH_WEBHOOK_ALLOW_HTTP = True
    settings.EVENTS_ALLOW_HTTP = True
    settings.EVENTS_ALLOW_PRIVATE_ADDRESSES = True  # the receivers are on 127.0.0.1
    settings.CONSOLE_BASE_URL = "https://console.example.com"


def person(django_user_model, username: str, *, admin: bool = True, workspace_id: str = WORKSPACE):
    user = django_user_model.objects.create_user(
        username=username, password="a long enough passphrase", email=f"{username}@example.com"
    )
    (make_administrator if admin else make_approver)(user)
    stored_api_key(user=user, secret=f"svc_sk_{username}0123456789abcdefghijklmnop", workspace_id=workspace_id)
    return user


@pytest.fixture
def ada(db, django_user_model):
    return person(django_user_model, "ada")


@pytest.fixture
def receiver():
    handle = HttpReceiver(path="/hooks/T000/B000/secret")
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture
def real_smtp(settings, smtp_server):
    handler, port = smtp_server
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    return handler


def runs(count: int, *, status: str, agent: str = AGENT, hours_ago: float = 2, seconds: float = 30, cost=0.1):
    """Run facts as the insights worker keeps them, started `hours_ago` before the frozen clock."""
    start = RunFact.objects.count()
    started = NOW - timedelta(hours=hours_ago)
    RunFact.objects.bulk_create(
        RunFact(
            workspace_id=WORKSPACE,
            run_id=f"run-{start + n}",
            agent_id=agent,
            started_at=started,
            ended_at=started + timedelta(seconds=seconds) if status != "running" else None,
            status=status,
            final=status != "running",
            cost_usd=cost,
            read_at=NOW,
        )
        for n in range(count)
    )


def rule(measure: str, threshold: float, *, agent: str = AGENT, **more) -> AlertRule:
    return AlertRule.objects.create(
        workspace_id=WORKSPACE, agent_id=agent, agent_name="Lead qualifier" if agent else "", measure=measure,
        threshold=threshold, **more,
    )  # fmt: skip


def race(work, *args) -> list:
    """`work(*args)` in two threads at once (two workers): their answers."""
    barrier, answers = threading.Barrier(2), []

    def run():
        try:
            barrier.wait()
            answers.append(work(*args))
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return answers


def evaluate(now: datetime = NOW) -> dict[str, int]:
    return alerts.alerts_evaluate(now=now)


def test_a_breach_is_told_once_and_its_recovery_once_across_two_workers(ada, receiver, real_smtp):
    failing = rule(AlertRule.FAILURE_RATE, 20, window_hours=24, min_runs=5)
    slack = webhook_add(owner=ada, workspace_id=WORKSPACE, kind="slack", label="#ops", url=receiver.url)
    events = HttpReceiver()
    try:
        endpoint, secret = endpoint_create(
            workspace_id=WORKSPACE, by=ada, label="Pager", url=events.url, event_types=["alert.breached"]
        )
        runs(6, status="completed")
        runs(4, status="failed")  # 40% of 10 finished runs: above 20%

        assert sorted(outcome["breached"] for outcome in race(evaluate)) == [0, 1]  # two workers, one breach
        assert evaluate()["breached"] == 0 and evaluate(NOW + timedelta(minutes=5))["breached"] == 0
        (breach,) = AlertEvent.objects.all()
        assert (breach.kind, breach.value, breach.notified) == ("breached", 40.0, 2)
        failing.refresh_from_db()
        assert (failing.state, failing.state_since, failing.last_value) == ("breached", NOW, 40.0)

        # Ada by email (a real SMTP server), the workspace's Slack webhook (a local receiver).
        mail, hook = Delivery.objects.order_by("channel")
        assert (mail.channel, mail.user, hook.channel) == ("email", ada, slack.channel)
        assert mail.item_key == hook.item_key == f"alert:{failing.pk}:{breach.pk}"
        assert delivery_step(delivery_id=mail.pk, now=NOW) == "sent"
        assert delivery_step(delivery_id=hook.pk, now=NOW) == "sent"
        (envelope,) = real_smtp.received
        assert envelope.rcpt_tos == ["ada@example.com"]
        title = "Alert: Failure rate of Lead qualifier over 24 h above 20%: now 40%"
        assert title.encode() in envelope.content.replace(b"\r\n ", b" ")
        (posted,) = receiver.bodies
        assert title in posted["text"]

        # The signed event endpoint: one alert.breached, verified as a receiver verifies it.
        (delivery,) = EventDelivery.objects.all()
        assert event_sending.delivery_send(delivery_id=delivery.pk) == "delivered"
        (call,) = events.calls
        body = Webhook(secret).verify(call.body, call.headers)
        assert (body["type"], body["data"]["rule_id"], body["data"]["value"]) == ("alert.breached", failing.pk, 40.0)
        assert body["data"]["url"] == f"https://console.example.com/agents/alerts/{failing.pk}/"
    finally:
        events.stop()

    runs(20, status="completed")  # 4 failed of 30: 13%, back under 20%
    later = NOW + timedelta(minutes=10)
    assert sorted(outcome["recovered"] for outcome in race(evaluate, later)) == [0, 1]
    assert evaluate(later)["recovered"] == 0
    assert list(AlertEvent.objects.order_by("at", "id").values_list("kind", flat=True)) == ["breached", "recovered"]
    recovered = AlertEvent.objects.get(kind="recovered")
    assert recovered.words == "Failure rate of Lead qualifier over 24 h above 20%: now 13.3%"
    # One more email and one more Slack message: the recovery; the endpoint chose breaches only.
    assert Delivery.objects.filter(item_key=f"alert:{failing.pk}:{recovered.pk}").count() == 2
    assert EventDelivery.objects.count() == 1
    # A workspace with a rule on run facts is kept fresh by the insights worker.
    assert WORKSPACE in insights_workspaces_due(now=NOW)


def test_the_beat_task_takes_no_key_and_evaluates_every_rule(ada):
    assert app.tasks["agents.alerts_evaluate"].name == tasks.alerts_evaluate.name == "agents.alerts_evaluate"
    rule(AlertRule.APPROVALS_WAITING, 0)
    WaitingItem.objects.create(
        workspace_id=WORKSPACE, source="agents", remote_id="approval:ap-1", kind="approval",
        data={"approval": {"id": "ap-1", "agent_id": AGENT, "risk": "send", "status": "pending"}}, refreshed_at=NOW,
    )  # fmt: skip
    assert tasks.alerts_evaluate.run() == {"breached": 1, "recovered": 0}
    assert tasks.alerts_evaluate.run() == {"breached": 0, "recovered": 0}


def test_too_few_finished_runs_is_no_verdict(ada):
    failing = rule(AlertRule.FAILURE_RATE, 20, min_runs=5)
    runs(3, status="failed")
    runs(5, status="running")  # not over: not counted
    assert evaluate() == {"breached": 0, "recovered": 0}
    failing.refresh_from_db()
    assert (failing.state, failing.last_value, failing.evaluated_at) == ("ok", None, NOW)


def test_each_measure_is_computed_from_what_the_console_keeps(ada, django_user_model):
    runs(19, status="completed", seconds=10, cost=0.5)
    runs(1, status="completed", seconds=600, cost=0.5)
    runs(1, status="completed", agent=OTHER_AGENT, cost=4.0)
    runs(2, status="completed", hours_ago=30, cost=100.0)  # outside the last 24 h
    for n, minutes_ago in enumerate((5, 600, 900)):  # the send deadline is 240 min: two overdue
        requested = NOW - timedelta(minutes=minutes_ago)
        WaitingItem.objects.create(
            workspace_id=WORKSPACE, source="agents", remote_id=f"approval:ap-{n}", kind="approval",
            data={"approval": {"id": f"ap-{n}", "agent_id": AGENT, "risk": "send", "status": "pending",
                               "created_at": requested.isoformat()}},
            since=requested, refreshed_at=NOW,
        )  # fmt: skip
    refused = person(django_user_model, "rex")
    ApiKey.objects.filter(user=refused).update(refused_at=NOW)

    expected = {
        rule(AlertRule.COST_PER_DAY, 5).pk: 10.0,  # Lead qualifier's 20 runs in the last 24 h
        rule(AlertRule.COST_PER_DAY, 5, agent="").pk: 14.0,  # the whole workspace's
        rule(AlertRule.P95_DURATION, 60, min_runs=1).pk: 10.0,  # 19 of 20 took 10 s
        rule(AlertRule.APPROVALS_WAITING, 2).pk: 3.0,
        rule(AlertRule.APPROVALS_OVERDUE, 2, agent="").pk: 2.0,
        rule(AlertRule.KEYS_REFUSED, 0, agent="").pk: 1.0,
    }
    every_rule = list(AlertRule.objects.all())
    with CaptureQueriesContext(connection) as reads:
        aggregates = alerts.aggregates_read(workspace_id=WORKSPACE, rules=every_rule, now=NOW)
    assert len(reads) <= 4  # run facts, kept approvals, deadlines, refused keys: however many rules
    assert {r.pk: alerts.measure_value(r, aggregates) for r in every_rule} == expected
    assert evaluate()["breached"] == 4  # both costs above 5, 3 waiting above 2, 1 refused key above 0


def _rules_page(client) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("agents:alerts"))
    assert page.status_code == 200
    return len(queries), len(select(page.content, "table.alert-rules tbody tr"))


def test_the_rules_page_stays_flat_from_5_to_50_rules(client, ada):
    client.force_login(ada)
    for n in range(5):
        rule(AlertRule.APPROVALS_WAITING, n)
    _rules_page(client)  # the session's first page reads what later ones find kept
    few, shown = _rules_page(client)
    assert shown == 5
    for n in range(45):
        rule(AlertRule.COST_PER_DAY, n, agent="")
    many, shown = _rules_page(client)
    assert shown == 50 and many == few


def test_an_administrator_adds_changes_and_removes_a_rule_with_errors_in_words(client, ada):
    client.force_login(ada)
    bad = client.post(
        reverse("agents:alerts"), {"agent_id": "", "measure": "failure_rate", "threshold": "150", "window_hours": "0"}
    )
    assert bad.status_code == 400
    assert texts(bad.content, "#error-summary li") == [
        f"Alert when above: {A_RATE_IS_A_PERCENT}",
        "Window (hours): At least 1 hour.",
        "Fewest finished runs for a verdict: This field is required.",
    ]
    data = {"agent_id": "", "measure": "keys_refused", "threshold": "0", "window_hours": "24", "min_runs": "1"}
    assert client.post(reverse("agents:alerts"), data).status_code == 302
    made = AlertRule.objects.get()
    assert (made.measure, made.agent_id, made.threshold) == ("keys_refused", "", 0.0)
    page = client.get(reverse("agents:alerts"))
    assert texts(page.content, "table.alert-rules tbody td[data-label=Rule]") == [
        "Stored keys refused of the workspace above 0"
    ]

    edit = reverse("agents:alert", args=[made.pk])
    refused = client.post(edit, {**data, "agent_id": AGENT})  # an agent unknown to the console: not a choice
    assert refused.status_code == 400 and select(refused.content, "#error-summary li")
    assert client.post(edit, {**data, "threshold": "2"}).status_code == 302
    made.refresh_from_db()
    assert made.threshold == 2.0
    at = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
    AlertEvent.objects.create(rule=made, kind="breached", value=3, threshold=2, words="Stored keys refused", at=at)
    history = client.get(edit)
    assert [text_of(item).split(":")[0] for item in select(history.content, "ol.alert-history li")] == [
        "Breached 3 Dec 2026, 09"
    ]
    assert client.post(reverse("agents:alert_delete", args=[made.pk])).status_code == 302
    assert not AlertRule.objects.exists() and not AlertEvent.objects.exists()


def test_keys_refused_is_the_workspace_s_not_an_agent_s(client, ada):
    client.force_login(ada)
    WaitingItem.objects.create(
        workspace_id=WORKSPACE, source="agents", remote_id="agent-names", kind="agent-names",
        data={"names": {AGENT: "Lead qualifier"}}, refreshed_at=NOW,
    )  # fmt: skip
    data = {"agent_id": AGENT, "measure": "keys_refused", "threshold": "0", "window_hours": "24", "min_runs": "1"}
    answer = client.post(reverse("agents:alerts"), data)
    assert answer.status_code == 400
    assert texts(answer.content, "#error-summary li") == [f"Agent: {KEYS_ARE_THE_WORKSPACE_S}"]
    assert not AlertRule.objects.exists()


def test_only_administrators_holding_a_working_key_of_the_workspace_see_its_rules(client, ada, django_user_model):
    kept = rule(AlertRule.APPROVALS_WAITING, 10)
    approver = person(django_user_model, "dana", admin=False)
    client.force_login(approver)
    for answer in (
        client.get(reverse("agents:alerts")),
        client.get(reverse("agents:alert", args=[kept.pk])),
        client.post(reverse("agents:alert_delete", args=[kept.pk])),
    ):
        assert answer.status_code == 403
        assert NOT_AN_ADMINISTRATOR in text_of(one(answer.content, "main"))
    assert AlertRule.objects.filter(pk=kept.pk).exists()
    # The insights page leads Administrators to the rules, nobody else.
    assert "Alert rules" not in texts(client.get(reverse("agents:insights")).content, ".page-header a")
    client.force_login(ada)
    assert "Alert rules" in texts(client.get(reverse("agents:insights")).content, ".page-header a")

    # An Administrator whose key of the workspace the service refused: the key gate, nothing of it.
    ApiKey.objects.filter(user=ada).update(refused_at=NOW, refused_request_id="req_x")
    answer = client.get(reverse("agents:alerts"))
    assert getattr(answer, "key_refused", False) and "Lead qualifier" not in answer.content.decode()

    # An Administrator of another workspace: its own (empty) list, never this one's rule.
    client.force_login(person(django_user_model, "olga", workspace_id="ws-other"))
    assert select(client.get(reverse("agents:alerts")).content, "table.alert-rules tbody tr") == []
    assert client.get(reverse("agents:alert", args=[kept.pk])).status_code == 404
    assert client.post(reverse("agents:alert_delete", args=[kept.pk])).status_code == 302
    assert AlertRule.objects.filter(pk=kept.pk).exists()
