"""The queue as a manager scans it (respx, and the console's database):
the open queue's poll (204 unchanged, new approvals appended out of band,
zero remote calls), the detail (a pane or a page of its own), the risk and
age filters, and who decided a decided one."""

from __future__ import annotations

import json

import httpx
import pytest
from django.urls import reverse
from django.utils import timezone

from agents import queue as agents_queue
from dashboard.audit.models import AuditEntry
from dashboard.audit.testing import make_approver
from dashboard.keys.testing import stored_api_key
from tests.agents.support import AGENT_ID, DELETE_ID, HTMX, SEND_ID, approval, store
from tests.html import one, parse, root_ids, select, text_of, texts

NEW_ID = "aaaaaaaa-0000-4000-8000-000000000003"


@pytest.fixture(autouse=True)
def approver(user):
    return make_approver(user)


@pytest.fixture
def service(remote, api_key):
    listing = remote.get("/v1/approvals").mock(
        return_value=httpx.Response(200, json={"data": [approval(), approval(DELETE_ID, risk="destructive")]})
    )
    remote.get("/v1/agents").mock(
        return_value=httpx.Response(200, json={"data": [{"id": AGENT_ID, "name": "Lead qualifier"}]})
    )
    return listing


def poll_of(html) -> str:
    return one(html, "#approval-queue-poll")["hx-get"]


def test_the_open_queue_takes_in_a_new_approval_without_touching_the_rows_shown(
    service, remote, api_key, logged_in_client
):
    store(api_key.workspace_id, approval())
    page = parse(logged_in_client.get(reverse("agents:approvals")).content)
    assert texts(page, "#approval-counts .risk") == ["1 send", "1 destructive"]  # kept, and read by the page
    poll = poll_of(page)
    calls = len(remote.calls)

    # Nothing new: 204, nothing rendered.
    unchanged = logged_in_client.get(poll, **HTMX)
    assert unchanged.status_code == 204 and unchanged.content == b""

    # The refresh stored a new one: it is appended, with the counts and the poll's new version.
    store(api_key.workspace_id, approval(NEW_ID, risk="destructive"), name="Stale deal cleaner")
    news = logged_in_client.get(poll, **HTMX)
    assert news.status_code == 200 and json.loads(news["HX-Trigger"]) == {"inbox-changed": {}}
    body = parse(news.content)
    appended = one(body, "[hx-swap-oob='beforeend:#approval-queue']")
    assert [li["id"] for li in appended.select("li")] == [f"queue-item-{NEW_ID}"]  # the shown one is not repeated
    assert "Stale deal cleaner" in text_of(appended) and "waiting" in text_of(appended)
    assert texts(body, "#approval-counts .risk") == ["1 send", "1 destructive"]
    assert "shown=" in poll_of(body) and NEW_ID in poll_of(body)
    assert logged_in_client.get(poll_of(body), **HTMX).status_code == 204
    assert len(remote.calls) == calls  # the poll never calls the service


