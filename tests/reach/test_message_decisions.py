"""Decisions from a message, against a real sandbox over HTTP: an email's
Approve link (through a real SMTP server) opens a confirmation page that
decides nothing on GET, decides once on POST however often it is sent, and
only for its own person; a token is refused once its person is
deactivated, no longer an Approver, or without a working key, once expired,
and once its approval was decided elsewhere. The sandbox counts the
decision calls it receives."""

from __future__ import annotations

import threading
from datetime import timedelta
from email import message_from_bytes
from urllib.parse import urlsplit

from django.db import connection
from django.urls import reverse
from django.utils import timezone

from agents.audit_words import audit_words
from agents.models import ApprovalRule
from dashboard.accounts import step_up
from dashboard.audit.models import AuditEntry
from dashboard.inbox.services import workspace_refresh
from dashboard.keys.models import ApiKey
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from dashboard.reach.decision_tokens import token_find, token_mint, token_redeem
from dashboard.reach.models import DecisionToken, Delivery, NotificationPreference
from dashboard.reach.sending import delivery_step
from tests.agents.decide_support import app_for, code_for
from tests.html import one, select, text_of
from tests.reach.conftest import approval_status, approve_link_of, fresh_approval, sandbox_approver


def token_for(person, approval: dict, *, via: str = "email") -> str:
    key = ApiKey.objects.get(user=person)
    return token_mint(
        user=person,
        workspace_id=key.workspace_id,
        approval_id=approval["id"],
        agent_id=approval["agent_id"],
        channel="email",
        via=via,
    )


def page_of(secret: str) -> str:
    return reverse("reach:decide", args=[secret])


def test_an_emailed_approve_link_decides_once_for_its_person_however_often_it_is_used(
    on_sandbox, decisions_counted, django_user_model, real_smtp, client
):
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")
    NotificationPreference.objects.create(user=dana, approval_risks=["send"])
    approval = fresh_approval(on_sandbox)
    workspace_refresh(workspace_id=ApiKey.objects.get(user=dana).workspace_id)  # the inbox learns of it: a delivery
    delivery = Delivery.objects.get(item_key=f"approval:{approval['id']}")
    assert delivery_step(delivery_id=delivery.pk) == "sent"

    (envelope,) = real_smtp.received
    body = message_from_bytes(envelope.content).get_payload()
    approve = approve_link_of(body, approval["id"])
    link = urlsplit(approve)
    secret = link.path.rsplit("/", 1)[1]
    # Only its hash is kept: the table holds nothing that decides.
    assert secret.startswith("wcdt_") and not DecisionToken.objects.filter(token_hash__contains=secret[5:20]).exists()
    assert secret not in str(list(DecisionToken.objects.values()))

    client.force_login(dana)
    shown = client.get(f"{link.path}?{link.query}")
    assert shown.status_code == 200 and decisions_counted == []  # GET never decides (a mail scanner's prefetch)
    card = one(shown.content, f"li#approval-{approval['id']}")
    assert "Exactly what will run" in text_of(card) and one(card, "pre.json-code")  # the queue's own card
    assert "For dana" in text_of(one(shown.content, "main"))
    assert [b["value"] for b in select(shown.content, "form.decide-form button[name=decision]")] == [
        "approve",
        "reject",
    ]

    answers = [client.post(link.path, {"decision": "approve"}) for _ in range(10)]

    assert decisions_counted == [f"/v1/approvals/{approval['id']}"]  # ten posts, one decision at the service
    assert approval_status(on_sandbox, approval["id"]) == "approved"
    first, *again = (text_of(one(answer.content, "#decide-outcome")) for answer in answers)
    assert first.startswith("Approved: ")
    assert set(again) == {f"This link was used already ({first}): a link decides once."}
    entry = AuditEntry.objects.get(kind=AuditEntry.KIND_DECISION, details__approval_id=approval["id"])
    assert entry.user_id == dana.pk and entry.details["via"] == "email"
    assert audit_words([entry], entry.workspace_id)[entry.pk].endswith("from email)")
    token = token_find(secret)
    assert token is not None and token.used_at is not None and token.decision == "approve"


