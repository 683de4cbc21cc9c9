"""Records through the console's API against a real sandbox over HTTP: the
list is the records table's read (flat in remote calls and queries from 50
to 1,000 records), an edit sends only what the caller changed and answers a
change made meanwhile with 409 and both values (nothing sent, never a lost
update), a create retried with its key is made once, a delete goes to the
trash and comes back by a restore job, and an undo of a bulk edit is a job
of the one engine."""

from __future__ import annotations

import json
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dashboard.api import ServiceClient
from dashboard.api.testing import RemoteCallCounter
from dashboard.audit.models import AuditEntry
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from dashboard.tokens.scopes import READ, WRITE_OBJECTS
from objects.models import JobItem, ObjectJob, RecordChange, TrashedRecord
from tests.agents.support import store_demo_key
from tests.console_api.support import error_of, send, token_for
from tests.html import select, text_of
from tests.objects.jobs_support import drain, run_jobs_inline

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(api_sandbox, settings, user):
    settings.SERVICE_BASE_URL = api_sandbox.base_url
    key = store_demo_key(user, api_sandbox)
    service = ServiceClient(api_key=api_sandbox.demo_key)
    suffix = uuid.uuid4().hex[:6]
    obj = service.post(
        "/v1/objects",
        json={
            "singular_name": f"Deal {suffix}",
            "plural_name": f"Deals {suffix}",
            "title_field": "name",
            "fields": [
                {"label": "Name", "key": "name", "type": "text", "required": True},
                {"label": "Seats", "key": "seats", "type": "number"},
                {"label": "Notes", "key": "notes", "type": "long_text"},
            ],
        },
    )
    token = token_for(user, key.workspace_id, (READ, WRITE_OBJECTS), name="Sync script")
    person_role_set(user=user, role=Role.MEMBER)
    return {
        "key": key,
        "service": service,
        "object": obj,
        "token": token,
        "records": f"/api/v1/objects/{obj['key']}/records",
    }


def _stored(api_sandbox, record_id: str) -> dict:
    return api_sandbox.store.get("record", record_id)["values"]


def test_an_edit_changed_meanwhile_is_a_409_with_both_values_and_nothing_is_sent(world, api_sandbox, client):
    service, records, token = world["service"], world["records"], world["token"]
    record = service.post(
        f"/v1/objects/{world['object']['key']}/records", json={"values": {"name": "Acme", "seats": 10}}
    )
    read = send(client, "GET", f"{records}/{record['id']}", token).json()
    # Someone else changes the name in the product meanwhile.
    service.patch(
        f"/v1/objects/{world['object']['key']}/records/{record['id']}", json={"values": {"name": "Acme Corp"}}
    )

    with RemoteCallCounter() as calls:
        answer = send(
            client,
            "PATCH",
            f"{records}/{record['id']}",
            token,
            {"values": {"name": "Acme Inc", "seats": 12}, "shown": read["values"]},
            HTTP_IDEMPOTENCY_KEY="rename-1",
        )

    assert answer.status_code == 409
    assert error_of(answer)["code"] == "edit_conflict"
    assert 'Name is now "Acme Corp" (you read "Acme")' in error_of(answer)["message"]
    assert json.loads(answer.content)["conflicts"] == [
        {"field": "name", "label": "Name", "shown": "Acme", "yours": "Acme Inc", "theirs": "Acme Corp"}
    ]
    # Nothing was sent: not the name, not the seats beside it (the edit is one).
    assert [path for path in calls.paths if "records" in path] == [
        f"/v1/objects/{world['object']['key']}/records/{record['id']}"
    ]
    assert _stored(api_sandbox, record["id"]) == {"name": "Acme Corp", "seats": 10}

    # Settled by the caller: it read theirs, and sends its own change against it.
    settled = send(
        client,
        "PATCH",
        f"{records}/{record['id']}",
        token,
        {"values": {"name": "Acme Inc", "seats": 12}, "shown": {"name": "Acme Corp", "seats": 10}},
        HTTP_IDEMPOTENCY_KEY="rename-2",
    )
    assert settled.status_code == 200, settled.content
    assert settled.json()["changed"] == ["name", "seats"]
    assert _stored(api_sandbox, record["id"]) == {"name": "Acme Inc", "seats": 12}


