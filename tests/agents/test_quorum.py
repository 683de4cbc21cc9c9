"""Quorum, separation of duties and deadline outcomes (agents/quorum.py,
agents/deadline_outcomes.py) over a real sandbox of this module's own: the
sandbox counts the decisions it takes (its decide handler wrapped), and two
approvers (or two deadline sweeps) race on two real PostgreSQL connections."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta

import httpx
import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone, translation

from agents import decisions, quorum, services
from agents.deadline_outcomes import deadline_outcomes_due
from agents.forms import NEVER_AUTO_APPROVED
from agents.models import ApprovalRule, ApprovalTally, ApprovalVote
from dashboard.api.paths import api_path
from dashboard.audit.models import AuditEntry
from dashboard.audit.testing import make_administrator, make_approver
from dashboard.inbox.services import workspace_refresh
from dashboard.people.models import Person
from tests.agents.decide_support import status_at_service
from tests.agents.support import store_demo_key
from tests.html import one, select, text_of

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def decide_calls(monkeypatch):
    """The approval ids the sandbox took a decision on, in order (its
    handler runs once per decision; a replayed Idempotency-Key never reaches it)."""
    from sandbox.core import ROUTES

    route = next(r for r in ROUTES if r.operation_id == "approvals_decide")
    taken: list[str] = []
    original = route.handler

    def counting(req):
        taken.append(req.path_params["id"])
        return original(req)

    monkeypatch.setattr(route, "handler", counting)
    return taken


@pytest.fixture
def people(seeded_sandbox, settings, django_user_model):
    """Dana, Sam and Lee: Approvers, each with a key of the sandbox's demo workspace."""
    settings.SERVICE_BASE_URL = seeded_sandbox.base_url
    made = {}
    for name in ("Dana", "Sam", "Lee"):
        user = make_approver(django_user_model.objects.create_user(username=name.lower(), first_name=name))
        made[name] = (user, store_demo_key(user, seeded_sandbox))
    return made


def lead_qualifier(handle) -> str:
    headers = {"Authorization": f"Bearer {handle.demo_key}"}
    agents = httpx.get(f"{handle.base_url}/v1/agents", headers=headers).json()["data"]
    return next(agent["id"] for agent in agents if agent["name"] == "Lead qualifier")


def new_approval(handle, *, key=None) -> dict:
    """A new pending `send` approval of the Lead qualifier: a chat message
    sent from the console with `key` (so its run is known to be that
    person's), or straight to the service (who started it is unknown)."""
    agent_id = lead_qualifier(handle)
    message = f"Qualify the lead {uuid.uuid4().hex[:6]} from Fabrikam"
    if key is not None:
        op = services.invocation_start(
            key=key, agent_id=agent_id, message=message, thread_id=None, idempotency_key=str(uuid.uuid4()), stream=False
        )
        # In the background: the run's approval is listed once its work is done (the sandbox's clock moved on).
        handle.advance(service_seconds=600)
        pending = httpx.get(
            f"{handle.base_url}/v1/approvals",
            params={"status": "pending", "limit": 100},
            headers={"Authorization": f"Bearer {handle.demo_key}"},
        ).json()["data"]
        approval = next(item for item in pending if item["run_id"] == op.context["run_id"])
    else:
        answer = httpx.post(
            f"{handle.base_url}/v1/agents/{agent_id}/runs",
            json={"message": message},
            headers={"Authorization": f"Bearer {handle.demo_key}", "Idempotency-Key": str(uuid.uuid4())},
        ).json()
        approval = answer["approvals"][0]
    assert approval["status"] == "pending" and approval["risk"] == "send"
    return approval


def rule(workspace_id: str, **fields) -> ApprovalRule:
    return ApprovalRule.objects.create(workspace_id=workspace_id, risk=fields.pop("risk", "send"), **fields)


def approve(key, approval: dict, decision: str = "approve") -> decisions.DecisionOutcome:
    asked = decisions.DecisionAsked(
        approval_id=approval["id"],
        decision=decision,
        idempotency_key=str(uuid.uuid4()),
        agent_id=approval["agent_id"],
    )
    return decisions.approval_decision(key=key, client=key.client(), asked=asked)


