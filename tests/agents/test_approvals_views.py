"""The approvals queue with the service mocked (respx): what a row shows,
the decision sent with the row's own Idempotency-Key, a double post, a second
decision (409) re-read in place, and every other remote error in place."""

from __future__ import annotations

import json

import httpx
import pytest
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from tests.agents.support import AGENT_ID, DELETE_ID, HTMX, RUN_ID, SEND_ID, approval, decision_fields, row
from tests.html import one, parse, root_ids, text_of, texts

# The logged-in user decides approvals (the Approver role: tests/agents/conftest.py).
pytestmark = pytest.mark.usefixtures("approver")


def test_the_queue_shows_each_pending_approval_in_the_services_order(queue, logged_in_client):
    response = logged_in_client.get(reverse("agents:approvals"))
    page = parse(response.content)

    assert response.status_code == 200
    # A dense line per approval: summary, risk, agent, time waited, the run.
    items = page.select("#approval-queue > li")
    assert [li["id"] for li in items] == [f"queue-item-{SEND_ID}", f"queue-item-{DELETE_ID}"]
    assert texts(page, "#approval-queue .approval-item__summary") == [
        "Send the welcome email to dana@example.com",
        "Delete 3 stale deals",
    ]
    assert "Lead qualifier" in text_of(items[0]) and "waiting" in text_of(one(items[0], ".approval-item__meta"))
    assert one(items[0], "a[href*='/runs/']")
    # The first is selected: its detail (the exact input, the decision form) is in the pane.
    assert [li["id"] for li in page.select("#approval-detail ul.approval-list > li")] == [f"approval-{SEND_ID}"]
    first = row(page, SEND_ID)
    assert text_of(one(first, ".approval__summary")) == "Send the welcome email to dana@example.com"
    assert "risk--send" in one(first, ".risk")["class"] and "Lead qualifier" in text_of(one(first, ".approval__meta"))
    # The exact input in words (an email), with the JSON behind a toggle.
    assert texts(first, ".approval__fields dt") == ["To", "Subject", "Body"]
    assert texts(first, ".approval__fields dd") == ["dana@example.com", "Welcome", "Hi Dana"]
    assert json.loads(one(first, ".approval__raw pre").get_text())["to"] == "dana@example.com"
    assert "21 Nov 2026, 10:30 CET" in text_of(one(first, ".approval__meta"))  # in the workspace's time zone
    assert texts(first, "button[name=decision]") == ["Approve", "Reject", "Always allow"]
    # One key per decision, all different.
    keys = [field["value"] for field in page.select("input[name^=key_]")]
    assert len(keys) == 3 and len(set(keys)) == 3
    assert dict(queue.calls.last.request.url.params)["status"] == "pending"
    assert one(page, "nav.pager a[rel=next]")["href"].endswith("cursor=cur_2")
    # Only the send one may be decided in bulk: a destructive one is decided alone, after its confirmation.
    assert [box["value"] for box in page.select("input[name=approval][form=bulk-decide-form]")] == [SEND_ID]


def test_a_destructive_approval_asks_exactly_this_first_and_never_always(queue, logged_in_client):
    page = parse(logged_in_client.get(reverse("agents:approvals"), {"approval": DELETE_ID}).content)
    second = row(page, DELETE_ID)
    assert "approval-item--selected" in one(page, f"#queue-item-{DELETE_ID}")["class"]
    assert text_of(one(second, "details.approval__confirm > summary")) == "Approve…"
    assert [b["value"] for b in second.select("button[name=decision]")] == ["approve-confirmed", "reject"]
    assert json.loads(one(second, ".approval__confirm-body pre").get_text()) == {"ids": [1, 2, 3]}


def test_tabs_filter_and_cursor_go_to_the_service(queue, logged_in_client):
    logged_in_client.get(
        reverse("agents:approvals"), {"status": "rejected", "agent": AGENT_ID, "cursor": "cur_2"}, **HTMX
    )
    params = dict(queue.calls.last.request.url.params)
    assert params == {"status": "rejected", "agent_id": AGENT_ID, "cursor": "cur_2", "limit": "25"}
    # A bad status or agent id falls back instead of reaching the service.
    logged_in_client.get(reverse("agents:approvals"), {"status": "nonsense", "agent": "not-a-uuid"})
    assert dict(queue.calls.last.request.url.params) == {"status": "pending", "limit": "25"}


