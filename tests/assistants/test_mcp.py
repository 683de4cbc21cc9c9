"""The console's MCP server at /api/mcp, driven by the official `mcp` SDK's own
client over real HTTP (live_server) against a real sandbox: a token lists
exactly the tools its scopes allow now (a demotion narrows them at once);
reads and writes act as the token's person, "via token <name>" in the audit
trail; a record delete (and any write of an "ask first" token) becomes one
console approval, reaches the service only after an Approver approves it,
exactly once (a retried carry-out included), and never when rejected."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import anyio
import httpx
import httpx2
import pytest
from django.urls import reverse
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from dashboard.api.testing import RemoteCallCounter
from dashboard.assistants.models import AssistantRequest
from dashboard.assistants.services import assistant_request_carry_out
from dashboard.audit.models import AuditEntry
from dashboard.audit.testing import make_approver
from dashboard.live.models import TrackedOperation
from dashboard.outbox.models import OutboxMessage
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from dashboard.tokens.services import token_create
from sandbox.fixtures import create_every_type_object, sample_values
from tests.agents.support import store_demo_key
from tests.html import select, text_of

READ_TOOLS = {
    "inbox_list",
    "assistant_request_status",
    "approvals_list",
    "runs_list",
    "run_get",
    "records_list",
    "record_get",
    "studio_conversations_list",
    "studio_items_list",
}
RECORD_WRITES = {"record_create", "record_update", "record_delete"}


@pytest.fixture
def world(assistants_sandbox, settings, live_server, transactional_db, django_user_model):
    """Alice (a Member) and Bob (an Approver) with keys of the demo workspace, an object with two records."""
    settings.SERVICE_BASE_URL = assistants_sandbox.base_url
    alice = django_user_model.objects.create_user(username="alice", password="a long enough passphrase")
    bob = make_approver(django_user_model.objects.create_user(username="bob", password="another long passphrase"))
    key = store_demo_key(alice, assistants_sandbox)
    store_demo_key(bob, assistants_sandbox)
    service = httpx.Client(
        base_url=assistants_sandbox.base_url, headers={"Authorization": f"Bearer {assistants_sandbox.demo_key}"}
    )
    obj = create_every_type_object(service_adapter(service))
    records = [
        service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)}).json() for i in (1, 2)
    ]
    return {
        "url": f"{live_server.url}/api/mcp",
        "alice": alice,
        "bob": bob,
        "key": key,
        "object": obj["key"],
        "records": [r["id"] for r in records],
        "service": service,
    }


def service_adapter(http: httpx.Client):
    """What sandbox.fixtures expects of a client: post() answering parsed JSON."""

    class Adapter:
        def post(self, path, json):
            answer = http.post(path, json=json)
            answer.raise_for_status()
            return answer.json()

    return Adapter()


def token_of(world, scopes, *, user=None, ask_first=False, name="Claude in my IDE") -> str:
    return token_create(
        user=user or world["alice"],
        workspace_id=world["key"].workspace_id,
        name=name,
        scopes=list(scopes),
        days=30,
        allowed_from=[],
        ask_first=ask_first,
    ).token


def session(url: str, token: str, steps, mode: str = "auto"):
    """Run `steps(client)` with the SDK's client on an event loop of its own thread."""

    async def scenario():
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http), mode=mode) as client,
        ):
            return await steps(client)

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, scenario).result(timeout=300)


async def tool_names(client) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


def call(world, token, name, arguments):
    async def steps(client):
        return await client.call_tool(name, arguments)

    return session(world["url"], token, steps)


def record_exists(world, record_id: str) -> bool:
    return world["service"].get(f"/v1/objects/{world['object']}/records/{record_id}").status_code == 200


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_token_lists_exactly_the_tools_its_scopes_allow_now(world, mode):
    read_only = token_of(world, ["read"])
    writer = token_of(world, ["read", "write:objects"])
    approver = token_of(world, ["read", "decide"], user=world["bob"])

    assert session(world["url"], read_only, tool_names, mode) == READ_TOOLS
    assert session(world["url"], writer, tool_names, mode) == READ_TOOLS | RECORD_WRITES
    assert session(world["url"], approver, tool_names, mode) == READ_TOOLS | {"approval_decide"}

    # A demotion narrows the token at its next use: a Viewer's token writes nothing.
    person_role_set(user=world["alice"], role=Role.VIEWER)
    assert session(world["url"], writer, tool_names, mode) == READ_TOOLS
    refused = call(world, writer, "record_create", {"object": world["object"], "values": {"name": "X"}})
    assert refused.is_error is True
    assert refused.content[0].text == (
        "“record_create” is not one of this token's tools. Your role no longer allows “write:objects” "
        "(Write in Objects (records, imports)): the token is narrowed with it."
    )