def racing(*calls) -> list:
    """Run the calls at the same moment on threads of their own (each its own database connection)."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)
    failures: list[BaseException] = []

    def run(index, call):
        try:
            barrier.wait(timeout=30)
            results[index] = call()
        except BaseException as exc:  # reported below, on the test's thread
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(index, call)) for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures
    return results


@pytest.mark.django_db(transaction=True)
def test_two_of_three_racing_on_two_connections_send_one_decision(seeded_sandbox, people, decide_calls):
    dana_key, sam_key, lee_key = (people[name][1] for name in ("Dana", "Sam", "Lee"))
    rule(dana_key.workspace_id, approvals_needed=2)
    approval = new_approval(seeded_sandbox)

    outcomes = racing(lambda: approve(dana_key, approval), lambda: approve(sam_key, approval))

    assert sorted(outcome.outcome for outcome in outcomes) == [decisions.DECIDED, decisions.WAITING]
    assert decide_calls == [approval["id"]]  # exactly one decision reached the service
    assert status_at_service(seeded_sandbox, approval["id"]) == "approved"
    waited = next(outcome for outcome in outcomes if outcome.outcome == decisions.WAITING)
    first = waited.tally.split(": ")[1].split(";")[0]
    assert waited.words == f"1 of 2 approved: {first}; waiting for one more"
    decided = next(outcome for outcome in outcomes if outcome.outcome == decisions.DECIDED)
    second = "Sam" if first == "Dana" else "Dana"
    assert decided.tally == f"Approved by {first} and {second}, 2 of 2"
    tally = ApprovalTally.objects.get(approval_id=approval["id"])
    assert tally.state == ApprovalTally.DECIDED and tally.votes.count() == 2

    # A third approver (and a retry of the one who met the quorum) sends nothing more.
    late = approve(lee_key, approval)
    assert late.outcome == decisions.ALREADY
    assert late.words == f"Already decided: approved by {first} and {second}, 2 of 2"
    assert decide_calls == [approval["id"]]
    # The trail: the waiting vote and the decision, in words.
    lines = set(AuditEntry.objects.filter(workspace_id=dana_key.workspace_id).values_list("summary", flat=True))
    summary = approval["summary"]
    assert f"Voted to approve: {summary} (1 of 2 approved: {first}; waiting for one more)" in lines
    assert f"Approved: {summary} (Approved by {first} and {second}, 2 of 2)" in lines


@pytest.mark.django_db
def test_the_person_who_started_the_run_may_not_approve_it(seeded_sandbox, people, decide_calls):
    dana_key, sam_key = people["Dana"][1], people["Sam"][1]
    rule(dana_key.workspace_id, approvals_needed=1)
    approval = new_approval(seeded_sandbox, key=dana_key)  # Dana's chat message started the run
    assert quorum.card_words(workspace_id=dana_key.workspace_id, approval=approval) == (
        "Needs 1 approval; not by Dana, who started the run"
    )

    refused = approve(dana_key, approval)

    assert refused.outcome == decisions.REFUSED
    assert refused.words == "You started this run: by this workspace's policy someone else must approve it."
    assert decide_calls == [] and status_at_service(seeded_sandbox, approval["id"]) == "pending"
    assert approve(sam_key, approval).outcome == decisions.DECIDED
    assert decide_calls == [approval["id"]]


@pytest.mark.django_db
def test_a_run_started_elsewhere_is_said_unknown_and_only_named_people_approve(seeded_sandbox, people, decide_calls):
    dana_key, (sam, sam_key) = people["Dana"][1], people["Sam"]
    rule(dana_key.workspace_id, approver_ids=[sam.pk])
    approval = new_approval(seeded_sandbox)

    assert quorum.card_words(workspace_id=dana_key.workspace_id, approval=approval) == (
        "Needs 1 approval (Sam); not by the person who started the run (the console does not know who started it)"
    )
    refused = approve(dana_key, approval)
    assert refused.outcome == decisions.REFUSED
    assert refused.words == "This workspace's policy lets only Sam approve these actions."
    assert approve(sam_key, approval).outcome == decisions.DECIDED
    assert decide_calls == [approval["id"]]


@pytest.mark.django_db
def test_the_card_says_where_the_quorum_stands_and_a_rejection_vetoes(seeded_sandbox, people, decide_calls, client):
    (dana, dana_key), sam = people["Dana"], people["Sam"][0]
    rule(dana_key.workspace_id, approvals_needed=2)
    approval = new_approval(seeded_sandbox)
    card_url = reverse("agents:approval", args=[approval["id"]])
    decide_url = reverse("agents:approval_decide", args=[approval["id"]])

    def form_fields() -> dict:
        card = one(client.get(card_url).content, f"li#approval-{approval['id']}")
        form = one(card, "form.approval__actions")
        return {field["name"]: field.get("value", "") for field in form.select("input[type=hidden]")}

    client.force_login(dana)
    assert text_of(one(client.get(card_url).content, ".approval__tally")) == (
        "Needs 2 approvals; not by the person who started the run (the console does not know who started it)"
    )
    answer = client.post(decide_url, {**form_fields(), "decision": "approve"}, **HTMX)
    row = one(answer.content, f"li#approval-{approval['id']}")
    assert row["data-status"] == "pending"
    assert text_of(one(row, ".approval__messages [role=status]")) == "1 of 2 approved: Dana; waiting for one more"
    assert text_of(one(row, ".approval__tally")) == "1 of 2 approved: Dana; waiting for one more"
    assert decide_calls == []

    client.force_login(sam)
    answer = client.post(decide_url, {**form_fields(), "decision": "reject"}, **HTMX)

    assert one(answer.content, f"li#approval-{approval['id']}")["data-status"] == "rejected"
    assert decide_calls == [approval["id"]]
    assert status_at_service(seeded_sandbox, approval["id"]) == "rejected"
    assert text_of(one(client.get(card_url).content, ".approval__tally")) == "Rejected by Sam (a rejection vetoes)"
    assert [vote.decision for vote in ApprovalVote.objects.filter(tally__approval_id=approval["id"])] == [
        "approve",
        "reject",
    ]


@pytest.mark.django_db(transaction=True)
def test_a_deadline_outcome_is_applied_once_across_two_workers(seeded_sandbox, people, decide_calls):
    (dana, dana_key) = people["Dana"]
    workspace_id = dana_key.workspace_id
    approval = new_approval(seeded_sandbox)
    rule(workspace_id, agent_id=approval["agent_id"], at_deadline=ApprovalRule.REJECT, set_by=dana)
    # A rule that would approve destructive actions at the deadline (the form refuses it; forged here) is never applied.
    rule(workspace_id, risk="destructive", at_deadline=ApprovalRule.APPROVE)
    workspace_refresh(workspace_id=workspace_id)  # the console keeps what waits (the inbox refresh)
    later = timezone.now() + timedelta(days=1)

    decided = racing(lambda: deadline_outcomes_due(now=later), lambda: deadline_outcomes_due(now=later))

    assert approval["id"] in decide_calls
    assert len(decide_calls) == len(set(decide_calls)) == sum(decided)  # each overdue approval decided once
    assert status_at_service(seeded_sandbox, approval["id"]) == "rejected"
    pending = httpx.get(
        f"{seeded_sandbox.base_url}/v1/approvals",
        params={"status": "pending"},
        headers={"Authorization": f"Bearer {seeded_sandbox.demo_key}"},
    ).json()["data"]
    assert [item["risk"] for item in pending] == ["destructive"]  # never approved by the deadline
    assert deadline_outcomes_due(now=later) == 0  # applied once: a later sweep sends nothing
    entry = AuditEntry.objects.get(path=api_path("/v1/approvals/{}", approval["id"]))
    assert entry.summary == f"Rejected at its deadline by the console's policy: {approval['summary']}"
    assert quorum.card_words(workspace_id=workspace_id, approval={**approval, "status": "rejected"}) == (
        "Rejected at its deadline by the console's policy"
    )


def _rule_saved(client, sam):
    """Two approvals of destructive actions by Administrators or Sam, rejected at the deadline."""
    return client.post(
        reverse("agents:rules"),
        {
            "agent_id": "",
            "risk": "destructive",
            "approvals_needed": "2",
            "approver_roles": ["administrator"],
            "approver_ids": [str(sam.pk)],
            "at_deadline": "reject",
        },
    )


@pytest.mark.django_db
def test_the_rules_page_refuses_an_approve_at_the_deadline_for_destructive_actions(
    seeded_sandbox, people, client, django_user_model
):
    admin = make_administrator(django_user_model.objects.create_user(username="ada", first_name="Ada"))
    key = store_demo_key(admin, seeded_sandbox)
    client.force_login(admin)
    page = client.get(reverse("agents:rules"))
    assert page.status_code == 200
    sam = people["Sam"][0]
    assert str(sam.pk) in [box["value"] for box in select(page.content, "input[name=approver_ids]")]

    refused = client.post(
        reverse("agents:rules"),
        {"agent_id": "", "risk": "destructive", "approvals_needed": "2", "at_deadline": "approve"},
    )

    assert refused.status_code == 400
    assert text_of(one(refused.content, "#id_at_deadline_error, .field-error, .errorlist")) == NEVER_AUTO_APPROVED
    assert not ApprovalRule.objects.exists()

    assert _rule_saved(client, sam).status_code == 302
    stored = ApprovalRule.objects.get(workspace_id=key.workspace_id)
    assert (stored.approvals_needed, stored.approver_roles, stored.approver_ids) == (2, ["administrator"], [sam.pk])
    assert AuditEntry.objects.get(action="approval.rule").summary == (
        "Set the rule of destructive approvals of every agent: 2 approvals (Administrators, or Sam); "
        "not by who started the run; rejected at the deadline"
    )


@pytest.mark.django_db
def test_a_cards_rule_words_cost_a_fixed_number_of_queries(people, django_assert_num_queries):
    dana, dana_key = people["Dana"]
    workspace_id = dana_key.workspace_id
    pending = {"id": "a-1", "agent_id": "agent-1", "risk": "send", "status": "pending", "run_id": "run-1"}
    with django_assert_num_queries(2):  # no tally, no rule: the tally's read and the rule's
        assert quorum.card_words(workspace_id=workspace_id, approval=pending) == ""
    rule(workspace_id, approvals_needed=2, starter_may_approve=True)
    tally = ApprovalTally.objects.create(workspace_id=workspace_id, approval_id="a-1", needed=2)
    ApprovalVote.objects.create(tally=tally, user=dana, username="Dana", decision="approve")
    with django_assert_num_queries(2):  # the tally and its votes
        assert quorum.card_words(workspace_id=workspace_id, approval=pending) == (
            "1 of 2 approved: Dana; waiting for one more"
        )


@pytest.mark.django_db
def test_a_bulk_approve_under_a_quorum_says_the_vote_was_counted_not_failed(
    seeded_sandbox, people, decide_calls, client, monkeypatch
):
    from agents import bulk_decisions
    from agents.models import ApprovalBatch, ApprovalBatchItem
    from dashboard.jobs import engine

    (dana, dana_key), sam_key = people["Dana"], people["Sam"][1]
    rule(dana_key.workspace_id, approvals_needed=2)
    approval = new_approval(seeded_sandbox)
    sent: list[int] = []
    monkeypatch.setattr(engine, "send_step", lambda kind, batch_id, countdown=None: sent.append(batch_id))

    batch = bulk_decisions.batch_start(
        client=dana_key.client(),
        key=dana_key,
        user=dana,
        uid=uuid.uuid4(),
        decision=ApprovalBatch.APPROVE,
        approval_ids=[approval["id"]],
        agent_names={},
    )
    engine.job_step(bulk_decisions.KIND, sent.pop(0))

    item = ApprovalBatchItem.objects.get(batch=batch)
    assert item.outcome == ApprovalBatchItem.COUNTED
    assert item.message == "1 of 2 approved: Dana; waiting for one more"
    assert decide_calls == []  # a counted vote sends nothing
    client.force_login(dana)
    page = client.get(reverse("agents:approval_batch", args=[batch.pk]))
    summary = text_of(one(page.content, ".approval-batch__head"))
    assert "1 counted as a vote (waiting for more approvers)" in summary and "failed" not in summary
    # Sam's approval meets the quorum: one decision reaches the service.
    assert approve(sam_key, approval).outcome == decisions.DECIDED
    assert decide_calls == [approval["id"]]


@pytest.mark.django_db
def test_a_rule_reads_in_the_administrators_language_and_is_audited_in_english(
    seeded_sandbox, people, client, django_user_model
):
    """The rules page in German (Person.language, carried from sign-in); the audit
    summary it stores stays English, for operators, whoever saved it."""
    admin = make_administrator(django_user_model.objects.create_user(username="ada", first_name="Ada"))
    key = store_demo_key(admin, seeded_sandbox)
    Person.objects.update_or_create(user=admin, defaults={"language": "de"})
    client.force_login(admin)
    translation.deactivate()  # the sign-in activated it in this thread too: each request's own choice decides
    sam = people["Sam"][0]
    assert _rule_saved(client, sam).status_code == 302

    page = client.get(reverse("agents:rules")).content
    translation.deactivate()
    assert text_of(one(page, "ul.approval-rules li")).startswith(
        "Jeder Agent: destructive 2 Freigaben (Administratoren oder Sam); "
        "nicht durch die Person, die den Lauf gestartet hat; bei Fristablauf abgelehnt"
    )
    assert AuditEntry.objects.get(workspace_id=key.workspace_id, action="approval.rule").summary == (
        "Set the rule of destructive approvals of every agent: 2 approvals (Administrators, or Sam); "
        "not by who started the run; rejected at the deadline"
    )
