"""Every page fed bodies that another, independent implementation of the
contract may legally send (/work/shared/api-spec.md): list arrays under
other names, members the contract leaves "not shown" absent or of another
type, an approval without its agent's name, a relationship seen from its
other end, a decision answered without the approval. Each page answers 200,
shows what it knows, and never shows Python's str() of a dict or list."""

from __future__ import annotations

import re

import httpx
import pytest
from django.urls import reverse

from tests.html import one, parse, text_of, texts

AGENT_ID = "a1a1a1a1-0000-4000-8000-000000000001"
RUN_ID = "b2b2b2b2-0000-4000-8000-000000000002"
APPROVAL_ID = "c3c3c3c3-0000-4000-8000-000000000003"
RECORD_ID = "d4d4d4d4-0000-4000-8000-000000000004"
OTHER_ID = "e5e5e5e5-0000-4000-8000-000000000005"
THREAD_ID = "f6f6f6f6-0000-4000-8000-000000000006"

# Python's repr of a dict or list (never shown): {'a': or ['a' or [{'
PYTHON_REPR = re.compile(r"\{'[^']*': |\['[^']*'[,\]]|\[\{'")

AGENT_SUMMARY = {"id": AGENT_ID, "name": "Lead qualifier", "status": "active", "active_version_id": None}
AGENT = {
    **AGENT_SUMMARY,
    "profile": "Qualifies inbound leads",  # inner fields not shown: here a plain string
    "plan": {"nodes": [{"kind": "trigger"}, {"kind": "email", "config": ["to", "sales"]}], "edges": [["n1", "n2"]]},
    "wakeups": [{"kind": "webhook", "deployment": "live"}, "chat"],
    "schedule": {"cron": "0 9 * * *"},
    "validation": {"ready": False, "issues": ["Add a recipient", {"path": ["nodes", 1]}]},
    "pending_approvals": 2,
    "versions": [{"n": 1}],
}
RUN = {
    "id": RUN_ID,
    "status": "failed",
    "event": "webhook call",
    "steps": ["looked up the lead", {"kind": "email", "input": {"to": ["a@b.c"]}, "result": [1, 2], "error": None}],
    "tasks": [{"tools": ["search"]}],
    "approvals": [{"id": APPROVAL_ID, "status": "approved"}],
    "cost_usd": "0.12",
    "answer": {"text": "done"},
    "error": {"code": "E42", "detail": ["x"]},
}
APPROVAL = {
    # No agent_id, agent_name, run_id or created_at: the contract names none of them.
    "id": APPROVAL_ID,
    "summary": "Send the offer to a@b.c",
    "input": {"to": ["a@b.c"], "body": {"lines": ["Hi"]}},
    "risk": "send",
    "can_always_allow": True,
    "status": "pending",
}
OBJECT = {
    "id": "0b0b0b0b-0000-4000-8000-00000000000b",
    "key": "deals",
    "kind": "custom",
    "singular_name": "Deal",
    "plural_name": "Deals",
    "fields": [
        {"key": "name", "label": "Name", "type": "text", "required": True},
        {"key": "stage", "label": "Stage", "type": "stage", "options": ["Open", {"id": "won", "label": "Won"}]},
        {"key": "tags", "label": "Tags", "type": "multi_select", "options": [{"label": "Hot"}]},
        {"key": "amount", "label": "Amount", "type": "currency"},
        {"key": "due", "label": "Due", "type": "date"},
        {"key": "done", "label": "Done", "type": "boolean"},
    ],
    "views": [{"type": "table"}],
}
RECORD = {
    "id": RECORD_ID,
    "values": {
        "name": {"first": "Big", "last": "Deal"},  # not a string: shown as JSON
        "stage": {"id": "won", "label": "Won"},
        "tags": "Hot",
        "amount": "1200.50",
        "due": "2026-01-31T00:00:00Z",
        "done": "true",
    },
    "owner": {"id": "m1"},
}
RELATIONSHIPS = [
    # Seen from the other end: this record is the target.
    {"relation_key": "company", "direction": "incoming", "other": {"object": "companies", "id": OTHER_ID}},
    {"relation_key": "related_to", "direction": "outgoing", "target": {"object": {"key": "deals"}, "id": OTHER_ID}},
    {"relation_key": "owner", "other_object": "agents", "other_id": AGENT_ID, "label": ["odd"], "metadata": "x"},
]


