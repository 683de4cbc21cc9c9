"""Step-up for risky decisions (dashboard/accounts/step_up.py): approving a destructive
action asks for a fresh second factor in the card itself, against a real
sandbox of this module's own (its seeded "Delete records in deals."); a
person without one is told to set one up, one whose factor is a passkey is
sent to confirm with it; a rejection never asks."""

from __future__ import annotations

import time
from urllib.parse import quote

import httpx
import pytest
from django.urls import reverse

from dashboard.accounts import step_up
from dashboard.accounts.models import Passkey
from dashboard.audit.models import AuditEntry
from tests.agents.decide_support import app_for, code_for, status_at_service
from tests.agents.support import DELETE_ID, HTMX, approval, decision_fields
from tests.html import one, select, text_of

SUMMARY = "Delete records in deals."


@pytest.fixture(autouse=True)
def step_up_on(settings):
    """On here (the suite's other tests run with it off: tests/conftest.py)."""
    settings.STEP_UP_RISKS = ["destructive", "spend"]
    settings.STEP_UP_SECONDS = 300


def test_a_destructive_approve_asks_for_a_fresh_code_in_the_card(sandbox_client, seeded_sandbox, user):
    # One scenario: the module's sandbox has one destructive approval, and its order matters.
    queue = sandbox_client.get(reverse("agents:approvals")).content
    listed = next(item for item in select(queue, "li.approval-item--pending") if SUMMARY in text_of(item))
    approval_id = listed["data-approval-id"]
    page = sandbox_client.get(reverse("agents:approval", args=[approval_id])).content
    fields = decision_fields(page, approval_id, "approve-confirmed")
    fields["note"] = "Checked the deals."
    decide = reverse("agents:approval_decide", args=[approval_id])
    words = f"#approval-{approval_id}-step-up-words"

    # Without a second factor: told to set one up, in the card's own slot; nothing sent.
    answer = sandbox_client.post(decide, fields, **HTMX)
    assert answer["HX-Retarget"] == f"#approval-{approval_id}-step-up"
    assert text_of(one(answer.content, words)) == step_up.set_up_words()
    assert one(answer.content, "a")["href"] == reverse("two_factor")
    assert answer.content.count(b"step_up_code") == 0
    assert status_at_service(seeded_sandbox, approval_id) == "pending"

    # With a passkey only: no code to type; a link to confirm with it, back to this approval.
    Passkey.objects.create(user=user, name="Phone", credential_id="cred-phone", public_key=b"\x01")
    answer = sandbox_client.post(decide, fields, **HTMX)
    assert text_of(one(answer.content, words)) == step_up.passkey_words("destructive")
    confirm = one(answer.content, "a")
    assert text_of(confirm) == "Confirm with your passkey"
    assert confirm["href"] == reverse("step_up_passkey") + "?next=" + quote(
        f"{reverse('agents:approvals')}?approval={approval_id}", safe=""
    )
    assert answer.content.count(b"step_up_code") == 0
    assert status_at_service(seeded_sandbox, approval_id) == "pending"

    device = app_for(user)
    # With an app: the code field in place (the note and the rest of the card stay as typed).
    answer = sandbox_client.post(decide, fields, **HTMX)
    assert answer["HX-Retarget"] == f"#approval-{approval_id}-step-up"
    code_field = one(answer.content, "input[name=step_up_code]")
    assert code_field["autocomplete"] == "one-time-code"
    assert text_of(one(answer.content, f"label[for={code_field['id']}]")) == "Code from your authenticator app"
    assert one(answer.content, "button[name=decision]")["value"] == "approve-confirmed"
    assert text_of(one(answer.content, words)) == step_up.FIELD_WORDS.format(risk="destructive")

    answer = sandbox_client.post(decide, {**fields, "step_up_code": "000000"}, **HTMX)
    assert (
        text_of(one(answer.content, words))
        == "That code is not right. Try the newest code from your authenticator app."
    )
    assert status_at_service(seeded_sandbox, approval_id) == "pending"
    assert not AuditEntry.objects.filter(idempotency_key=fields["key_approve"]).exists()

    answer = sandbox_client.post(decide, {**fields, "step_up_code": code_for(device, steps_ahead=1)}, **HTMX)

    assert one(answer.content, f"li#approval-{approval_id}")["data-status"] == "approved"
    assert status_at_service(seeded_sandbox, approval_id) == "approved"
    entry = AuditEntry.objects.get(idempotency_key=fields["key_approve"])
    assert (entry.summary, entry.note) == (f"Approved: {SUMMARY}", "Checked the deals.")
    # Remembered on the session for STEP_UP_SECONDS: the next risky approve asks nothing.
    session = sandbox_client.session
    assert step_up.step_up_needed(user=user, approval="destructive", session=session) == step_up.NOT_NEEDED


def test_a_fresh_factor_lasts_step_up_seconds_and_only_risky_approves_ask(user, settings):
    app_for(user)
    session = {step_up.STEP_UP_SESSION_KEY: time.time() - 200}
    assert step_up.step_up_needed(user=user, approval={"risk": "spend"}, session=session) == step_up.NOT_NEEDED
    settings.STEP_UP_SECONDS = 100
    assert step_up.step_up_needed(user=user, approval={"risk": "spend"}, session=session) == step_up.CODE
    assert step_up.step_up_needed(user=user, approval={"risk": "spend"}, session=None) == step_up.CODE
    assert step_up.step_up_needed(user=user, approval={"risk": "send"}, session=None) == step_up.NOT_NEEDED


@pytest.mark.usefixtures("approver")
def test_a_rejection_never_asks_for_a_second_factor(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approval", args=[DELETE_ID])).content.decode()
    fields = decision_fields(page, DELETE_ID, "reject")
    decide = remote.post(f"/v1/approvals/{DELETE_ID}").mock(
        return_value=httpx.Response(
            200, json={"approval": approval(DELETE_ID, risk="destructive", status="rejected"), "outcome": None}
        )
    )

    answer = logged_in_client.post(reverse("agents:approval_decide", args=[DELETE_ID]), fields, **HTMX)

    assert decide.call_count == 1
    assert one(answer.content, f"li#approval-{DELETE_ID}")["data-status"] == "rejected"