def test_an_edit_sends_only_what_the_caller_changed_and_a_retry_sends_nothing_again(world, api_sandbox, client):
    service, records, token = world["service"], world["records"], world["token"]
    record = service.post(
        f"/v1/objects/{world['object']['key']}/records", json={"values": {"name": "Beta", "seats": 3}}
    )
    # Someone else writes notes meanwhile: a field the caller did not change is never reverted.
    service.patch(f"/v1/objects/{world['object']['key']}/records/{record['id']}", json={"values": {"notes": "Theirs"}})
    body = {"values": {"name": "Beta", "seats": 4, "notes": None}, "shown": {"name": "Beta", "seats": 3, "notes": None}}

    first = send(client, "PATCH", f"{records}/{record['id']}", token, body, HTTP_IDEMPOTENCY_KEY="seats-4")
    with RemoteCallCounter() as calls:
        again = send(client, "PATCH", f"{records}/{record['id']}", token, body, HTTP_IDEMPOTENCY_KEY="seats-4")

    assert first.status_code == 200 and first.json()["changed"] == ["seats"]
    assert _stored(api_sandbox, record["id"]) == {"name": "Beta", "seats": 4, "notes": "Theirs"}
    # The retry finds it already so: one read, no write, the same answer's record.
    assert again.status_code == 200 and again.json()["changed"] == []
    assert calls.paths == [f"/v1/objects/{world['object']['key']}/records/{record['id']}"]
    history = RecordChange.objects.filter(record_id=record["id"])
    assert [entry.changes for entry in history] == [[{"field": "seats", "label": "Seats", "before": 3, "after": 4}]]
    assert AuditEntry.objects.filter(idempotency_key="seats-4", method="PATCH").count() == 1

    # A change without what it was made against is refused: the console cannot tell a lost update.
    blind = send(
        client,
        "PATCH",
        f"{records}/{record['id']}",
        token,
        {"values": {"seats": 9}, "shown": {}},
        HTTP_IDEMPOTENCY_KEY="k",
    )
    assert blind.status_code == 422 and error_of(blind)["code"] == "shown_required"
    unknown = send(client, "POST", records, token, {"values": {"colour": "red"}}, HTTP_IDEMPOTENCY_KEY="k")
    assert unknown.status_code == 422 and "has no field colour" in error_of(unknown)["message"]


def test_a_create_retried_with_its_key_is_made_once(world, api_sandbox, client):
    records, token = world["records"], world["token"]
    body = {"values": {"name": "Gamma", "seats": 7}}

    first = send(client, "POST", records, token, body, HTTP_IDEMPOTENCY_KEY="create-gamma")
    again = send(client, "POST", records, token, body, HTTP_IDEMPOTENCY_KEY="create-gamma")

    assert first.status_code == 201 and again.status_code == 201
    assert first.json()["id"] == again.json()["id"]
    named = [r for r in api_sandbox.store.list("record") if r["values"].get("name") == "Gamma"]
    assert len(named) == 1
    assert RecordChange.objects.filter(record_id=first.json()["id"], action="create").count() == 1
    audited = AuditEntry.objects.get(idempotency_key="create-gamma")
    assert audited.details["via"] == "token Sync script" and audited.user == world["key"].user
    # The service's own refusal of the values keeps its status and its request id, in the one body.
    refused = send(client, "POST", records, token, {"values": {"seats": 3}}, HTTP_IDEMPOTENCY_KEY="no-name")
    assert refused.status_code == 422 and error_of(refused)["code"] == "service_error"
    assert error_of(refused)["message"].startswith("The service said:")
    missing = send(client, "POST", records, token, body)
    assert missing.status_code == 400 and error_of(missing)["code"] == "idempotency_key_required"