def assert_readable(response) -> str:
    assert response.status_code == 200, response.status_code
    soup = parse(response.content)
    for hidden in soup(["script", "style"]):
        hidden.decompose()
    shown = text_of(soup)
    assert "Traceback" not in shown
    assert not PYTHON_REPR.search(shown), PYTHON_REPR.search(shown).group()
    return shown


@pytest.fixture
def agents_service(remote):
    remote.get("/v1/agents").mock(return_value=httpx.Response(200, json={"agents": [AGENT_SUMMARY]}))
    remote.get(f"/v1/agents/{AGENT_ID}").mock(return_value=httpx.Response(200, json=AGENT))
    remote.get(f"/v1/agents/{AGENT_ID}/runs").mock(return_value=httpx.Response(200, json={"runs": [RUN]}))
    remote.get(f"/v1/runs/{RUN_ID}").mock(return_value=httpx.Response(200, json=RUN))
    remote.get("/v1/approvals").mock(return_value=httpx.Response(200, json={"approvals": [APPROVAL]}))
    return remote


@pytest.fixture
def objects_service(remote):
    remote.get("/v1/objects").mock(return_value=httpx.Response(200, json={"objects": [OBJECT]}))
    remote.get("/v1/objects/deals").mock(return_value=httpx.Response(200, json=OBJECT))
    remote.get("/v1/objects/deals/records").mock(return_value=httpx.Response(200, json={"results": [RECORD]}))
    remote.get(f"/v1/objects/deals/records/{RECORD_ID}").mock(return_value=httpx.Response(200, json=RECORD))
    remote.get(f"/v1/objects/deals/records/{RECORD_ID}/relationships").mock(
        return_value=httpx.Response(200, json={"links": RELATIONSHIPS})
    )
    # The links' other ends, read for their titles (objects/names.py): a legal
    # record with only its values, one that is gone, one of a built-in object.
    companies = {"key": "companies", "kind": "custom", "fields": [{"key": "title", "label": "Title"}]}
    remote.get("/v1/objects/companies").mock(return_value=httpx.Response(200, json=companies))
    remote.get(f"/v1/objects/companies/records/{OTHER_ID}").mock(
        return_value=httpx.Response(200, json={"id": OTHER_ID, "values": {"title": "Initech"}})
    )
    gone = {"error": {"type": "not_found", "message": "gone"}, "request_id": "r1"}
    remote.get(f"/v1/objects/deals/records/{OTHER_ID}").mock(return_value=httpx.Response(404, json=gone))
    remote.get("/v1/objects/agents").mock(return_value=httpx.Response(200, json={"key": "agents", "kind": "system"}))
    remote.get(f"/v1/objects/agents/records/{AGENT_ID}").mock(
        return_value=httpx.Response(200, json={"id": AGENT_ID, "values": {"name": ["not", "a", "title"]}})
    )
    return remote


@pytest.mark.parametrize(
    ("url_name", "args", "query"),
    [
        ("agents:index", [], ""),
        ("agents:detail", [AGENT_ID], ""),
        ("agents:chat", [AGENT_ID], f"?thread={THREAD_ID}"),
        ("agents:run", [RUN_ID], ""),
        ("agents:approvals", [], ""),
        ("agents:webhook", [AGENT_ID], ""),
        ("agents:policy", [], ""),
        ("agents:approval_reinstruct", [APPROVAL_ID], ""),
    ],
)
def test_agents_pages_read_a_legal_implementations_bodies(agents_service, console, url_name, args, query):
    shown = assert_readable(console.get(reverse(url_name, args=args) + query))
    if url_name == "agents:approvals":
        assert "Send the offer to a@b.c" in shown
    if url_name == "agents:run":
        assert "looked up the lead" in shown and "E42" in shown


@pytest.mark.parametrize(
    ("grants", "words"),
    [
        (["send"], ["send"]),
        ([{"risk": "write", "granted_at": "2026-11-20T10:00:00Z"}, {"kind": "send"}], ["write", "send"]),
        ("send", ["send"]),
        ([{"no": "risk named"}, 7, None], ["7"]),
        ({"send": True}, []),
    ],
)
def test_the_policy_center_reads_grants_of_any_legal_shape(remote, console, grants, words):
    agent = {"id": AGENT_ID, "name": "Lead qualifier", "profile": {"always_allowed": grants}}
    remote.get("/v1/agents").mock(return_value=httpx.Response(200, json={"agents": [AGENT_SUMMARY]}))
    remote.get(f"/v1/agents/{AGENT_ID}").mock(return_value=httpx.Response(200, json=agent))
    response = console.get(reverse("agents:policy"))
    assert_readable(response)
    assert texts(response.content, ".policy-grant .risk") == words


