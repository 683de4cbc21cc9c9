"""Idempotency-Key on writes: replay without repeating the work, 409 on reuse."""

from __future__ import annotations

import threading

from tests.sandbox.support import all_pages, make_object


def count(client, object_key: str) -> int:
    return len(all_pages(client, f"/v1/objects/{object_key}/records", {"limit": 100}))


def test_same_key_and_body_replays_the_first_answer_and_creates_once(api):
    obj = make_object(api, fields=[{"label": "Name"}])
    path = f"/v1/objects/{obj['key']}/records"
    before = count(api, obj["key"])
    headers = {"Idempotency-Key": "create-once-1"}
    first = api.post(path, json={"values": {"name": "Once"}}, headers=headers)
    second = api.post(path, json={"values": {"name": "Once"}}, headers=headers)
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second.headers["idempotent-replayed"] == "true"
    assert first.headers["x-request-id"] != second.headers["x-request-id"]
    assert count(api, obj["key"]) == before + 1


def test_key_order_in_the_body_does_not_matter_but_the_path_does(api):
    obj = make_object(api, fields=[{"label": "Name"}, {"label": "Note"}])
    path = f"/v1/objects/{obj['key']}/records"
    headers = {"Idempotency-Key": "order-1"}
    first = api.post(path, content=b'{"values": {"name": "A", "note": "B"}}', headers=headers)
    second = api.post(path, content=b'{"values":{"note":"B","name":"A"}}', headers=headers)
    assert second.json()["id"] == first.json()["id"]
    elsewhere = api.post("/v1/objects/deals/records", json={"values": {"name": "A", "note": "B"}}, headers=headers)
    assert elsewhere.status_code == 409


def test_a_refused_write_is_not_stored_so_it_can_be_fixed_and_resent(api):
    obj = make_object(api, fields=[{"label": "Amount", "type": "number"}])
    path = f"/v1/objects/{obj['key']}/records"
    headers = {"Idempotency-Key": "fix-and-resend"}
    assert api.post(path, json={"values": {"amount": "ten"}}, headers=headers).status_code == 422
    fixed = api.post(path, json={"values": {"amount": 10}}, headers=headers)
    assert fixed.status_code == 201
    assert count(api, obj["key"]) == 1


def test_keys_are_per_workspace(api, client_for):
    other = client_for("other_workspace")
    headers = {"Idempotency-Key": "shared-key-across-workspaces"}
    mine = api.post("/v1/objects/deals/records", json={"values": {"name": "Mine"}}, headers=headers)
    theirs = other.post("/v1/objects/projects/records", json={"values": {"name": "Theirs"}}, headers=headers)
    assert mine.status_code == theirs.status_code == 201
    assert mine.json()["id"] != theirs.json()["id"]


def test_a_double_submit_at_the_same_time_runs_once(api, sandbox):
    obj = make_object(api, fields=[{"label": "Name"}])
    path = f"/v1/objects/{obj['key']}/records"
    answers = []

    def submit():
        from tests.sandbox.support import http_client

        with http_client(sandbox, sandbox.demo_key) as client:
            answers.append(
                client.post(path, json={"values": {"name": "Twice"}}, headers={"Idempotency-Key": "double-submit"})
            )

    threads = [threading.Thread(target=submit) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {a.status_code for a in answers} == {201}
    assert len({a.json()["id"] for a in answers}) == 1
    assert count(api, obj["key"]) == 1


def test_patch_and_delete_replay_too(api):
    obj = make_object(api, fields=[{"label": "Name"}])
    record = api.post(f"/v1/objects/{obj['key']}/records", json={"values": {"name": "A"}}).json()
    path = f"/v1/objects/{obj['key']}/records/{record['id']}"
    first = api.delete(path, headers={"Idempotency-Key": "delete-once"})
    again = api.delete(path, headers={"Idempotency-Key": "delete-once"})
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert api.delete(path).status_code == 404  # without the key it really runs again