def _object_of(service, api_sandbox, count: int) -> dict:
    """An object with `count` records (straight into the sandbox's store: the posts would only time the setup)."""
    suffix = uuid.uuid4().hex[:6]
    obj = service.post(
        "/v1/objects",
        json={
            "singular_name": f"Seat {suffix}",
            "plural_name": f"Seats {suffix}",
            "title_field": "name",
            "fields": [
                {"label": "Name", "key": "name", "type": "text", "required": True},
                {"label": "Seats", "key": "seats", "type": "number"},
            ],
        },
    )
    workspace_id = api_sandbox.store.get("object", obj["id"])["workspace_id"]
    api_sandbox.store.insert_many(
        "record",
        [{"object_id": obj["id"], "values": {"name": f"Deal {i:04d}", "seats": i}} for i in range(count)],
        workspace_id=workspace_id,
    )
    return obj


def test_the_records_list_is_flat_in_remote_calls_and_queries_from_50_to_1000_records(world, api_sandbox, client):
    token, seen = world["token"], {}
    for count in (50, 1000):
        obj = _object_of(world["service"], api_sandbox, count)
        records = f"/api/v1/objects/{obj['key']}/records"
        send(client, "GET", "/api/v1/me", token)  # its "last used" just written: not in the count below
        with RemoteCallCounter() as calls, CaptureQueriesContext(connection) as queries:
            first = send(client, "GET", f"{records}?limit=50&sort=seats", token)
        body = first.json()
        assert first.status_code == 200 and [r["values"]["seats"] for r in body["data"]] == list(range(50))
        assert body["more"] is (count > 50)
        # The definition (then cached) and one page of records: the records table's read.
        assert calls.paths == [f"/v1/objects/{obj['key']}", f"/v1/objects/{obj['key']}/records"]
        with RemoteCallCounter() as warm:
            send(client, "GET", f"{records}?limit=50&sort=seats", token)
        assert warm.paths == [f"/v1/objects/{obj['key']}/records"]
        seen[count] = (len(calls.paths), len(queries))
        if body["next"]:
            with RemoteCallCounter() as next_calls:
                second = send(client, "GET", f"{records}?limit=50&sort=seats&cursor={body['next']}", token)
            assert [r["values"]["seats"] for r in second.json()["data"]] == list(range(50, 100))
            assert next_calls.count == 1
    assert seen[50] == seen[1000], seen


def test_a_delete_goes_to_the_trash_and_a_restore_brings_it_back_once(world, api_sandbox, client, monkeypatch):
    service, records, token = world["service"], world["records"], world["token"]
    sent = run_jobs_inline(monkeypatch)
    record = service.post(
        f"/v1/objects/{world['object']['key']}/records", json={"values": {"name": "Delta", "seats": 1}}
    )

    deleted = send(client, "DELETE", f"{records}/{record['id']}", token, HTTP_IDEMPOTENCY_KEY="delete-delta")
    retried_delete = send(client, "DELETE", f"{records}/{record['id']}", token, HTTP_IDEMPOTENCY_KEY="delete-delta")
    assert deleted.status_code == 200, deleted.content
    assert retried_delete.status_code == 200 and retried_delete.json() == deleted.json()  # the same trash row
    assert AuditEntry.objects.filter(idempotency_key="delete-delta", method="DELETE").count() == 1
    assert api_sandbox.store.get("record", record["id"]) is None
    trash = send(client, "GET", f"/api/v1/objects/{world['object']['key']}/trash", token).json()
    assert [(row["record_id"], row["title"], row["values"]) for row in trash["data"]] == [
        (record["id"], "Delta", {"name": "Delta", "notes": None, "seats": 1})
    ]
    restore = f"/api/v1/objects/{world['object']['key']}/trash/{trash['data'][0]['id']}/restore"

    started = send(client, "POST", restore, token, HTTP_IDEMPOTENCY_KEY="restore-delta")
    retried = send(client, "POST", restore, token, HTTP_IDEMPOTENCY_KEY="restore-delta")
    assert started.status_code == 202 and retried.json()["id"] == started.json()["id"]
    drain(sent)

    job = send(client, "GET", f"/api/v1/objects/jobs/{started.json()['id']}", token).json()
    assert (job["kind"], job["status"], job["succeeded"]) == ("restore", "done", 1)
    new_id = TrashedRecord.objects.get(record_id=record["id"]).restored_id
    assert {k: v for k, v in _stored(api_sandbox, new_id).items() if v is not None} == {"name": "Delta", "seats": 1}
    assert len([r for r in api_sandbox.store.list("record") if r["values"].get("name") == "Delta"]) == 1
    # The old id says where the record went.
    moved = send(client, "GET", f"{records}/{record['id']}", token)
    assert moved.status_code == 404 and new_id in error_of(moved)["message"]
    gone = send(client, "POST", restore, token, HTTP_IDEMPOTENCY_KEY="restore-again")
    assert gone.status_code == 404 and error_of(gone)["code"] == "not_in_trash"