def test_an_htmx_tab_swaps_the_list_region_only(queue, logged_in_client):
    body = logged_in_client.get(reverse("agents:approvals"), {"status": "all"}, **HTMX).content.decode()
    assert root_ids(body) == ["div#approval-list"]  # that region alone, no page around it


def test_approve_sends_the_decision_with_the_rendered_key_and_shows_the_re_read_outcome(
    queue, remote, logged_in_client
):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = decision_fields(page, SEND_ID, "approve")
    decide = remote.post(f"/v1/approvals/{SEND_ID}").mock(
        return_value=httpx.Response(200, json={"approval": approval(status="approved"), "outcome": None})
    )
    decided = approval(status="approved", decided_at="2026-11-21T09:31:00.000Z")
    queue.mock(return_value=httpx.Response(200, json={"data": [decided], "next_cursor": None}))
    remote.get(f"/v1/runs/{RUN_ID}").mock(
        return_value=httpx.Response(
            200,
            json={
                "id": RUN_ID,
                "status": "completed",
                "answer": "Approved and done: sent the email.",
                "steps": [{"kind": "email", "input": {"to": "dana@example.com"}, "result": {"sent": True}}],
            },
        )
    )

    response = logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, **HTMX)

    assert response.status_code == 200
    sent = decide.calls.last.request
    assert sent.headers["Idempotency-Key"] == fields["key_approve"]
    assert json.loads(sent.content) == {"decision": "approve"}
    item = one(response.content, f"li#approval-{SEND_ID}")
    assert "approval--approved" in item["class"]
    assert "decided by alice 21 Nov 2026, 10:31 CET" in text_of(one(item, ".approval__meta"))
    assert text_of(one(item, ".approval__outcome .run-status")) == "Completed"
    assert text_of(one(item, ".agent-answer")) == "Approved and done: sent the email."
    assert one(item, f'.approval__outcome a[href="/runs/{RUN_ID}/"]')
    assert item.select("form") == []  # decided: no more buttons


def test_posting_the_same_decision_twice_sends_the_same_key(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = decision_fields(page, SEND_ID, "reject")
    decide = remote.post(f"/v1/approvals/{SEND_ID}").mock(
        return_value=httpx.Response(
            200, json={"approval": approval(status="rejected"), "outcome": {"id": RUN_ID, "status": "cancelled"}}
        )
    )
    logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, **HTMX)
    logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, **HTMX)

    assert decide.call_count == 2
    assert {call.request.headers["Idempotency-Key"] for call in decide.calls} == {fields["key_reject"]}
    assert all(json.loads(call.request.content) == {"decision": "reject"} for call in decide.calls)


def test_always_allow_sends_always_and_has_its_own_key(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    always = decision_fields(page, SEND_ID, "always")
    approve = decision_fields(page, SEND_ID, "approve")
    decide = remote.post(f"/v1/approvals/{SEND_ID}").mock(
        return_value=httpx.Response(200, json={"approval": approval(status="approved", always=True), "outcome": None})
    )
    body = logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), always, **HTMX).content.decode()
    assert json.loads(decide.calls.last.request.content) == {"decision": "approve", "always": True}
    assert always["key_always"] != approve["key_approve"]
    assert "allowed always from now on" in body


