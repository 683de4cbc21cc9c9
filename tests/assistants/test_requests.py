"""Assistant requests without the protocol: the Approvers' page stays flat as
requests pile up, its own person cannot approve one, and a carry-out refuses
in words what is no longer allowed, tries a transient failure again later
with the same Idempotency-Key (through the outbox), and gives up in words."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from dashboard.api import errors
from dashboard.assistants import services
from dashboard.assistants.models import AssistantRequest
from dashboard.assistants.tools import AssistantTool, ToolCall
from dashboard.audit.testing import make_approver
from dashboard.frame.areas import Area, register_area, unregister_area
from dashboard.frame.workspace import Workspace
from dashboard.inbox.selectors import header_version, inbox_items
from dashboard.inbox.sources import InboxViewer
from dashboard.keys.testing import stored_api_key
from dashboard.outbox.models import OutboxMessage
from dashboard.tokens.models import AccessToken
from dashboard.tokens.scopes import WRITE_OBJECTS
from dashboard.tokens.services import token_create, token_revoke
from objects.assistant_tools import RECORD_TOOLS
from objects.records import READ_ONLY
from tests.html import select, text_of

pytestmark = pytest.mark.django_db

SECRET = "svc_sk_asst0123456789abcdefghijklmnopqrstuvwxyzABCD"
SEEN: list[ToolCall] = []


def flaky(call: ToolCall) -> dict:
    SEEN.append(call)
    raise errors.ServerError("The service is down", status=503, request_id="req_down")


@pytest.fixture
def flaky_tool():
    """A throwaway area's write tool that always meets a service outage."""
    tool = AssistantTool(
        name="garden_water", title="Water", description="", scope=WRITE_OBJECTS, run=flaky, writes=True
    )
    register_area(Area(name="garden", order=99, mcp_tools=(tool,)))
    SEEN.clear()
    yield tool
    unregister_area("garden")


@pytest.fixture
def token(user):
    key = stored_api_key(user=user, secret=SECRET)
    return token_create(
        user=user, workspace_id=key.workspace_id, name="Bot", scopes=["read", "write:objects"], days=7, allowed_from=[]
    ).row


def asked(token, tool, n: int = 0) -> AssistantRequest:
    return services.assistant_request_make(
        tool=tool, token=token, workspace_id=token.workspace_id, arguments={"n": n}, reason="Ask first."
    )


def approved(row: AssistantRequest, by) -> AssistantRequest:
    return services.assistant_request_decide(row=row, user=by, approve=True)


def held_many(token, start: int, stop: int) -> None:
    AssistantRequest.objects.bulk_create(
        AssistantRequest(
            user=token.user,
            token=token,
            token_name="Bot",
            workspace_id=token.workspace_id,
            tool="garden_water",
            arguments={"n": n},
            summary=f"Water {n}",
            reason="Ask first.",
            idempotency_key=f"k{n}",
        )
        for n in range(start, stop)
    )


def test_the_requests_page_costs_the_same_queries_at_50_and_1000(token, flaky_tool, other_user, client):
    make_approver(other_user)
    stored_api_key(user=other_user, secret=SECRET)
    client.force_login(other_user)
    client.get(reverse("assistants:requests"))
    costs = {}
    for count, more in ((50, (0, 50)), (1000, (50, 1000))):
        held_many(token, *more)
        with CaptureQueriesContext(connection) as queries:
            page = client.get(reverse("assistants:requests"))
        costs[count] = len(queries)
        assert len(select(page.content, ".assistant-request")) == min(count, 100)
        assert text_of(select(page.content, "#waiting-heading")[0]) == f"Waiting ({count})"
    assert costs[50] == costs[1000]
    assert text_of(select(page.content, "#waiting-more")[0]).startswith("The oldest 100 are shown; 1000 wait in all.")


def test_its_own_person_may_not_approve_it(token, flaky_tool, user):
    make_approver(user)
    row = asked(token, flaky_tool)
    with pytest.raises(services.DecisionRefused, match="another Approver decides it"):
        approved(row, user)
    assert AssistantRequest.objects.get().status == AssistantRequest.Status.WAITING
    assert not OutboxMessage.objects.exists()


