"""Relationships: both directions, built-in targets, no twins, deleted with their record."""

from __future__ import annotations

from tests.sandbox.support import all_pages, make_object


def make_pair(api):
    people = make_object(api, fields=[{"label": "Name"}])
    teams = make_object(api, fields=[{"label": "Name"}])
    alice = api.post(f"/v1/objects/{people['key']}/records", json={"values": {"name": "Alice"}}).json()
    red = api.post(f"/v1/objects/{teams['key']}/records", json={"values": {"name": "Red team"}}).json()
    return people, teams, alice, red


def test_a_link_is_listed_from_both_ends(api):
    people, teams, alice, red = make_pair(api)
    created = api.post(
        f"/v1/objects/{people['key']}/records/{alice['id']}/relationships",
        json={
            "relation_key": "member_of",
            "target": {"object": teams["key"], "id": red["id"]},
            "label": "Captain",
            "metadata": {"since": 2024},
        },
    )
    assert created.status_code == 201, created.text
    link = created.json()
    assert link["direction"] == "outgoing" and link["object"] == teams["key"] and link["record_id"] == red["id"]
    assert (link["label"], link["metadata"]) == ("Captain", {"since": 2024})
    outgoing = all_pages(api, f"/v1/objects/{people['key']}/records/{alice['id']}/relationships")
    incoming = all_pages(api, f"/v1/objects/{teams['key']}/records/{red['id']}/relationships")
    assert [(r["id"], r["direction"], r["object"], r["record_id"]) for r in outgoing] == [
        (link["id"], "outgoing", teams["key"], red["id"])
    ]
    assert [(r["id"], r["direction"], r["object"], r["record_id"]) for r in incoming] == [
        (link["id"], "incoming", people["key"], alice["id"])
    ]


def test_the_same_link_again_returns_the_existing_one(api):
    people, teams, alice, red = make_pair(api)
    path = f"/v1/objects/{people['key']}/records/{alice['id']}/relationships"
    body = {"relation_key": "member_of", "target": {"object": teams["id"], "id": red["id"]}}
    first = api.post(path, json=body)
    second = api.post(path, json=body)
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["id"] == first.json()["id"]
    other_kind = api.post(path, json={**body, "relation_key": "mentors"})
    assert other_kind.status_code == 201
    assert len(all_pages(api, path)) == 2
    assert [r["relation_key"] for r in all_pages(api, path, {"relation_key": "mentors"})] == ["mentors"]


def test_link_input_is_checked(api):
    people, teams, alice, red = make_pair(api)
    path = f"/v1/objects/{people['key']}/records/{alice['id']}/relationships"
    bad_key = api.post(path, json={"relation_key": "Member Of", "target": {"object": teams["key"], "id": red["id"]}})
    assert bad_key.status_code == 400 and "relation_key" in bad_key.json()["error"]["details"]
    long_label = api.post(
        path,
        json={"relation_key": "member_of", "label": "x" * 201, "target": {"object": teams["key"], "id": red["id"]}},
    )
    assert long_label.json()["error"]["details"] == {"label": ["must be at most 200 characters"]}
    missing = "00000000-0000-4000-8000-000000000000"
    assert (
        api.post(
            path, json={"relation_key": "member_of", "target": {"object": teams["key"], "id": missing}}
        ).status_code
        == 404
    )
    assert (
        api.post(
            path, json={"relation_key": "member_of", "target": {"object": "no_such_object", "id": red["id"]}}
        ).status_code
        == 404
    )


def test_deleting_a_record_deletes_its_links_in_both_directions(api):
    people, teams, alice, red = make_pair(api)
    bob = api.post(f"/v1/objects/{people['key']}/records", json={"values": {"name": "Bob"}}).json()
    api.post(
        f"/v1/objects/{people['key']}/records/{alice['id']}/relationships",
        json={"relation_key": "member_of", "target": {"object": teams["key"], "id": red["id"]}},
    )
    api.post(
        f"/v1/objects/{teams['key']}/records/{red['id']}/relationships",
        json={"relation_key": "led_by", "target": {"object": people["key"], "id": bob["id"]}},
    )
    deleted = api.delete(f"/v1/objects/{teams['key']}/records/{red['id']}").json()
    assert deleted["relationships_deleted"] == 2
    assert all_pages(api, f"/v1/objects/{people['key']}/records/{alice['id']}/relationships") == []
    assert all_pages(api, f"/v1/objects/{people['key']}/records/{bob['id']}/relationships") == []


def test_records_of_builtin_objects_can_be_linked_and_list_their_links(fresh_sandbox, fresh_api):
    # An agent as sandbox/agents.py stores it (storage kind "agent"); the built-in `agents` object reads it.
    agent = fresh_sandbox.store.insert(
        "agent",
        {"name": "Lead router", "status": "active"},
        workspace_id=fresh_sandbox.app.store.get("workspace", "6f1c2a7e-0b8d-4c3e-9a51-2d7f4e8b9c10")["id"],
    )
    deal = fresh_api.get("/v1/objects/deals/records", params={"limit": 1}).json()["data"][0]
    link = fresh_api.post(
        f"/v1/objects/deals/records/{deal['id']}/relationships",
        json={"relation_key": "owner", "target": {"object": "agents", "id": agent["id"]}},
    )
    assert link.status_code == 201, link.text
    incoming = all_pages(fresh_api, f"/v1/objects/agents/records/{agent['id']}/relationships")
    assert [(r["direction"], r["object"], r["record_id"]) for r in incoming] == [("incoming", "deals", deal["id"])]
    record = fresh_api.get(f"/v1/objects/agents/records/{agent['id']}").json()
    assert record["values"]["name"] == "Lead router"
    assert agent["id"] in {r["id"] for r in all_pages(fresh_api, "/v1/objects/agents/records", {"limit": 100})}