def test_a_second_decision_says_already_decided_and_re_reads_the_row(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = decision_fields(page, SEND_ID, "approve")
    remote.post(f"/v1/approvals/{SEND_ID}").mock(
        return_value=httpx.Response(
            409,
            json={
                "error": {
                    "type": "conflict",
                    "message": "This approval was already decided (rejected).",
                    "details": {"status": ["rejected"]},
                },
                "request_id": "req_409",
            },
        )
    )
    queue.mock(return_value=httpx.Response(200, json={"data": [approval(status="rejected")], "next_cursor": None}))

    response = logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, **HTMX)
    body = response.content.decode()

    assert response.status_code == 200
    assert "Already decided (rejected)" in body and "req_409" in body
    assert one(body, "li.approval")["class"] == ["card", "approval", "approval--rejected"]
    # The audit line says what was tried and what the service said.
    entry = AuditEntry.objects.get(idempotency_key=fields["key_approve"])
    assert entry.status == 409 and entry.kind == AuditEntry.KIND_DECISION
    # The one phrasing of a refused decision (agents/decisions.py), the agent beside it in the trail's words.
    assert entry.summary == "Tried to approve “Send the welcome email to dana@example.com”: already decided (rejected)"
    assert entry.details["agent_name"] == "Lead qualifier"
    reread = dict(queue.calls.last.request.url.params)
    assert reread["status"] == "all" and reread["agent_id"] == AGENT_ID


def test_without_javascript_a_decision_lands_back_on_the_queue_with_a_message(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = decision_fields(page, SEND_ID, "approve")
    remote.post(f"/v1/approvals/{SEND_ID}").mock(
        return_value=httpx.Response(
            200, json={"approval": approval(status="approved"), "outcome": {"status": "completed"}}
        )
    )
    response = logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, follow=True)
    assert response.redirect_chain[-1][0] == reverse("agents:approvals")
    assert "Approved: Send the welcome email to dana@example.com" in response.content.decode()


@pytest.mark.parametrize(
    ("status", "error_type", "expected"),
    [
        (401, "authentication", "The service refused your API key"),
        (402, "insufficient_credits", "Your workspace has run out of credits"),
        (403, "permission", "This API key may not do this"),
        (404, "not_found", "Not found"),
        (429, "rate_limited", "The service is rate-limiting requests"),
        (500, "server_error", "The service had a problem"),
    ],
)
def test_every_other_remote_error_shows_in_the_rows_message_region(
    queue, remote, logged_in_client, status, error_type, expected
):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = decision_fields(page, SEND_ID, "approve")
    headers = {"Retry-After": "7"} if status == 429 else {}
    remote.post(f"/v1/approvals/{SEND_ID}").mock(
        return_value=httpx.Response(
            status,
            json={"error": {"type": error_type, "message": "no"}, "request_id": f"req_{status}"},
            headers=headers,
        )
    )

    response = logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, **HTMX)
    body = response.content.decode()

    assert response.status_code == 200
    # A refused key refuses the whole request (dashboard/frame/key_gate.py): its box
    # goes to the page's messages, the row and its note left as they are.
    assert response["HX-Retarget"] == ("#messages" if status == 401 else f"#approval-{SEND_ID}-messages")
    assert expected in body and f"req_{status}" in body
    assert "Traceback" not in body and "svc_sk_" not in body