def test_a_revoked_token_is_not_carried_out_and_says_so(token, flaky_tool, other_user):
    row = approved(asked(token, flaky_tool), make_approver(other_user))
    token_revoke(token=token, by=token.user)
    services.assistant_request_carry_out(request_id=row.pk)
    row.refresh_from_db()
    assert SEEN == []
    assert row.status == AssistantRequest.Status.FAILED
    assert row.error == "The token “Bot” was revoked or expired before it was carried out."


def test_an_outage_is_tried_again_later_with_the_same_key_then_fails_in_words(token, flaky_tool, other_user):
    row = approved(asked(token, flaky_tool), make_approver(other_user))
    for attempt in range(1, services.CARRY_ATTEMPTS + 1):
        services.assistant_request_carry_out(request_id=row.pk)
        row.refresh_from_db()
        assert row.attempts == attempt
    assert {call.idempotency_key for call in SEEN} == {row.idempotency_key} and len(SEEN) == services.CARRY_ATTEMPTS
    assert [call.via for call in SEEN] == ["token Bot"] * services.CARRY_ATTEMPTS
    # The approval's message, then one retry per transient failure but the last, each later (countdown).
    messages = list(OutboxMessage.objects.filter(task_name="assistants.carry_out").order_by("id"))
    assert [m.args for m in messages] == [[row.pk]] * services.CARRY_ATTEMPTS
    assert all(m.run_at is not None for m in messages[1:])
    assert row.status == AssistantRequest.Status.FAILED
    assert row.error.startswith("The service could not be reached: ")
    assert "(request id req_down)" in row.error


def test_a_read_only_member_key_is_refused_in_the_pages_words_and_nothing_is_held(user, flaky_tool):
    key = stored_api_key(user=user, secret=SECRET, member_role="viewer")
    token = token_create(
        user=user, workspace_id=key.workspace_id, name="Bot", scopes=["write:objects"], days=7, allowed_from=[]
    ).row

    delete = next(tool for tool in RECORD_TOOLS if tool.name == "record_delete")
    outcome = services.tool_call(
        tool=delete, token=token, workspace=Workspace(user, workspace_id=key.workspace_id), arguments={"object": "x"}
    )
    assert outcome.refused == f"Your role in this workspace (viewer) can only read. {READ_ONLY}"
    assert not AssistantRequest.objects.exists()


def test_ask_first_is_chosen_on_the_tokens_page(user, logged_in_client):
    key = stored_api_key(user=user, secret=SECRET)
    logged_in_client.post(
        reverse("tokens:new"),
        {
            "name": "IDE",
            "workspace_id": key.workspace_id,
            "scopes": ["read", "write:objects"],
            "days": "30",
            "ask_first": "on",
        },
    )
    page = logged_in_client.get(reverse("tokens:list"))

    assert AccessToken.objects.get().ask_first is True
    assert "ask first: every write waits for an Approver" in text_of(select(page.content, "tr[id^=token-]")[0])


def test_an_approver_finds_a_waiting_request_in_the_inbox_and_its_person_does_not(
    token, flaky_tool, user, other_user, client, django_capture_on_commit_callbacks
):
    make_approver(user)
    make_approver(other_user)
    stored_api_key(user=other_user, secret=SECRET)
    before = header_version(user=other_user)
    with django_capture_on_commit_callbacks(execute=True):
        row = asked(token, flaky_tool)
    assert header_version(user=other_user) != before  # the header's count is read again
    bob = inbox_items(viewer=InboxViewer(user=other_user, workspace_id=token.workspace_id))
    assert [(item.key, item.started_by) for item in bob] == [(f"assistant:{row.pk}", "alice via token “Bot”")]
    assert inbox_items(viewer=InboxViewer(user=user, workspace_id=token.workspace_id)) == []
    client.force_login(other_user)
    page = client.get(reverse("inbox:index"))
    link = select(page.content, f"a[href$='#assistant-request-{row.pk}']")
    assert link and text_of(link[0]) == row.summary

    approved(row, other_user)
    assert inbox_items(viewer=InboxViewer(user=other_user, workspace_id=token.workspace_id)) == []