def test_the_polls_new_rows_follow_the_pages_filters(service, api_key, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals"), {"risk": "send"}).content
    store(api_key.workspace_id, approval(NEW_ID, risk="destructive"))
    body = logged_in_client.get(poll_of(page), **HTMX).content
    assert select(body, f"#queue-item-{NEW_ID}") == []


def test_risk_and_age_filters_look_through_a_full_page_of_the_services(service, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals"), {"risk": "destructive", "age": "1d"}).content
    assert [li["data-approval-id"] for li in select(page, "#approval-queue > li")] == [DELETE_ID]
    assert dict(service.calls.last.request.url.params)["limit"] == "100"
    # Bad values fall back to "any".
    page = logged_in_client.get(reverse("agents:approvals"), {"risk": "nonsense", "age": "1y"}).content
    assert len(select(page, "#approval-queue > li")) == 2


def test_an_approval_opens_in_the_pane_or_as_its_own_page(service, logged_in_client):
    url = reverse("agents:approval", args=[DELETE_ID])
    pane = logged_in_client.get(url, **HTMX).content.decode()
    assert root_ids(pane) == ["ul", "div"] and one(pane, "ul.approval-detail")  # the detail and its claim, no page
    assert one(pane, f"li#approval-{DELETE_ID} details.approval__confirm")  # the confirmation is kept
    page = logged_in_client.get(url).content
    assert texts(page, "main a")[:2] == ["← Back to the approvals", "Lead qualifier"] and one(
        page, f"li#approval-{DELETE_ID} form.approval__actions"
    )


def test_an_approval_the_service_does_not_list_is_not_found(service, logged_in_client):
    assert logged_in_client.get(reverse("agents:approval", args=[NEW_ID])).status_code == 404


def test_decided_ones_say_who_decided_and_when(remote, service, api_key, logged_in_client):
    decided = approval(status="approved", decided_at="2026-11-21T10:00:00.000Z")
    by_service = approval(DELETE_ID, risk="destructive", status="rejected", decided_by={"name": "Morgan Member"})
    service.mock(return_value=httpx.Response(200, json={"data": [decided, by_service]}))
    AuditEntry.objects.create(
        username="dana", workspace_id=api_key.workspace_id, method="POST", path=f"/v1/approvals/{SEND_ID}", status=200
    )
    page = logged_in_client.get(reverse("agents:approvals"), {"status": "all"}).content
    first, second = select(page, "#approval-queue > li")
    assert "by dana" in text_of(first) and "21 Nov, 11:00" in text_of(first)  # the workspace's zone
    assert "by Morgan Member" in text_of(second)
    assert "decided by dana" in text_of(one(page, f"li#approval-{SEND_ID} .approval__meta"))


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(30, "waiting under a minute"), (600, "waiting 10 min"), (7300, "waiting 2 h"), (3 * 86400, "waiting 3 days")],
)
def test_time_waited_in_words(seconds, words):
    from datetime import timedelta

    now = timezone.now()
    assert agents_queue.waited_words(now - timedelta(seconds=seconds), now) == words


@pytest.mark.parametrize(
    ("body", "who"),
    [
        ({"decided_by": "dana@example.com"}, "dana@example.com"),
        ({"decided_by": {"display_name": "Dana"}}, "Dana"),
        ({"decided_by": ["Morgan"]}, "Morgan"),
        ({"decided_by": {"id": "x"}}, ""),
        ({"decided_by": None}, ""),
        ("not an object", ""),
    ],
)
def test_who_decided_is_read_tolerantly(body, who):
    assert agents_queue.decided_by_service(body) == who


def minutes_ago(minutes: int) -> str:
    return (timezone.now() - timezone.timedelta(minutes=minutes)).isoformat()


def test_each_line_and_the_card_show_the_time_left_or_overdue(service, logged_in_client, settings):
    settings.APPROVAL_DEADLINE_MINUTES = {"send": 60, "destructive": 60}
    service.mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    approval(created_at=minutes_ago(20)),
                    approval(DELETE_ID, risk="destructive", created_at=minutes_ago(90)),
                ]
            },
        )
    )
    page = logged_in_client.get(reverse("agents:approvals")).content
    on_time, late = (one(line, ".deadline") for line in select(page, "#approval-queue > li"))
    assert text_of(on_time).endswith("min left") and "deadline--overdue" not in on_time["class"]
    assert text_of(late) == "Overdue by 30 min" and "deadline--overdue" in late["class"]
    card = one(page, f"#approval-detail li#approval-{SEND_ID}")  # the first one is selected
    assert text_of(one(card, ".approval__head .deadline")) == text_of(on_time)


def test_the_detail_card_has_the_claim_reinstruct_and_a_counted_note(service, api_key, logged_in_client, other_user):
    make_approver(other_user)  # an approver holding a key of the workspace: someone to assign it to
    stored_api_key(user=other_user, secret="svc_sk_other0123456789abcdefghijklmnop", workspace_id=api_key.workspace_id)
    url = reverse("agents:approval", args=[SEND_ID])
    shown = "http://testserver" + reverse("agents:approvals") + "?risk=send"
    pane = logged_in_client.get(url, HTTP_HX_CURRENT_URL=shown, **HTMX).content
    card = one(pane, f"li#approval-{SEND_ID}")
    assert len(select(card, "form")) == 1  # the row keeps its one form: the claim is beside it
    claim = one(pane, ".approval__claim .reach-claim form")
    assert texts(claim, "button") == ["I'm on it", "Assign"]
    assert texts(claim, "select option") == [other_user.username]
    back = one(claim, "input[name=next]")["value"]
    assert back == reverse("agents:approvals") + f"?risk=send&approval={SEND_ID}"  # the queue as filtered
    assert one(card, "a[href$='/reinstruct']")["href"] == reverse("agents:approval_reinstruct", args=[SEND_ID])
    note = one(card, "form.approval__actions textarea[name=note]")
    assert not note.has_attr("maxlength") and note.has_attr("data-max-length")

    fields = {i["name"]: i["value"] for i in select(claim, "input[type=hidden]")} | {"action": "claim"}
    claimed = logged_in_client.post(reverse("reach:claim"), fields)
    assert claimed.status_code == 302 and claimed["Location"] == back
    page = logged_in_client.get(back).content
    assert text_of(one(page, "#approval-detail .reach-claim .badge")) == "alice is on it"
    assert texts(page, "#approval-detail .reach-claim button") == ["Release", "Assign"]


