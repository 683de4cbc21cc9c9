"""Roles per workspace (issue #37 item 5) on the paths outside the console's
pages, against a real sandbox: Dana approves by default and in Marketing,
but only reads in the sandbox's workspace, so an approval there is decided
by none of her ways (the email link, Slack's button, the console API), and
the sandbox receives no decision call. Made Approver there, the same link
decides: the refusal was the workspace's role."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from dashboard.keys.models import ApiKey
from dashboard.people.backends import person_role_set, person_workspace_role_set
from dashboard.people.roles import Role
from dashboard.reach.decision_tokens import token_mint
from dashboard.reach.models import NotificationPreference
from dashboard.reach.slack import signature_of
from dashboard.tokens.scopes import DECIDE
from tests.console_api.support import error_of, send, token_for
from tests.html import one, select, text_of
from tests.reach.conftest import approval_status, fresh_approval, sandbox_approver

pytestmark = pytest.mark.django_db

SLACK_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
SLACK_USER = "U024BE7LH"
REFUSED = "dana is no longer an Approver in this workspace: this link decides nothing."


def minted(person, workspace_id: str, approval: dict, via: str) -> str:
    return token_mint(
        user=person,
        workspace_id=workspace_id,
        approval_id=approval["id"],
        agent_id=approval["agent_id"],
        channel="email" if via == "email" else "webhook:1",
        via=via,
    )


def slack_click(client, secret: str, response_url: str):
    """Slack's block_actions post of the Approve button, signed as Slack signs it."""
    payload = {
        "type": "block_actions",
        "user": {"id": SLACK_USER, "username": "dana"},
        "response_url": response_url,
        "actions": [{"type": "button", "action_id": "approve:0", "block_id": "decide-0", "value": secret}],
    }
    body = urlencode({"payload": json.dumps(payload)}).encode()
    stamp = str(int(time.time()))
    return client.post(
        "/notifications/slack/interactivity",
        body,
        content_type="application/x-www-form-urlencoded",
        HTTP_X_SLACK_REQUEST_TIMESTAMP=stamp,
        HTTP_X_SLACK_SIGNATURE=signature_of(secret=SLACK_SECRET, timestamp=stamp, body=body),
    )


def test_an_approval_where_she_only_reads_is_decided_by_none_of_her_ways(
    on_sandbox, decisions_counted, django_user_model, client, receiver, settings
):
    settings.SLACK_SIGNING_SECRET = SLACK_SECRET
    dana = sandbox_approver(django_user_model, on_sandbox, "dana")  # an Approver by default
    workspace = ApiKey.objects.get(user=dana).workspace_id
    api_token = token_for(dana, workspace, (DECIDE,))  # made while she could; narrowed at each use
    person_role_set(user=dana, role=Role.APPROVER)
    person_workspace_role_set(user=dana, workspace_id="ws-marketing", role=Role.APPROVER)
    person_workspace_role_set(user=dana, workspace_id=workspace, role=Role.VIEWER)
    NotificationPreference.objects.create(user=dana, slack_user_id=SLACK_USER)
    approval = fresh_approval(on_sandbox)
    client.force_login(dana)

    # Email: the link's page says so and its post decides nothing.
    page = reverse("reach:decide", args=[minted(dana, workspace, approval, "email")])
    assert text_of(one(client.get(page).content, "#decide-outcome")) == REFUSED
    posted = client.post(page, {"decision": "approve"})
    assert text_of(one(posted.content, "#decide-outcome")) == REFUSED and not select(posted.content, "form.decide-form")

    # Slack: the button answers her alone, in words.
    assert slack_click(client, minted(dana, workspace, approval, "slack"), receiver.url).status_code == 200
    assert receiver.bodies[-1]["text"].startswith(REFUSED)

    # The console API: her token's decide scope is out of force in this workspace.
    answer = send(
        client,
        "POST",
        f"/api/v1/approvals/{approval['id']}/decision",
        api_token,
        {"decision": "approve"},
        HTTP_IDEMPOTENCY_KEY="ws-role-api",
    )
    assert answer.status_code == 403 and error_of(answer)["code"] == "scope_refused"

    assert decisions_counted == [] and approval_status(on_sandbox, approval["id"]) == "pending"

    # An Approver there: the same kind of link decides.
    person_workspace_role_set(user=dana, workspace_id=workspace, role=Role.APPROVER)
    page = reverse("reach:decide", args=[minted(dana, workspace, approval, "email")])
    client.post(page, {"decision": "approve"})
    assert decisions_counted == [f"/v1/approvals/{approval['id']}"]
