"""Slack's buttons: a notification to a person's Slack webhook carries Block
Kit Approve / Reject (deciding in Slack for a person who saved their Slack
member id, else opening the confirmation page; always the page for a
destructive or spend action), and the interactivity endpoint takes only
requests signed as Slack signs them: a wrong signature, an old timestamp
and a replay are refused; a click by another Slack user decides nothing;
the message is updated in place through `response_url` with who decided."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

import pytest

from dashboard.logging import redact
from dashboard.reach.decision_tokens import token_find, token_mint
from dashboard.reach.models import Delivery, NotificationPreference
from dashboard.reach.producing import notifications_produce
from dashboard.reach.sending import delivery_step
from dashboard.reach.services import webhook_add
from dashboard.reach.slack import signature_of
from tests.reach.conftest import WORKSPACE, approval_status, fresh_approval, pending_approval, sandbox_approver

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
SLACK_USER = "U024BE7LH"


@pytest.fixture(autouse=True)
def slack_app(settings):
    settings.SLACK_SIGNING_SECRET = SECRET


def signed(body: bytes, *, timestamp: int | None = None, secret: str = SECRET) -> dict[str, str]:
    """The headers Slack sends with this body."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    return {
        "HTTP_X_SLACK_REQUEST_TIMESTAMP": stamp,
        "HTTP_X_SLACK_SIGNATURE": signature_of(secret=secret, timestamp=stamp, body=body),
    }


def click(secret: str, *, decision: str = "approve", user: str = SLACK_USER, response_url: str) -> bytes:
    """A block_actions payload as Slack posts it: form-encoded, its JSON in `payload`."""
    payload = {
        "type": "block_actions",
        "user": {"id": user, "username": "dana"},
        "response_url": response_url,
        "actions": [{"type": "button", "action_id": f"{decision}:0", "block_id": "decide-0", "value": secret}],
    }
    return urlencode({"payload": json.dumps(payload)}).encode()


def post(client, body: bytes, headers: dict[str, str]):
    return client.post(
        "/notifications/slack/interactivity", body, content_type="application/x-www-form-urlencoded", **headers
    )


def slack_token(person, approval: dict) -> str:
    from dashboard.keys.models import ApiKey

    key = ApiKey.objects.get(user=person)
    return token_mint(
        user=person,
        workspace_id=key.workspace_id,
        approval_id=approval["id"],
        agent_id=approval["agent_id"],
        channel="webhook:1",
        via="slack",
    )


def test_a_signed_click_decides_once_and_updates_the_message_in_place(
    on_sandbox, decisions_counted, django_user_model, client, receiver
):
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")
    NotificationPreference.objects.create(user=dana, slack_user_id=SLACK_USER)
    approval = fresh_approval(on_sandbox)
    body = click(slack_token(dana, approval), response_url=receiver.url)
    now = int(time.time())
    headers = signed(body, timestamp=now - 10)

    answer = post(client, body, headers)

    assert answer.status_code == 200
    assert decisions_counted == [f"/v1/approvals/{approval['id']}"]
    assert approval_status(on_sandbox, approval["id"]) == "approved"
    (update,) = receiver.bodies
    assert update["replace_original"] is True and update["text"].startswith("Approved by dana from Slack. Approved: ")

    replayed = post(client, body, headers)  # the same signed request again
    assert (replayed.status_code, replayed.content.decode()) == (401, "The request was seen before.")
    # Pressed again later (a new, valid request): the token is spent; only the presser is told.
    again = post(client, body, signed(body, timestamp=now - 20))
    assert again.status_code == 200 and decisions_counted == [f"/v1/approvals/{approval['id']}"]
    assert receiver.bodies[-1]["response_type"] == "ephemeral"
    assert receiver.bodies[-1]["text"].startswith("This link was used already")
    from dashboard.audit.models import AuditEntry

    entry = AuditEntry.objects.get(kind=AuditEntry.KIND_DECISION, details__approval_id=approval["id"])
    assert entry.details["via"] == "slack" and entry.user_id == dana.pk


