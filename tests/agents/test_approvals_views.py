"""The approvals queue with the service mocked (respx): what a row shows,
the decision sent with the row's own Idempotency-Key, a double post, a second
decision (409) re-read in place, and every other remote error in place."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from django.urls import reverse

from tests.agents.support import form_keys

AGENT_ID = "11111111-1111-4111-8111-111111111111"
SEND_ID = "aaaaaaaa-0000-4000-8000-000000000001"
DELETE_ID = "aaaaaaaa-0000-4000-8000-000000000002"
RUN_ID = "bbbbbbbb-0000-4000-8000-000000000001"
HTMX = {"HTTP_HX_REQUEST": "true"}


def approval(approval_id: str = SEND_ID, *, risk: str = "send", status: str = "pending", **extra) -> dict:
    body = {
        "id": approval_id,
        "agent_id": AGENT_ID,
        "run_id": RUN_ID,
        "summary": "Send the welcome email to dana@example.com" if risk == "send" else "Delete 3 stale deals",
        "input": {"to": "dana@example.com", "subject": "Welcome", "body": "Hi Dana"}
        if risk == "send"
        else {"ids": [1, 2, 3]},
        "risk": risk,
        "can_always_allow": risk in ("send", "write"),
        "status": status,
        "created_at": "2026-11-21T09:30:00.000Z",
    }
    body.update(extra)
    return body


def agents_page() -> httpx.Response:
    return httpx.Response(
        200, json={"data": [{"id": AGENT_ID, "name": "Lead qualifier", "status": "active"}], "next_cursor": None}
    )


@pytest.fixture
def queue(remote, api_key):
    """The pending queue: a `send` approval then a `destructive` one."""
    listing = remote.get("/v1/approvals").mock(
        return_value=httpx.Response(
            200,
            json={"data": [approval(), approval(DELETE_ID, risk="destructive")], "next_cursor": "cur_2"},
            headers={"X-Request-Id": "req_list"},
        )
    )
    remote.get("/v1/agents").mock(return_value=agents_page())
    return listing


def row_html(html: str, approval_id: str) -> str:
    return html.split(f'id="approval-{approval_id}"', 1)[1].split("</li>", 1)[0]


def decision_fields(html: str, approval_id: str, label: str) -> dict:
    """The hidden fields of the row's form whose button says `label`."""
    for form in re.findall(r"<form .*?</form>", row_html(html, approval_id), flags=re.S):
        if f">{label}</button>" in form:
            return dict(re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)"', form))
    raise AssertionError(f"no {label} button")


def test_the_queue_shows_each_pending_approval_in_the_services_order(queue, logged_in_client):
    response = logged_in_client.get(reverse("agents:approvals"))
    body = response.content.decode()

    assert response.status_code == 200
    assert body.index(SEND_ID) < body.index(DELETE_ID)
    first = row_html(body, SEND_ID)
    assert "Send the welcome email to dana@example.com" in first
    assert "risk--send" in first and "Lead qualifier" in first
    assert "&quot;to&quot;: &quot;dana@example.com&quot;" in first  # the exact input, as JSON
    assert "21 Nov 2026, 10:30 CET" in first  # requested, in the workspace's time zone
    assert ">Always allow</button>" in first
    assert ">Always allow</button>" not in row_html(body, DELETE_ID)  # destructive: can_always_allow false
    assert "risk--destructive" in row_html(body, DELETE_ID)
    # One key per decision, all different.
    keys = form_keys(body)
    assert len(keys) == 5 and len(set(keys)) == 5
    params = dict(queue.calls.last.request.url.params)
    assert params["status"] == "pending"
    assert "cursor=cur_2" in body  # the next page


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
    assert body.lstrip().startswith('<div id="approval-list">')
    assert "<html" not in body


