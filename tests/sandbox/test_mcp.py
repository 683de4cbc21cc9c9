"""The sandbox's MCP server at /v1/mcp, driven by the official `mcp` SDK's own
client over real HTTP, in every protocol era the seed serves: 2026-07-28
(stateless, no handshake) and the initialize handshake of 2025-03-26,
2025-06-18 and 2025-11-25."""

from __future__ import annotations

import json
import threading
import uuid
from contextlib import asynccontextmanager

import anyio
import httpx
import httpx2
import jsonschema
import mcp.client.session as client_session
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from sandbox.mcp_server import SEED_TOOLS
from tests.helpers import running_sandbox

ERAS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]


@pytest.fixture(scope="module")
def mcp_sandbox():
    """A sandbox of this module's own: tools write objects, records and turns."""
    with running_sandbox() as handle:
        yield handle


@asynccontextmanager
async def connect(handle, era: str, key: str | None = None):
    """The SDK's client at `era`: the handshake eras through `initialize` (the client
    asks for that version), 2026-07-28 pinned (no handshake)."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key or handle.demo_key}"}, timeout=60)
    transport = streamable_http_client(f"{handle.base_url}/v1/mcp", http_client=http)
    if era == "2026-07-28":
        async with Client(transport, mode=era) as client:
            yield client
        return
    asked = client_session.LATEST_HANDSHAKE_VERSION
    client_session.LATEST_HANDSHAKE_VERSION = era
    try:
        async with Client(transport, mode="legacy") as client:
            yield client
    finally:
        client_session.LATEST_HANDSHAKE_VERSION = asked


def run(coro_fn, *args):
    """Run a client scenario on an event loop of its own thread (whatever loop the test
    process's main thread already runs, as browser tests' do)."""
    outcome: dict = {}

    def target():
        try:
            outcome["value"] = anyio.run(coro_fn, *args)
        except BaseException as exc:  # re-raised in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="mcp-client")
    thread.start()
    thread.join(timeout=300)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@pytest.mark.parametrize("era", ERAS)
def test_each_era_lists_exactly_the_seed_tools_with_valid_schemas_and_reads(mcp_sandbox, era):
    async def scenario():
        async with connect(mcp_sandbox, era) as client:
            tools = (await client.list_tools()).tools
            me = await client.call_tool("account_me", {})
            with pytest.raises(MCPError) as unknown:  # a protocol fault: a JSON-RPC error, not a result
                await client.call_tool("no_such_tool", {})
            return client.protocol_version, tools, me, unknown.value

    version, tools, me, unknown = run(scenario)
    assert "no_such_tool" in unknown.error.message
    assert version == era
    assert sorted(t.name for t in tools) == sorted(SEED_TOOLS) and len(tools) == 31
    for tool in tools:
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert tool.description and tool.title
    rest = httpx.get(f"{mcp_sandbox.base_url}/v1/me", headers={"Authorization": f"Bearer {mcp_sandbox.demo_key}"})
    assert me.is_error is False
    assert me.structured_content == rest.json()
    assert json.loads(me.content[0].text) == rest.json()


def test_tools_are_the_routes_arguments_flattened_with_their_hints(mcp_sandbox):
    async def scenario():
        async with connect(mcp_sandbox, "2026-07-28") as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    tools = run(scenario)
    records = tools["objects_records_list"].input_schema
    assert {"object", "filter", "search", "sort", "limit", "cursor"} <= set(records["properties"])
    assert records["required"] == ["object"]
    create = tools["objects_records_create"].input_schema
    assert {"object", "values", "idempotency_key"} <= set(create["properties"])
    assert set(create["required"]) == {"object", "values"}
    assert "stream" not in tools["studio_website_turn"].input_schema["properties"]
    assert tools["studio_website_turn"].input_schema["properties"]["background"]["default"] is True
    run_tool = tools["agents_runs_create"].input_schema
    assert not jsonschema.Draft202012Validator(run_tool).is_valid({"id": str(uuid.uuid4())})  # message or payload
    objects_create = jsonschema.Draft202012Validator(tools["objects_create"].input_schema)
    assert not objects_create.is_valid(
        {"singular_name": "A", "plural_name": "B", "fields": [{"label": "K", "type": "select"}]}
    )
    assert tools["agents_get"].annotations.read_only_hint is True
    assert tools["objects_records_delete"].annotations.destructive_hint is True
    assert tools["objects_records_update"].annotations.destructive_hint is False
    assert tools["objects_records_update"].annotations.idempotent_hint is True
    assert "idempotency_key" not in tools["agents_get"].input_schema["properties"]


@pytest.mark.parametrize("era", ["2025-06-18", "2026-07-28"])
def test_a_write_replays_with_its_key_and_refuses_another_body_with_the_same_key(mcp_sandbox, era):
    suffix = uuid.uuid4().hex[:8]
    body = {"singular_name": "Lead", "plural_name": f"Leads {suffix}", "fields": [{"label": "Name"}]}

    async def scenario():
        async with connect(mcp_sandbox, era) as client:
            first = await client.call_tool("objects_create", {**body, "idempotency_key": f"mcp-{suffix}"})
            again = await client.call_tool("objects_create", {**body, "idempotency_key": f"mcp-{suffix}"})
            other = await client.call_tool(
                "objects_create", {**body, "plural_name": f"Others {suffix}", "idempotency_key": f"mcp-{suffix}"}
            )
            record = {"object": first.structured_content["key"], "values": {"name": "Ada"}}
            without_key = [await client.call_tool("objects_records_create", record) for _ in range(2)]
            return first, again, other, without_key

    first, again, other, without_key = run(scenario)
    assert first.is_error is False and first.structured_content["plural_name"] == f"Leads {suffix}"
    assert again.structured_content == first.structured_content
    assert other.is_error is True
    assert other.structured_content["status"] == 409
    assert other.structured_content["error"]["type"] == "conflict"
    assert other.structured_content["request_id"] in other.content[0].text
    assert without_key[0].structured_content["id"] != without_key[1].structured_content["id"]  # no key: two records


def test_service_errors_are_error_results_with_the_rest_message(mcp_sandbox):
    async def scenario():
        async with connect(mcp_sandbox, "2025-11-25", key=mcp_sandbox.mint_key("no_credits")) as client:
            broke = await client.call_tool(
                "objects_create",
                {"singular_name": "A", "plural_name": f"As {uuid.uuid4().hex[:8]}", "fields": [{"label": "N"}]},
            )
        async with connect(mcp_sandbox, "2026-07-28") as client:
            refused = await client.call_tool(
                "objects_records_create", {"object": "deals", "values": {"no_such_field": 1}}
            )
            missing = await client.call_tool("agents_get", {"id": str(uuid.uuid4())})
        return broke, refused, missing

    broke, refused, missing = run(scenario)
    assert broke.is_error and broke.structured_content["status"] == 402
    assert broke.structured_content["error"]["type"] == "insufficient_credits"
    assert refused.is_error and refused.structured_content["status"] == 422
    assert "no_such_field" in refused.structured_content["error"]["message"]
    assert missing.is_error and missing.structured_content["status"] == 404
    for result in (broke, refused, missing):
        assert result.structured_content["error"]["message"] in result.content[0].text
        assert result.structured_content["request_id"].startswith("req_")


@pytest.mark.parametrize("era", ["2025-03-26", "2026-07-28"])
def test_a_turn_runs_in_the_background_by_default_and_waits_with_progress(mcp_sandbox, era):
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value, total, message):
        progress.append((value, message))

    async def scenario():
        async with connect(mcp_sandbox, era) as client:
            background = await client.call_tool("studio_document_turn", {"message": "A one-pager on our spring offer"})
            waited = await client.call_tool(
                "studio_document_turn",
                {"message": "Write a one-pager about the spring launch", "auto": True, "background": False},
                progress_callback=on_progress,
            )
            return background, waited

    background, waited = run(scenario)
    assert background.is_error is False and background.structured_content["status"] in ("building", "needs_input")
    assert waited.is_error is False and waited.structured_content["status"] == "completed"
    assert waited.structured_content["object"] == "studio.turn"
    assert len(progress) >= 3  # turn, plan, one status per step...
    assert [value for value, _ in progress] == sorted(value for value, _ in progress)
    assert any(message and message.startswith("Plan: ") for _, message in progress)


def test_http_refusals_in_front_of_the_protocol(mcp_sandbox):
    url = f"{mcp_sandbox.base_url}/v1/mcp"
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    accept = {"Accept": "application/json, text/event-stream"}
    missing = httpx.post(url, json=hello, headers=accept, timeout=30)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert missing.json()["error"]["type"] == "authentication"
    wrong = httpx.post(url, json=hello, headers={**accept, "Authorization": "Bearer svc_sk_" + "x" * 30}, timeout=30)
    assert wrong.status_code == 401 and bearer_params(wrong)["error"] == "invalid_token"
    key = {**accept, "Authorization": f"Bearer {mcp_sandbox.demo_key}"}
    foreign = httpx.post(url, json=hello, headers={**key, "Origin": "https://evil.example"}, timeout=30)
    assert foreign.status_code == 403 and foreign.json()["error"]["type"] == "permission"
    local = httpx.post(url, json=hello, headers={**key, "Origin": "http://localhost:3000"}, timeout=30)
    assert local.status_code == 200
    # An older version is answered with the newest handshake version (negotiation).
    old = httpx.post(
        url, json={**hello, "params": {**hello["params"], "protocolVersion": "2024-11-05"}}, headers=key, timeout=30
    )
    assert _jsonrpc(old)["result"]["protocolVersion"] == "2025-11-25"
    # Protocol faults are JSON-RPC errors.
    broken = httpx.post(url, content=b"{not json", headers={**key, "Content-Type": "application/json"}, timeout=30)
    assert broken.status_code == 400 and broken.json()["error"]["code"] == -32700
    modern = {**key, "MCP-Protocol-Version": "2026-07-28"}
    unknown = httpx.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "no/such"}, headers=modern, timeout=30)
    assert "error" in _jsonrpc(unknown) and _jsonrpc(unknown)["error"]["code"] in (-32601, -32600, -32602)


def bearer_params(response: httpx.Response) -> dict:
    """The auth-params of `WWW-Authenticate: Bearer realm="...", error="..."` (RFC 6750)."""
    scheme, _, params = response.headers["www-authenticate"].partition(" ")
    assert scheme == "Bearer"
    pairs = (part.strip().split("=", 1) for part in params.split(","))
    return {name: value.strip().strip('"') for name, value in pairs}


def _jsonrpc(response: httpx.Response) -> dict:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[len("data: ") :] for line in response.text.splitlines() if line.startswith("data: ")]
        return json.loads(data[-1])
    return response.json()


def test_closing_the_stream_cancels_the_wait_not_the_turn():
    # A slower clock than the module's: the director works ~2 real seconds, long enough to hang up.
    with running_sandbox(time_scale=0.05) as handle:
        first: list[str] = []
        scopes: list[anyio.CancelScope] = []

        async def on_progress(value, total, message):
            first.append(message)
            scopes[0].cancel()  # the client stops waiting: its request's stream closes

        async def scenario():
            async with connect(handle, "2026-07-28") as client:
                with anyio.CancelScope() as scope:
                    scopes.append(scope)
                    await client.call_tool(
                        "studio_document_turn",
                        {"message": "Write a one-pager about the spring launch", "auto": True, "background": False},
                        progress_callback=on_progress,
                    )
                after = await client.call_tool("account_me", {})  # the server goes on serving
                return after

        after = run(scenario)
        assert after.is_error is False
        assert first and first[0].startswith("Turn ")
        turn_id = first[0].split(" ")[1]
        rest = {"Authorization": f"Bearer {handle.demo_key}"}
        turn = httpx.get(f"{handle.base_url}/v1/turns/{turn_id}", headers=rest).json()
        assert turn["status"] == "building"  # the turn goes on without the client
        handle.advance(service_seconds=120)
        assert httpx.get(f"{handle.base_url}/v1/turns/{turn_id}", headers=rest).json()["status"] == "completed"
