"""Approvals whose summaries are the same, told apart on the queue's lines
and the inbox's: by the first part of the input that differs, else the id."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from agents.tell_apart import tell_apart
from dashboard.audit.testing import make_approver
from dashboard.inbox.selectors import inbox_items
from dashboard.inbox.sources import InboxViewer
from tests.agents.support import AGENT_ID, approval, store
from tests.html import parse, select, text_of

SAME = "Send the email to the sales list"
FIRST, SECOND, THIRD = (f"aaaaaaaa-0000-4000-8000-00000000001{n}" for n in range(3))


def same_summary(approval_id: str, to: str, subject: str = "Q4 prices") -> dict:
    return approval(approval_id, summary=SAME, input={"subject": subject, "body": "Hello", "to": to})


def test_the_first_differing_part_of_the_input_names_each_one_and_a_likely_part_comes_first():
    phrases = tell_apart(
        [
            same_summary(FIRST, "sales@example.com", subject="Q4"),
            same_summary(SECOND, "team@example.com", subject="Q3"),
            approval(THIRD),  # its own summary: nothing to tell apart
        ]
    )
    # Both "to" and "subject" differ: "to" is what a person tells emails apart by.
    assert phrases == {FIRST: "to: sales@example.com", SECOND: "to: team@example.com"}


def test_identical_inputs_fall_back_to_the_id_and_nested_parts_are_read_one_level_deep():
    twins = [approval(FIRST, summary=SAME, input={"a": 1}), approval(SECOND, summary=SAME, input={"a": 1})]
    assert tell_apart(twins) == {FIRST: f"approval {FIRST}", SECOND: f"approval {SECOND}"}
    nested = [
        approval(FIRST, summary=SAME, input={"customer": {"email": "a@example.com"}}),
        approval(SECOND, summary=SAME, input={"customer": {"email": "b@example.com"}}),
        approval(THIRD, summary=SAME, input="not a mapping"),
    ]
    assert tell_apart(nested) == {
        FIRST: "customer.email: a@example.com",
        SECOND: "customer.email: b@example.com",
        THIRD: f"approval {THIRD}",
    }


@pytest.mark.django_db
def test_the_queues_lines_and_the_inbox_lines_tell_them_apart(remote, api_key, user, logged_in_client):
    make_approver(user)
    bodies = [same_summary(FIRST, "sales@example.com"), same_summary(SECOND, "team@example.com")]
    remote.get("/v1/approvals").mock(return_value=httpx.Response(200, json={"data": bodies}))
    remote.get("/v1/agents").mock(
        return_value=httpx.Response(200, json={"data": [{"id": AGENT_ID, "name": "Lead qualifier"}]})
    )
    html = parse(logged_in_client.get(reverse("agents:approvals")).content)
    assert [text_of(node) for node in select(html, "#approval-queue .approval-item__apart")] == [
        "to: sales@example.com",
        "to: team@example.com",
    ]

    for body in bodies:
        store(api_key.workspace_id, body)
    items = inbox_items(viewer=InboxViewer(user=user, workspace_id=api_key.workspace_id))
    assert sorted(item.detail for item in items if item.kind == "approval") == [
        "to: sales@example.com",
        "to: team@example.com",
    ]


def test_values_that_share_their_first_words_show_where_they_differ():
    leads = [
        approval(FIRST, summary=SAME, input={"body": "Qualify the lead number 3 from Contoso"}),
        approval(SECOND, summary=SAME, input={"body": "Qualify the lead number 17 from Contoso"}),
    ]
    assert tell_apart(leads) == {FIRST: "body: …3 from Contoso", SECOND: "body: …17 from Contoso"}