def test_a_wrong_signature_an_old_timestamp_and_no_signing_secret_are_refused(db, client, settings, dana):
    approval = {"id": "aaaaaaaa-0000-4000-8000-00000000000a", "agent_id": ""}
    secret = slack_token(dana, approval)
    body = click(secret, response_url="https://hooks.slack.com/actions/T0/1/x")

    wrong = post(client, body, signed(body, secret="not the app's secret"))
    old = post(client, body, signed(body, timestamp=int(time.time()) - 301))
    tampered = post(client, body + b"&more=1", signed(body))
    settings.SLACK_SIGNING_SECRET = ""
    unset = post(client, body, signed(body))

    assert [(r.status_code, r.content.decode()) for r in (wrong, old, tampered, unset)] == [
        (401, "The request's signature is wrong."),
        (401, "The request is older than five minutes."),
        (401, "The request's signature is wrong."),
        (401, "Slack's buttons are not set up on this console (SLACK_SIGNING_SECRET)."),
    ]
    assert token_find(secret).used_at is None


def test_a_click_by_another_slack_user_decides_nothing(
    on_sandbox, decisions_counted, django_user_model, client, receiver
):
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")
    NotificationPreference.objects.create(user=dana, slack_user_id=SLACK_USER)
    approval = fresh_approval(on_sandbox)
    secret = slack_token(dana, approval)
    body = click(secret, user="U0OTHERONE", response_url=receiver.url)  # someone else in the channel

    assert post(client, body, signed(body)).status_code == 200

    assert decisions_counted == [] and approval_status(on_sandbox, approval["id"]) == "pending"
    (told,) = receiver.bodies
    assert told["response_type"] == "ephemeral" and told["replace_original"] is False
    assert told["text"].startswith("This button is for dana: it decides nothing for anyone else.")
    assert token_find(secret).used_at is None


def test_slack_messages_carry_buttons_bound_to_their_person(dana, receiver):
    NotificationPreference.objects.create(user=dana, approval_risks=["send", "destructive"], by_email=False)
    webhook_add(owner=dana, workspace_id="", kind="slack", label="Me on Slack", url=receiver.url)
    pending_approval()
    pending_approval(risk="destructive", approval_id="aaaaaaaa-0000-4000-8000-00000000000d")
    notifications_produce(WORKSPACE)

    def sent_blocks() -> list[dict]:
        receiver.bodies.clear()
        for row in Delivery.objects.filter(status=Delivery.STATUS_PENDING):
            delivery_step(delivery_id=row.pk)
        return [block for body in receiver.bodies for block in body["blocks"] if block["type"] == "actions"]

    # No Slack member id saved: both approvals' buttons open the confirmation page.
    opened = sent_blocks()
    buttons = [button for block in opened for button in block["elements"]]
    assert len(buttons) == 4 and all("value" not in button for button in buttons)
    assert {button["url"].split("wcdt_")[0] for button in buttons} == {
        "https://console.example.com/notifications/decide/"
    }

    NotificationPreference.objects.filter(user=dana).update(slack_user_id=SLACK_USER)
    Delivery.objects.update(status=Delivery.STATUS_PENDING, sent_at=None)
    by_risk = {}
    for block in sent_blocks():
        by_risk["destructive" if "url" in block["elements"][0] else "send"] = block["elements"]
    # The send approval decides in Slack (its token in `value`); the destructive one only on the page.
    assert [(b["text"]["text"], b["style"], b["value"][:5]) for b in by_risk["send"]] == [
        ("Approve", "primary", "wcdt_"),
        ("Reject", "danger", "wcdt_"),
    ]
    assert [b["text"]["text"] for b in by_risk["destructive"]] == ["Approve…", "Reject…"]


def test_decision_tokens_never_reach_a_log_line():
    assert redact("POST /notifications/decide/wcdt_5mVkNg0l6OZbx-O8bbsM8 200") == (
        "POST /notifications/decide/wcdt_[redacted] 200"
    )