def test_an_undo_of_a_bulk_edit_is_a_job_that_puts_the_values_back(world, api_sandbox, client, user, monkeypatch):
    service, token, key = world["service"], world["token"], world["key"]
    object_key = world["object"]["key"]
    sent = run_jobs_inline(monkeypatch)
    record = service.post(f"/v1/objects/{object_key}/records", json={"values": {"name": "Epsilon", "seats": 5}})
    service.patch(f"/v1/objects/{object_key}/records/{record['id']}", json={"values": {"seats": 50}})
    edit = ObjectJob.objects.create(
        uid=uuid.uuid4(),
        owner_key=key,
        started_by=user,
        workspace_id=key.workspace_id,
        object_key=object_key,
        kind=ObjectJob.KIND_EDIT,
        title="Set Seats to 50",
        status=ObjectJob.DONE,
        params={"changes": {"seats": 50}},
        total=1,
        succeeded=1,
    )
    JobItem.objects.create(job=edit, position=0, record_id=record["id"], state=JobItem.DONE, before={"seats": 5})

    undo = send(client, "POST", f"/api/v1/objects/jobs/{edit.pk}/undo", token, HTTP_IDEMPOTENCY_KEY="undo-50")
    again = send(client, "POST", f"/api/v1/objects/jobs/{edit.pk}/undo", token, HTTP_IDEMPOTENCY_KEY="undo-50-b")
    assert undo.status_code == 202 and undo.json()["kind"] == "undo"
    assert again.json()["id"] == undo.json()["id"]  # one undo per job, whatever the key
    drain(sent)

    assert _stored(api_sandbox, record["id"]) == {"name": "Epsilon", "seats": 5}
    done = send(client, "GET", f"/api/v1/objects/jobs/{undo.json()['id']}", token).json()
    assert (done["status"], done["succeeded"]) == ("done", 1)
    # Another person's job, or none, is not found.
    assert send(client, "GET", "/api/v1/objects/jobs/999999", token).status_code == 404


def test_the_list_answers_the_records_pages_rows_for_the_same_search_filter_and_sort(
    world, api_sandbox, client, logged_in_client
):
    obj = _object_of(world["service"], api_sandbox, 120)
    query = "q=Deal&f.seats=20&op.seats=between&to.seats=80&sort=-seats&limit=25"
    page = logged_in_client.get(f"/objects/{obj['key']}/records/?{query}")
    listed = send(client, "GET", f"/api/v1/objects/{obj['key']}/records?{query}", world["token"]).json()

    page_titles = [text_of(cell) for cell in select(page.content, 'th[scope="row"].record-title')]
    assert page_titles == [record["values"]["name"] for record in listed["data"]]
    assert [record["values"]["seats"] for record in listed["data"]] == list(range(80, 55, -1))
    assert listed["more"] is True and listed["filter_problems"] == []