def test_the_claim_is_only_on_the_queues_card_the_inbox_places_its_own(service, logged_in_client):
    page = logged_in_client.get(reverse("agents:approvals")).content
    assert len(select(page, ".reach-claim")) == 1  # the selected card's, none in the list's lines
    run_rows = parse(logged_in_client.get(reverse("agents:approval", args=[SEND_ID])).content)
    assert len(select(run_rows, ".reach-claim")) == 1  # its own page (phones, no JavaScript)


def test_each_line_says_who_is_on_it_and_assigned_to_me_keeps_mine(
    service, api_key, user, other_user, logged_in_client
):
    from dashboard.reach.models import Claim

    Claim.objects.create(workspace_id=api_key.workspace_id, item_key=f"approval:{SEND_ID}", user=other_user)
    Claim.objects.create(
        workspace_id=api_key.workspace_id, item_key=f"approval:{DELETE_ID}", user=user, assigned_by=other_user
    )
    page = logged_in_client.get(reverse("agents:approvals")).content.decode()
    assert text_of(one(page, f"#queue-item-{SEND_ID} .approval-item__claim")) == "bob is on it"
    assert text_of(one(page, f"#queue-item-{DELETE_ID} .approval-item__claim")) == "Assigned to you"

    mine = logged_in_client.get(reverse("agents:approvals"), {"mine": "1"}).content.decode()
    assert [line["data-approval-id"] for line in select(mine, "[data-queue-item]")] == [DELETE_ID]
    assert one(mine, "#approval-agent-filter-mine").has_attr("checked")
    assert select(mine, "#approval-queue-poll") == []  # a new approval is nobody's yet
    assert dict(service.calls.last.request.url.params)["limit"] == "100"  # a full page looked through


def test_stop_allowing_says_so_in_the_audit_trail(remote, api_key, logged_in_client):
    from dashboard.audit.wording import entries_in_words

    agent = {"id": AGENT_ID, "name": "Policy mailer", "profile": {"always_allowed": ["send"]}}
    remote.patch(f"/v1/agents/{AGENT_ID}").mock(return_value=httpx.Response(200, json={"message": "Done."}))
    remote.get(f"/v1/agents/{AGENT_ID}").mock(
        return_value=httpx.Response(200, json={**agent, "profile": {"always_allowed": []}})
    )
    remote.get("/v1/agents").mock(return_value=httpx.Response(200, json={"data": [agent]}))
    key = "k" * 32
    logged_in_client.post(
        reverse("agents:grant_revoke", args=[AGENT_ID]), {"risk": "send", "understood": "on", "idempotency_key": key}
    )
    entry = AuditEntry.objects.get(idempotency_key=key)
    assert entry.method == "PATCH" and entry.status == 200
    [worded] = entries_in_words([entry], workspace_id=api_key.workspace_id)
    assert worded.words == "Asked the builder to stop always allowing send actions of Policy mailer"


def test_a_decision_the_console_made_itself_names_the_console(db):
    # A deadline's outcome is decided by the console (no person): its entry has no username.
    AuditEntry.objects.create(
        workspace_id="ws-1", kind=AuditEntry.KIND_DECISION, method="POST", path=f"/v1/approvals/{SEND_ID}", status=200
    )

    assert agents_queue.deciders(workspace_id="ws-1", approval_ids=[SEND_ID]) == {SEND_ID: "the console"}
