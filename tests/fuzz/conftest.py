"""Fixtures of the fuzz suite: the sandbox served in-process behind respx
(plausible answers for every call, no sockets, no sleeping), a logged-in
console whose active key is a demo-workspace key of it, and the real ids
of its seeded workspace for the fuzzer to mix with hostile ones."""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx
import pytest

from dashboard.keys.models import ApiKey
from dashboard.keys.testing import stored_api_key
from dashboard.live import heartbeat
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from tests.helpers import mocked_service, use_fake_service

FUZZ_SERVICE_URL = "http://fuzz-sandbox.test"


@dataclass
class SeededIds:
    """Real ids of the in-process sandbox's demo workspace, and of the
    console's own rows made for them."""

    agent_id: list[str] = field(default_factory=list)
    run_id: list[str] = field(default_factory=list)
    approval_id: list[str] = field(default_factory=list)
    object_key: list[str] = field(default_factory=list)
    record_id: list[str] = field(default_factory=list)
    field_key: list[str] = field(default_factory=list)
    thread: list[str] = field(default_factory=list)
    pk: list[str] = field(default_factory=list)
    # Studio: Content Apps and the library.
    studio: list[str] = field(default_factory=lambda: ["image", "video"])
    app: list[str] = field(default_factory=lambda: ["generate", "remove-background", "motion", "story"])
    kind: list[str] = field(default_factory=lambda: ["websites", "documents", "apps", "boards", "images", "videos"])
    item_id: list[str] = field(default_factory=list)
    view_id: list[str] = field(default_factory=list)
    change_id: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def inprocess_sandbox():
    """The sandbox's WSGI app (its own in-memory SQLite, seeded) and a demo key."""
    from sandbox.core import Config
    from sandbox.seed import create_key
    from sandbox.server import build_app

    app = build_app(db_path=":memory:", config=Config(time_scale=0.002))
    yield app, create_key(app.store, app.clock, "demo", name="fuzz key")
    app.store.close()


@pytest.fixture
def fuzz_remote(settings, inprocess_sandbox, monkeypatch):
    """Every remote call of the console answered by the in-process sandbox."""
    app, _secret = inprocess_sandbox
    use_fake_service(settings, FUZZ_SERVICE_URL, max_retries=0)
    monkeypatch.setattr("dashboard.api.attempts.sleep_before_retry", lambda seconds: None)
    transport = httpx.WSGITransport(app=app)

    def forward(request: httpx.Request) -> httpx.Response:
        answered = transport.handle_request(request)
        # A new response with the body read: respx answers from its content.
        return httpx.Response(answered.status_code, headers=answered.headers, content=answered.read())

    with mocked_service(FUZZ_SERVICE_URL) as mock:
        mock.route().mock(side_effect=forward)
        yield mock


@pytest.fixture
def fuzz_key(fuzz_remote, inprocess_sandbox, user):
    _app, secret = inprocess_sandbox
    # An Administrator: the approvals decisions and the audit pages are fuzzed past their permission check.
    person_role_set(user=user, role=Role.ADMINISTRATOR)
    return stored_api_key(
        user=user,
        secret=secret,
        label="Fuzz",
        workspace_id="ws_acme",
        workspace_name="Acme Marketing",
        workspace_timezone="Europe/Berlin",
    )


def restore_console(client, user, secret: str) -> None:
    """Before each example: logged in, with an active key (an example may
    have logged out, deleted the key or switched to another)."""
    client.force_login(user)
    if not ApiKey.objects.filter(user=user, is_active=True).exists():
        stored_api_key(user=user, secret=secret, label="Fuzz", workspace_name="Acme Marketing")
    # Beat and a worker are running: a 503 from /readyz would then be the input's doing.
    heartbeat.beat_heartbeat_record()
    heartbeat.worker_heartbeat_record(queues=[heartbeat.default_queue()])


@pytest.fixture
def seeded_ids(fuzz_key, inprocess_sandbox, user, client) -> SeededIds:
    """Ids of the seeded workspace (read from the sandbox), plus a tracked
    Studio turn and chat message of the console's own."""
    from dashboard.live.models import TrackedOperation

    app, secret = inprocess_sandbox
    ids = SeededIds()
    with httpx.Client(
        transport=httpx.WSGITransport(app=app),
        base_url=FUZZ_SERVICE_URL,
        headers={"Authorization": f"Bearer {secret}"},
    ) as service:
        agents = service.get("/v1/agents", params={"limit": 100}).json()["data"]
        ids.agent_id = [agent["id"] for agent in agents]
        approvals = service.get("/v1/approvals", params={"status": "all", "limit": 100}).json()["data"]
        ids.approval_id = [approval["id"] for approval in approvals]
        for agent in agents[:3]:
            runs = service.get(f"/v1/agents/{agent['id']}/runs", params={"limit": 5}).json()["data"]
            ids.run_id += [run["id"] for run in runs]
            ids.thread += [run["thread_id"] for run in runs if run.get("thread_id")]
        for library_path in ("/v1/websites", "/v1/documents", "/v1/images/boards", "/v1/videos"):
            ids.item_id += [item["id"] for item in service.get(library_path, params={"limit": 3}).json()["data"]]
        objects = service.get("/v1/objects", params={"limit": 100}).json()["data"]
        for obj in objects:
            ids.object_key.append(obj["key"])
            ids.field_key += [f["key"] for f in obj.get("fields") or []]
            records = service.get(f"/v1/objects/{obj['key']}/records", params={"limit": 3}).json()
            ids.record_id += [record["id"] for record in records.get("data") or []]
    client.force_login(user)
    client.post("/studio/turns/", {"studio": "website", "message": "A page for the spring sale"})
    if ids.agent_id:
        client.post(f"/agents/{ids.agent_id[0]}/chat/send", {"message": "Hello"})
    ids.pk = [str(pk) for pk in TrackedOperation.objects.values_list("pk", flat=True)] + [str(fuzz_key.pk)]
    ids.pk.append(str(_approval_batch(user, fuzz_key).pk))
    ids.field_key = sorted(set(ids.field_key))
    ids.view_id, ids.change_id = _objects_rows(user, fuzz_key, ids)
    return ids


def _approval_batch(user, key):
    """A bulk decision of the person's (over, nothing in it), for its addresses."""
    import uuid

    from agents.models import ApprovalBatch

    return ApprovalBatch.objects.create(
        uid=uuid.uuid4(),
        workspace_id=key.workspace_id,
        owner_key=key,
        started_by=user,
        decision="reject",
        status="done",
    )


def _objects_rows(user, key, ids: SeededIds) -> tuple[list[str], list[str]]:
    """A saved view and a record's change of the Objects area, for their addresses."""
    from objects.models import RecordChange, SavedView

    if not ids.object_key or not ids.record_id:
        return [], []
    view = SavedView.objects.create(
        owner=user, workspace_id=key.workspace_id, object_key=ids.object_key[0], name="Fuzzed", shared=True
    )
    change = RecordChange.objects.create(
        workspace_id=key.workspace_id,
        object_key=ids.object_key[0],
        record_id=ids.record_id[0],
        user=user,
        actor=user.get_username(),
        changes=[{"field": ids.field_key[0] if ids.field_key else "name", "before": None, "after": "x"}],
    )
    return [str(view.pk)], [str(change.pk)]