def test_a_tampered_decision_is_refused_in_the_row_and_nothing_is_sent(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals"), {"approval": DELETE_ID}).content.decode()
    fields = {**decision_fields(page, DELETE_ID, "reject"), "decision": "approve-now", "key_reject": "short"}
    decide = remote.post(f"/v1/approvals/{DELETE_ID}")
    response = logged_in_client.post(reverse("agents:approval_decide", args=[DELETE_ID]), fields, **HTMX)
    assert response["HX-Retarget"] == f"#approval-{DELETE_ID}-messages"
    assert texts(response.content, "[role=alert] p") == [
        "This decision could not be read; reload the page and decide again."
    ]
    assert decide.call_count == 0


def test_a_destructive_approval_is_not_sent_without_its_confirmation(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals"), {"approval": DELETE_ID}).content.decode()
    fields = {**decision_fields(page, DELETE_ID, "approve-confirmed"), "decision": "approve"}  # the confirm skipped
    decide = remote.post(f"/v1/approvals/{DELETE_ID}")
    response = logged_in_client.post(reverse("agents:approval_decide", args=[DELETE_ID]), fields, **HTMX)
    assert "needs a confirmation" in text_of(one(response.content, "[role=alert]"))
    assert decide.call_count == 0


@pytest.mark.parametrize("forged", ["", "low", "read"])
def test_an_approve_decides_by_the_services_risk_never_the_forms(queue, remote, logged_in_client, forged):
    page = logged_in_client.get(reverse("agents:approvals"), {"approval": DELETE_ID}).content.decode()
    fields = decision_fields(page, DELETE_ID, "reject")
    assert "risk" not in fields  # the form carries no risk
    decide = remote.post(f"/v1/approvals/{DELETE_ID}")
    before = queue.call_count

    response = logged_in_client.post(
        reverse("agents:approval_decide", args=[DELETE_ID]), {**fields, "risk": forged, "decision": "approve"}, **HTMX
    )

    assert response["HX-Retarget"] == f"#approval-{DELETE_ID}-messages"
    assert texts(response.content, "[role=alert] p") == [
        "This destructive action needs a confirmation: use “Approve…” and check the exact input first."
    ]
    assert decide.call_count == 0
    # One read of the service before deciding: its pending list, narrowed to the agent.
    assert queue.call_count == before + 1
    assert dict(queue.calls.last.request.url.params) == {"status": "pending", "agent_id": AGENT_ID, "limit": "100"}


def test_an_approve_costs_one_read_before_the_decision_and_a_reject_none(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    decide = remote.post(f"/v1/approvals/{SEND_ID}").mock(
        return_value=httpx.Response(200, json={"approval": approval(status="approved"), "outcome": None})
    )
    for decision, reads_before in (("approve", 1), ("reject", 0)):
        listed = queue.call_count
        logged_in_client.post(
            reverse("agents:approval_decide", args=[SEND_ID]), decision_fields(page, SEND_ID, decision), **HTMX
        )
        order = [call.request.url.path for call in remote.calls][-4:]
        assert queue.call_count - listed == reads_before + 1  # + the re-read after it
        assert order[-3 - reads_before :] == [
            *(["/v1/approvals"] * reads_before),
            f"/v1/approvals/{SEND_ID}",
            "/v1/approvals",
            f"/v1/runs/{RUN_ID}",
        ]
    assert decide.call_count == 2


def test_an_approval_the_service_no_longer_lists_is_not_sent(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = decision_fields(page, SEND_ID, "approve")
    queue.mock(return_value=httpx.Response(200, json={"data": [], "next_cursor": None}))
    decide = remote.post(f"/v1/approvals/{SEND_ID}")

    response = logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, **HTMX)

    assert response["HX-Retarget"] == f"#approval-{SEND_ID}-messages"
    assert texts(response.content, "[role=alert] p") == [
        "The service no longer lists this approval (decided elsewhere, or removed): nothing was sent. "
        "Reload the page to see it as it is now."
    ]
    assert decide.call_count == 0
    # The pending list, then every status: it is nowhere.
    assert [call.request.url.params["status"] for call in queue.calls][-2:] == ["pending", "all"]


def test_an_approval_that_cannot_be_read_again_shows_the_services_error_and_is_not_sent(
    queue, remote, logged_in_client
):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = decision_fields(page, SEND_ID, "approve")
    queue.mock(
        return_value=httpx.Response(
            500, json={"error": {"type": "server_error", "message": "no"}, "request_id": "req_read"}
        )
    )
    decide = remote.post(f"/v1/approvals/{SEND_ID}")

    response = logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, **HTMX)

    assert response.status_code == 200
    assert response["HX-Retarget"] == f"#approval-{SEND_ID}-messages"
    box = text_of(one(response.content, "[role=alert]"))
    assert "The service had a problem" in box and "req_read" in box
    assert decide.call_count == 0


def test_a_confirmed_destructive_approval_keeps_the_note_in_the_audit_trail_and_re_reads_the_run(
    queue, remote, logged_in_client, user
):
    page = logged_in_client.get(reverse("agents:approvals"), {"approval": DELETE_ID}).content.decode()
    fields = {
        **decision_fields(page, DELETE_ID, "approve-confirmed"),
        "note": "Checked with Dana: stale test deals.",
        "risk": "low",  # forged: the audit keeps the service's risk
    }
    decide = remote.post(f"/v1/approvals/{DELETE_ID}").mock(return_value=httpx.Response(200, json={"result": None}))
    queue.mock(
        return_value=httpx.Response(
            200, json={"data": [approval(DELETE_ID, risk="destructive", status="approved")], "next_cursor": None}
        )
    )
    run = remote.get(f"/v1/runs/{RUN_ID}").mock(
        return_value=httpx.Response(200, json={"id": RUN_ID, "status": "completed", "answer": "Deleted 3 deals."})
    )

    body = logged_in_client.post(reverse("agents:approval_decide", args=[DELETE_ID]), fields, **HTMX).content

    assert json.loads(decide.calls.last.request.content) == {"decision": "approve"}
    assert decide.calls.last.request.headers["Idempotency-Key"] == fields["key_approve"]
    decided = one(body, f"li#approval-{DELETE_ID}")
    assert "approval--approved" in decided["class"]
    # The answer said nothing useful ("result": null): the re-read knows better.
    assert text_of(one(decided, ".approval__summary")) == "Delete 3 stale deals"
    assert text_of(one(decided, ".approval__outcome .run-status")) == "Completed" and run.call_count == 1
    assert "Deleted 3 deals." in text_of(one(decided, ".approval__outcome"))
    entry = AuditEntry.objects.get(idempotency_key=fields["key_approve"])
    assert (entry.kind, entry.user, entry.note, entry.status) == (
        AuditEntry.KIND_DECISION,
        user,
        "Checked with Dana: stale test deals.",
        200,
    )
    assert entry.summary == "Approved: Delete 3 stale deals" and entry.details["risk"] == "destructive"


def test_someone_who_is_not_an_approver_sees_the_queue_read_only_and_cannot_post(queue, remote, logged_in_client, user):
    person_role_set(user=user, role=Role.MEMBER)
    page = parse(logged_in_client.get(reverse("agents:approvals")).content)
    assert page.select("form.approval__actions") == []
    assert "Only Approvers decide approvals" in text_of(one(page, ".alert-info"))
    decide = remote.post(f"/v1/approvals/{SEND_ID}")
    response = logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), {"decision": "approve"}, **HTMX)
    assert "Only Approvers decide approvals" in text_of(one(response.content, "[role=alert]"))
    assert decide.call_count == 0