def test_two_workers_one_carry_out_the_other_looks_again_once_the_claim_lapses(token, flaky_tool, other_user):
    row = approved(asked(token, flaky_tool), make_approver(other_user))
    assert services._claim(row.pk) is True  # the first worker holds it
    before = OutboxMessage.objects.count()
    services.assistant_request_carry_out(request_id=row.pk)  # the second: nothing sent to the service
    assert SEEN == []
    latest = OutboxMessage.objects.order_by("-id").first()
    assert OutboxMessage.objects.count() == before + 1
    assert (latest.task_name, latest.args) == ("assistants.carry_out", [row.pk])
    assert latest.run_at is not None  # once the first one's claim lapses


@pytest.fixture
def destructive_tool():
    """A throwaway area's destructive write (as record_delete is), meeting an outage if carried out."""
    tool = AssistantTool(
        name="garden_uproot",
        title="Uproot",
        description="",
        scope=WRITE_OBJECTS,
        run=flaky,
        writes=True,
        destructive=True,
        needs_person="Uprooting always waits for an Approver.",
    )
    register_area(Area(name="garden", order=99, mcp_tools=(tool,)))
    SEEN.clear()
    yield tool
    unregister_area("garden")


def test_approving_a_destructive_request_asks_the_approver_for_a_fresh_code_and_keeps_the_note(
    token, destructive_tool, other_user, client, settings
):
    from tests.agents.decide_support import app_for, code_for

    settings.STEP_UP_RISKS = ["destructive", "spend"]  # off for the rest of the suite (tests/conftest.py)
    settings.STEP_UP_SECONDS = 300
    make_approver(other_user)
    stored_api_key(user=other_user, secret=SECRET)
    client.force_login(other_user)
    row = asked(token, destructive_tool)
    decide = reverse("assistants:decide", args=[row.pk])

    # No second factor yet: said on the card; approving is refused in words, rejecting stays possible.
    page = client.get(reverse("assistants:requests")).content
    assert "needs a second factor" in text_of(select(page, f"#assistant-request-{row.pk} .field-error")[0])
    refused = client.post(decide, {"decision": "approve", "note": "Checked the garden"})
    assert refused.status_code == 400
    assert "set up two-factor sign-in first" in text_of(select(refused.content, f"#refused-{row.pk}")[0])

    # With an app: the code field on the card; approving without it, or with a wrong one, is refused in
    # place with the note as typed, and nothing is decided or carried out.
    device = app_for(other_user)
    page = client.get(reverse("assistants:requests")).content
    field = select(page, f"#step-up-{row.pk}")[0]
    assert field["name"] == "step_up_code" and field["autocomplete"] == "one-time-code"
    for code, said in (("", "Enter the code from your authenticator app"), ("000000", "That code is not right")):
        answer = client.post(decide, {"decision": "approve", "note": "Checked the garden", "step_up_code": code})
        assert answer.status_code == 400
        assert said in text_of(select(answer.content, f"#refused-{row.pk}")[0])
        assert select(answer.content, f"#note-{row.pk}")[0]["value"] == "Checked the garden"
        row.refresh_from_db()
        assert row.status == AssistantRequest.Status.WAITING
    assert not OutboxMessage.objects.exists() and SEEN == []

    done = client.post(
        decide, {"decision": "approve", "note": "Checked", "step_up_code": code_for(device, steps_ahead=1)}
    )
    assert done.status_code == 302
    row.refresh_from_db()
    assert row.status == AssistantRequest.Status.APPROVED and row.decided_by == other_user
    # Fresh for STEP_UP_SECONDS in this session: the next one asks no code.
    second = asked(token, destructive_tool, n=1)
    assert not select(client.get(reverse("assistants:requests")).content, f"#step-up-{second.pk}")


def test_a_studio_turn_is_a_spend_and_a_record_delete_destructive():
    from dashboard.assistants.registry import tool_named
    from dashboard.assistants.tools import tool_risk

    assert tool_risk(tool_named("studio_turn_start")) == "spend"
    assert tool_risk(tool_named("record_delete")) == "destructive"
    assert tool_risk(tool_named("record_create")) == ""