def test_approve_sends_the_decision_with_the_rendered_key_and_shows_the_outcome(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = decision_fields(page, SEND_ID, "Approve")
    decide = remote.post(f"/v1/approvals/{SEND_ID}").mock(
        return_value=httpx.Response(
            200,
            json={
                "approval": approval(status="approved", decided_at="2026-11-21T09:31:00.000Z"),
                "outcome": {
                    "id": RUN_ID,
                    "status": "completed",
                    "answer": "Approved and done: sent the email.",
                    "steps": [{"kind": "email", "input": {"to": "dana@example.com"}, "result": {"sent": True}}],
                },
            },
        )
    )

    response = logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, **HTMX)
    body = response.content.decode()

    assert response.status_code == 200
    sent = decide.calls.last.request
    assert sent.headers["Idempotency-Key"] == fields["idempotency_key"]
    assert json.loads(sent.content) == {"decision": "approve"}
    assert body.lstrip().startswith(f'<li id="approval-{SEND_ID}" class="card approval approval--approved"')
    assert "Approved and done: sent the email." in body
    assert "Outcome reported by the service" in body and "sent" in body
    assert f'href="/runs/{RUN_ID}/"' in body
    assert "<form" not in body  # decided: no more buttons


def test_posting_the_same_decision_twice_sends_the_same_key(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = decision_fields(page, SEND_ID, "Reject")
    decide = remote.post(f"/v1/approvals/{SEND_ID}").mock(
        return_value=httpx.Response(
            200, json={"approval": approval(status="rejected"), "outcome": {"id": RUN_ID, "status": "cancelled"}}
        )
    )
    logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, **HTMX)
    logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), fields, **HTMX)

    assert decide.call_count == 2
    assert {call.request.headers["Idempotency-Key"] for call in decide.calls} == {fields["idempotency_key"]}
    assert all(json.loads(call.request.content) == {"decision": "reject"} for call in decide.calls)


def test_always_allow_sends_always_and_has_its_own_key(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    always = decision_fields(page, SEND_ID, "Always allow")
    approve = decision_fields(page, SEND_ID, "Approve")
    decide = remote.post(f"/v1/approvals/{SEND_ID}").mock(
        return_value=httpx.Response(200, json={"approval": approval(status="approved", always=True), "outcome": None})
    )
    body = logged_in_client.post(reverse("agents:approval_decide", args=[SEND_ID]), always, **HTMX).content.decode()
    assert json.loads(decide.calls.last.request.content) == {"decision": "approve", "always": True}
    assert always["idempotency_key"] != approve["idempotency_key"]
    assert "allowed always from now on" in body


def test_a_second_decision_says_already_decided_and_re_reads_the_row(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = decision_fields(page, SEND_ID, "Approve")
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
    assert "Already decided" in body and "req_409" in body
    assert 'class="card approval approval--rejected"' in body
    reread = dict(queue.calls.last.request.url.params)
    assert reread["status"] == "all" and reread["agent_id"] == AGENT_ID


def test_without_javascript_a_decision_lands_back_on_the_queue_with_a_message(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = decision_fields(page, SEND_ID, "Approve")
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
    fields = decision_fields(page, SEND_ID, "Approve")
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
    assert response["HX-Retarget"] == f"#approval-{SEND_ID}-messages"
    assert expected in body and f"req_{status}" in body
    assert "Traceback" not in body and "svc_sk_" not in body


def test_a_tampered_decision_is_refused_in_the_row_and_nothing_is_sent(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    fields = {**decision_fields(page, DELETE_ID, "Reject"), "always": "True"}
    decide = remote.post(f"/v1/approvals/{DELETE_ID}")
    response = logged_in_client.post(reverse("agents:approval_decide", args=[DELETE_ID]), fields, **HTMX)
    assert response["HX-Retarget"] == f"#approval-{DELETE_ID}-messages"
    assert "Only an approval can be allowed always." in response.content.decode()
    assert decide.call_count == 0


def test_a_decision_answered_without_the_approval_still_shows_its_new_state(queue, remote, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    remote.post(f"/v1/approvals/{DELETE_ID}").mock(
        return_value=httpx.Response(200, json={"outcome": {"status": "cancelled"}})
    )
    body = logged_in_client.post(
        reverse("agents:approval_decide", args=[DELETE_ID]), decision_fields(page, DELETE_ID, "Reject"), **HTMX
    ).content.decode()
    assert 'class="card approval approval--rejected"' in body and "Cancelled" in body