def test_a_viewer_never_sees_decide_buttons_even_as_an_approver(queue, api_key, logged_in_client):
    api_key.member_role = "viewer"
    api_key.save(update_fields=["member_role"])
    page = parse(logged_in_client.get(reverse("agents:approvals")).content)
    assert page.select("form.approval__actions") == [] and page.select("button[name=decision]") == []
    assert "Your role in this workspace is viewer" in text_of(one(page, ".alert-info"))


def test_always_allow_grants_made_through_the_console_are_listed(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = {**decision_fields(page, SEND_ID, "always"), "note": "Welcome emails are fine."}
    remote.post(f"/v1/approvals/{SEND_ID}").mock(
        return_value=httpx.Response(200, json={"approval": approval(status="approved", always=True)})
    )
    remote.get(f"/v1/runs/{RUN_ID}").mock(return_value=httpx.Response(200, json={"id": RUN_ID, "status": "running"}))
    logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, **HTMX)

    grants = texts(logged_in_client.get(reverse("agents:approvals")).content, ".approval-grants li")
    assert len(grants) == 1
    assert grants[0].startswith("Lead qualifier may take send actions — allowed by ")
    assert grants[0].endswith("“Welcome emails are fine.”")


def test_a_decision_answered_without_the_approval_still_shows_its_new_state(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals"), {"approval": DELETE_ID}).content.decode()
    remote.post(f"/v1/approvals/{DELETE_ID}").mock(
        return_value=httpx.Response(200, json={"outcome": {"status": "cancelled"}})
    )
    remote.get(f"/v1/runs/{RUN_ID}").mock(return_value=httpx.Response(200, json={"id": RUN_ID, "status": "cancelled"}))
    body = logged_in_client.post(
        reverse("agents:approval_decide", args=[DELETE_ID]), decision_fields(page, DELETE_ID, "reject"), **HTMX
    ).content.decode()
    assert one(body, "li.approval")["class"] == ["card", "approval", "approval--rejected"] and "Cancelled" in body