def test_a_forwarded_link_decides_nothing_for_someone_else(on_sandbox, decisions_counted, django_user_model, client):
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")
    ben = sandbox_approver(django_user_model, on_sandbox, "ben")
    approval = fresh_approval(on_sandbox)
    secret = token_for(dana, approval)

    signed_out = client.get(page_of(secret))
    assert signed_out.status_code == 200
    assert "This link is for dana" in text_of(one(signed_out.content, "#decide-outcome"))
    assert (
        one(signed_out.content, "main a.btn-primary")["href"]
        == f"/accounts/login/?next=%2Fnotifications%2Fdecide%2F{secret}"
    )
    assert not select(signed_out.content, ".approval")  # nothing of the approval is shown

    client.force_login(ben)  # Dana forwarded her email to Ben
    forwarded = client.get(page_of(secret))
    posted = client.post(page_of(secret), {"decision": "approve"})

    assert forwarded.status_code == posted.status_code == 403
    words = text_of(one(posted.content, "#decide-outcome"))
    assert "This link is for dana, and you are signed in as ben" in words and "nothing was decided" in words
    assert not select(forwarded.content, ".approval") and decisions_counted == []
    assert approval_status(on_sandbox, approval["id"]) == "pending"
    assert DecisionToken.objects.get().used_at is None  # still Dana's to use


def test_deactivation_between_send_and_click_is_refused(on_sandbox, decisions_counted, django_user_model, client):
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")
    approval = fresh_approval(on_sandbox)
    secret = token_for(dana, approval)
    client.force_login(dana)

    dana.is_active = False
    dana.save(update_fields=["is_active"])

    # Her session goes with her account: the page asks for dana to sign in, and decides nothing.
    posted = client.post(page_of(secret), {"decision": "approve"})
    assert "This link is for dana" in text_of(one(posted.content, "#decide-outcome"))
    # The token itself refuses too, whoever asks.
    refused = token_redeem(token=token_find(secret), decision="approve")
    assert (
        not refused.decided
        and refused.words == "This link is for dana, whose account is deactivated: it decides nothing."
    )
    assert decisions_counted == [] and approval_status(on_sandbox, approval["id"]) == "pending"