def test_a_decision_answered_with_only_the_outcome_rereads_the_approval(agents_service, console):
    agents_service.post(f"/v1/approvals/{APPROVAL_ID}").mock(
        return_value=httpx.Response(200, json={"outcome": "the email was sent"})
    )
    form = one(console.get(reverse("agents:approvals")).content, f"li#approval-{APPROVAL_ID} form")
    fields = {field["name"]: field.get("value", "") for field in form.select("input[type=hidden]")}
    decision = "approve-confirmed" if form.select_one("button[value=approve-confirmed]") else "approve"

    response = console.post(
        reverse("agents:approval_decide", args=[APPROVAL_ID]), {**fields, "decision": decision}, HTTP_HX_REQUEST="true"
    )

    shown = assert_readable(response)
    assert "Send the offer to a@b.c" in shown  # re-read, not "(no summary)"
    assert "approval--approved" in response.content.decode()


@pytest.mark.parametrize(
    ("url_name", "args"),
    [
        ("objects:index", []),
        ("objects:records", ["deals"]),
        ("objects:record", ["deals", RECORD_ID]),
        ("objects:record_edit", ["deals", RECORD_ID]),
        ("objects:record_new", ["deals"]),
        ("objects:settings", ["deals"]),
        ("objects:relationship_picker", ["deals", RECORD_ID]),
        ("objects:kanban", ["deals"]),
        ("objects:calendar", ["deals"]),
        ("objects:gallery", ["deals"]),
        ("objects:chart", ["deals"]),
    ],
)
def test_objects_pages_read_a_legal_implementations_bodies(objects_service, console, url_name, args):
    shown = assert_readable(console.get(reverse(url_name, args=args)))
    if url_name == "objects:record":
        assert "Initech" in shown  # the other record by its title


def test_account_page_reads_a_minimal_identity(remote, console):
    remote.get("/v1/me").mock(
        return_value=httpx.Response(
            200,
            json={
                "workspace": {"id": "w1", "name": "Acme", "timezone": "Europe/Berlin"},
                "member": {"id": "m1", "role": "admin"},
                "key": {"id": "k1", "name": "ci", "prefix": "svc_sk_abcde", "created_at": "2026-01-01T00:00:00.000Z"},
            },
        )
    )
    assert "Acme" in assert_readable(console.get(reverse("account")))


def test_a_studio_turn_whose_202_body_names_its_id_otherwise_is_followed(remote, console):
    turn_id = "a7a7a7a7-0000-4000-8000-000000000007"
    remote.post("/v1/studio/website/turns").mock(return_value=httpx.Response(202, json={"turn_id": turn_id}))

    started = console.post(reverse("studio:start"), {"studio": "website", "message": "A page for the spring sale"})

    assert started.status_code == 302
    from dashboard.live.models import TrackedOperation

    op = TrackedOperation.objects.get()
    assert op.remote_id == turn_id
    TrackedOperation.objects.filter(pk=op.pk).update(
        status="failed",
        is_final=True,
        snapshot={"id": turn_id, "status": "failed", "error": {"code": "E1"}, "questions": ["Which colour?"]},
    )
    assert_readable(console.get(started["Location"]))


def test_the_inbox_reads_a_legal_implementations_approvals_and_runs(agents_service, console):
    """The refresh task reads another implementation's lists (under other
    names, no agent on the approval, no times, an error of its own shape);
    the inbox shows what it knows."""
    from dashboard.inbox.tasks import refresh_workspace
    from dashboard.keys.models import ApiKey

    refresh_workspace(ApiKey.objects.get().workspace_id)

    shown = assert_readable(console.get(reverse("inbox:index")))
    assert "Send the offer to a@b.c" in shown
    assert "A run of Lead qualifier failed" in shown and "E42" in shown
    assert "None" not in shown and "null" not in shown


def test_an_object_answered_without_its_key_is_known_by_its_address(remote, console):
    """The contract's object has a key, but an answer that leaves it out must
    not break the pages that link by it: the address names the object."""
    keyless = {name: value for name, value in OBJECT.items() if name != "key"}
    remote.get("/v1/objects/deals").mock(return_value=httpx.Response(200, json=keyless))

    shown = assert_readable(console.get(reverse("objects:settings", args=["deals"])))
    saved = console.post(reverse("objects:settings_save", args=["deals"]), {})

    assert "Deals" in shown
    assert saved.status_code == 200
    links = [a["href"] for a in parse(saved.content).select("a[href]")]
    assert reverse("objects:records", args=["deals"]) in links