def test_a_tool_the_token_may_not_use_is_refused_in_words_and_reaches_nothing(world, writes_seen):
    read_only = token_of(world, ["read"])
    answer = call(world, read_only, "record_delete", {"object": world["object"], "record_id": world["records"][0]})
    assert answer.is_error is True
    assert "This token was not given the scope “write:objects”" in answer.content[0].text
    bad = call(world, token_of(world, ["read"]), "record_get", {"object": world["object"]})
    assert bad.is_error is True and bad.content[0].text == "“record_id” is needed."
    missing = call(
        world,
        token_of(world, ["read"]),
        "record_get",
        {"object": world["object"], "record_id": "00000000-0000-4000-8000-000000000000"},
    )
    assert missing.is_error is True
    assert missing.content[0].text.startswith("Not found") and "(request id req_" in missing.content[0].text
    assert writes_seen.calls == [] and AssistantRequest.objects.count() == 0


def test_without_a_token_the_server_answers_401_in_words(world):
    answer = httpx.post(world["url"], json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "token_required"
    wrong_origin = httpx.post(
        world["url"],
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Authorization": f"Bearer {token_of(world, ['read'])}", "Origin": "https://evil.example"},
    )
    assert wrong_origin.status_code == 403
    # No stream to open on a stateless server: a GET is answered 405 (the protocol's word for it).
    stream = httpx.get(
        world["url"], headers={"Authorization": f"Bearer {token_of(world, ['read'])}", "Accept": "text/event-stream"}
    )
    assert stream.status_code == 405
    assert "Origin https://evil.example may not use" in wrong_origin.json()["error"]["message"]


def test_reads_cost_the_pages_calls_and_a_write_is_made_at_once_audited_via_the_token(world, writes_seen):
    token = token_of(world, ["read", "write:objects"], name="Release bot")
    with RemoteCallCounter() as calls:
        # The records table's own read (objects/records.py `records_read`: the access policy
        # and computed columns apply): the object's definition once, then cached, as the page.
        call(world, token, "records_list", {"object": world["object"], "limit": 5})
        assert calls.paths == [f"/v1/objects/{world['object']}", f"/v1/objects/{world['object']}/records"]
        calls.reset()
        listed = call(world, token, "records_list", {"object": world["object"], "limit": 5})
        assert calls.paths == [f"/v1/objects/{world['object']}/records"]  # the records page's one call
        calls.reset()
        inbox = call(world, token, "inbox_list", {})
        approvals = call(world, token, "approvals_list", {})
        conversations = call(world, token, "studio_conversations_list", {})
        assert calls.count == 0  # the console's own rows
    assert sorted(r["id"] for r in listed.structured_content["records"]) == sorted(world["records"])
    assert inbox.structured_content == {"items": []}
    assert approvals.structured_content == {"approvals": []}
    assert conversations.structured_content == {"conversations": []}

    made = call(
        world,
        token,
        "record_create",
        {"object": world["object"], "values": {"name": "From MCP"}, "idempotency_key": "k1"},
    )
    again = call(
        world,
        token,
        "record_create",
        {"object": world["object"], "values": {"name": "From MCP"}, "idempotency_key": "k1"},
    )
    assert made.is_error is False and made.structured_content["id"] == again.structured_content["id"]
    posts = [c for c in writes_seen.calls if c[0] == "POST"]
    assert len(posts) == 2 and len({c[2] for c in posts}) == 1  # one logical write, one key
    entry = AuditEntry.objects.get(method="POST", path__endswith="/records")
    assert entry.username == "alice" and entry.details["via"] == "token Release bot"
    assert "(via token Release bot)" in entry.summary
    assert AssistantRequest.objects.count() == 0


def held(answer) -> int:
    assert answer.is_error is False, answer.content[0].text
    body = answer.structured_content
    assert body["status"] == "waiting" and body["words"].startswith("Waiting for approval: Delete record")
    return body["request_id"]


def test_a_record_delete_waits_for_an_approver_then_is_made_exactly_once(world, client, writes_seen, broker_down):
    token = token_of(world, ["read", "write:objects"], ask_first=True)
    target = world["records"][0]
    arguments = {"object": world["object"], "record_id": target, "idempotency_key": "del-1"}

    request_id = held(call(world, token, "record_delete", arguments))
    assert held(call(world, token, "record_delete", arguments)) == request_id  # the assistant's retry: the same one
    other = call(world, token, "record_delete", {**arguments, "record_id": world["records"][1]})
    assert other.is_error is True and other.content[0].text.startswith(
        f"This idempotency_key was sent with other arguments for request {request_id}: nothing was asked."
    )
    assert AssistantRequest.objects.count() == 1
    assert writes_seen.calls == [] and record_exists(world, target)

    # The console's own queue shows it to an Approver with the token's name and the exact arguments.
    client.force_login(world["bob"])
    page = client.get(reverse("assistants:requests"))
    row = select(page.content, f"#assistant-request-{request_id}")[0]
    assert text_of(row.select_one(".assistant-request__token")) == "Claude in my IDE"
    assert text_of(row.select_one(".assistant-request__person")) == "alice"
    assert json.loads(json.dumps(AssistantRequest.objects.get().arguments)) == {
        "object": world["object"],
        "record_id": target,
    }
    assert f"'record_id': '{target}'" in text_of(row.select_one(".assistant-request__arguments"))

    # Its own person may not approve it; an Approver's approval waits in the outbox (broker down): nothing sent.
    client.force_login(world["alice"])
    assert client.post(reverse("assistants:decide", args=[request_id]), {"decision": "approve"}).status_code == 403
    client.force_login(world["bob"])
    client.post(reverse("assistants:decide", args=[request_id]), {"decision": "approve"})
    message = OutboxMessage.objects.get(task_name="assistants.carry_out")
    assert message.args == [request_id]
    assert writes_seen.calls == [] and record_exists(world, target)

    assert broker_down.back() == 1  # the task runs: the delete, once
    deletes = [c for c in writes_seen.calls if c[0] == "DELETE"]
    row = AssistantRequest.objects.get()
    assert len(deletes) == 1 and deletes[0][2] == row.idempotency_key
    assert row.status == AssistantRequest.Status.DONE and not record_exists(world, target)

    # Redelivered: a finished request is not carried out again.
    assistant_request_carry_out(request_id=request_id)
    assert len([c for c in writes_seen.calls if c[0] == "DELETE"]) == 1
    # A worker that died after the delete, before marking it done: the retry sends the same key.
    AssistantRequest.objects.filter(pk=request_id).update(status=AssistantRequest.Status.APPROVED, carrying_until=None)
    assistant_request_carry_out(request_id=request_id)
    keys = {c[2] for c in writes_seen.calls if c[0] == "DELETE"}
    assert keys == {row.idempotency_key}
    assert AssistantRequest.objects.get().status == AssistantRequest.Status.DONE

    entry = AuditEntry.objects.get(method="DELETE")  # one logical write, one entry
    assert entry.username == "alice" and entry.details["via"] == "token Claude in my IDE"
    status = call(world, token, "assistant_request_status", {"request_id": request_id}).structured_content
    assert status["status"] == "done" and status["words"].startswith("Approved by bob and carried out")


def test_a_rejected_request_never_reaches_the_service(world, client, writes_seen):
    token = token_of(world, ["read", "write:objects"])  # not "ask first": a delete waits anyway
    target = world["records"][1]
    request_id = held(call(world, token, "record_delete", {"object": world["object"], "record_id": target}))

    client.force_login(world["bob"])
    client.post(reverse("assistants:decide", args=[request_id]), {"decision": "reject", "note": "Keep it"})
    assistant_request_carry_out(request_id=request_id)  # even a forged task does nothing

    assert writes_seen.calls == [] and record_exists(world, target)
    assert not OutboxMessage.objects.filter(task_name="assistants.carry_out").exists()
    status = call(world, token, "assistant_request_status", {"request_id": request_id}).structured_content
    assert status["status"] == "rejected"
    assert status["words"] == (
        f"Rejected by bob: Delete record {target} of {world['object']}. Nothing was sent to the service. "
        "Their note: Keep it"
    )
    # Decided once: a second decision is refused in words.
    second = client.post(reverse("assistants:decide", args=[request_id]), {"decision": "approve"}, follow=True)
    assert "Already decided: Rejected by bob" in text_of(select(second.content, "#messages .alert-error")[0])


def test_an_ask_first_token_holds_every_write_and_reads_go_on(world, writes_seen):
    token = token_of(world, ["read", "write:objects"], ask_first=True)
    answer = call(
        world,
        token,
        "record_update",
        {"object": world["object"], "record_id": world["records"][0], "values": {"name": "X"}},
    )
    body = answer.structured_content
    assert body["status"] == "waiting" and "asks first" in body["words"]
    assert list(writes_seen.calls) == []
    assert (
        call(world, token, "record_get", {"object": world["object"], "record_id": world["records"][0]}).is_error
        is False
    )


def test_a_studio_turn_spends_credits_so_it_waits_then_starts_once(world, client, writes_seen):
    token = token_of(world, ["read", "write:studio"], name="Desk assistant")
    assert "studio_turn_start" in session(world["url"], token, tool_names)
    arguments = {"studio": "website", "message": "A page for the spring sale", "idempotency_key": "turn-1"}
    answer = call(world, token, "studio_turn_start", arguments).structured_content
    assert answer["status"] == "waiting" and "spends credits" in answer["words"]
    assert writes_seen.calls == [] and not TrackedOperation.objects.exists()

    client.force_login(world["bob"])
    client.post(reverse("assistants:decide", args=[answer["request_id"]]), {"decision": "approve"})
    assistant_request_carry_out(request_id=answer["request_id"])  # as the outbox's task would

    row = AssistantRequest.objects.get()
    turn = TrackedOperation.objects.get()
    assert row.status == AssistantRequest.Status.DONE and row.result["turn_id"] == turn.remote_id
    assert turn.started_by == world["alice"]
    posts = [c for c in writes_seen.calls if c[1] == "/v1/studio/website/turns"]
    assert len(posts) == 1 and posts[0][2] == row.idempotency_key