def test_a_token_is_refused_in_words_when_its_person_may_no_longer_decide(
    on_sandbox, decisions_counted, django_user_model, client
):
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")
    approval = fresh_approval(on_sandbox)
    client.force_login(dana)

    person_role_set(user=dana, role=Role.MEMBER)
    no_role = token_for(dana, approval)
    page = client.get(page_of(no_role))
    assert (
        text_of(one(page.content, "#decide-outcome"))
        == "dana is no longer an Approver in this workspace: this link decides nothing."
    )
    assert not select(page.content, "form.decide-form")

    person_role_set(user=dana, role=Role.APPROVER)
    ApiKey.objects.filter(user=dana).update(refused_at=timezone.now())  # the service answered 401 to her key
    no_key = token_redeem(token=token_find(token_for(dana, approval)), decision="approve")
    assert no_key.words == "dana holds no working key of this workspace any more: this link decides nothing."

    ApiKey.objects.filter(user=dana).update(refused_at=None)
    expired = token_for(dana, approval)
    DecisionToken.objects.filter(pk=token_find(expired).pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    said = token_redeem(token=token_find(expired), decision="approve")
    assert said.words == "This link has expired: open the approval in the console to decide it."
    assert decisions_counted == [] and approval_status(on_sandbox, approval["id"]) == "pending"


def test_an_approval_decided_elsewhere_is_refused_naming_who_decided(
    on_sandbox, decisions_counted, django_user_model, client
):
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")
    ben = sandbox_approver(django_user_model, on_sandbox, "ben")
    approval = fresh_approval(on_sandbox)
    late = token_for(dana, approval)
    assert token_redeem(token=token_find(token_for(ben, approval)), decision="reject").decided  # Ben, from his email

    client.force_login(dana)
    page = client.get(page_of(late))
    assert text_of(one(page.content, "#decide-outcome")) == "Already decided by ben (rejected)"
    assert not select(page.content, "form.decide-form")
    posted = client.post(page_of(late), {"decision": "approve"})
    assert text_of(one(posted.content, "#decide-outcome")).startswith("Already decided by ben (rejected)")
    # Ben's reject, and Dana's approve that the service refused (409): never a second decision.
    assert decisions_counted == [f"/v1/approvals/{approval['id']}"] * 2
    assert approval_status(on_sandbox, approval["id"]) == "rejected"


def test_the_same_token_posted_from_two_browsers_at_once_decides_once(
    transactional_db, on_sandbox, decisions_counted, django_user_model
):
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")
    approval = fresh_approval(on_sandbox)
    secret = token_for(dana, approval)
    barrier, answers = threading.Barrier(2), []

    def press():
        try:
            token = token_find(secret)
            barrier.wait(timeout=10)
            answers.append(token_redeem(token=token, decision="approve"))
        finally:
            connection.close()

    threads = [threading.Thread(target=press) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert sorted(answer.decided for answer in answers) == [False, True]
    assert decisions_counted == [f"/v1/approvals/{approval['id']}"]
    assert approval_status(on_sandbox, approval["id"]) == "approved"


def test_a_risky_approve_from_a_message_asks_for_a_fresh_code_on_its_page_and_decides_once_it_is_right(
    on_sandbox, decisions_counted, django_user_model, client, settings
):
    settings.STEP_UP_RISKS = ["send"]  # the seed's fresh approvals are sends: step-up asked of them here
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")
    device = app_for(dana)
    approval = fresh_approval(on_sandbox)
    secret = token_for(dana, approval)
    client.force_login(dana)

    shown = client.get(page_of(secret))
    code_field = one(shown.content, "form.decide-form input[name=step_up_code]")
    assert code_field["autocomplete"] == "one-time-code"

    missing = client.post(page_of(secret), {"decision": "approve"})
    assert missing.status_code == 422 and decisions_counted == []
    error = f"#{code_field['id']}_error"
    assert text_of(one(missing.content, error)) == step_up.FIELD_WORDS.format(risk="send")
    wrong = client.post(page_of(secret), {"decision": "approve", "step_up_code": "000000"})
    assert "That code is not right" in text_of(one(wrong.content, error)) and decisions_counted == []
    assert one(wrong.content, "input[name=step_up_code]")["aria-invalid"] == "true"

    right = client.post(page_of(secret), {"decision": "approve", "step_up_code": code_for(device, steps_ahead=1)})
    assert right.status_code == 200 and "Approved" in text_of(one(right.content, "#decide-outcome"))
    assert len(decisions_counted) == 1 and approval_status(on_sandbox, approval["id"]) == "approved"


def test_under_a_two_approvals_rule_a_message_counts_the_vote_and_sends_nothing_yet(
    on_sandbox, decisions_counted, django_user_model, client
):
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")
    approval = fresh_approval(on_sandbox)
    workspace_id = ApiKey.objects.get(user=dana).workspace_id
    ApprovalRule.objects.create(workspace_id=workspace_id, risk=approval["risk"], approvals_needed=2)
    secret = token_for(dana, approval)
    client.force_login(dana)

    counted = client.post(page_of(secret), {"decision": "approve"})

    assert text_of(one(counted.content, "#decide-outcome")).startswith("Your approval is counted: 1 of 2 approved")
    assert decisions_counted == [] and approval_status(on_sandbox, approval["id"]) == "pending"
    again = client.post(page_of(secret), {"decision": "approve"})
    assert "used already" in text_of(one(again.content, "#decide-outcome")) and decisions_counted == []
