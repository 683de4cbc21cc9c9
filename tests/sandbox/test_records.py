"""Records: typed writes, merge on PATCH, filter, search and sort semantics."""

from __future__ import annotations

import json

from tests.sandbox.support import all_pages, make_object


def option_id(obj: dict, field_key: str, label: str) -> str:
    field = next(f for f in obj["fields"] if f["key"] == field_key)
    return next(o["id"] for o in field["options"] if o["label"] == label)


def test_every_type_is_stored_and_choices_keep_their_id(api):
    obj = make_object(api)
    values = {
        "title": "Launch",
        "body": "Long\ntext",
        "count": 3,
        "price": 19.99,
        "due": "2026-03-01",
        "starts_at": "2026-03-01T10:30:00+01:00",
        "done": False,
        "email": "a@b.example",
        "phone": "+49 30 1234567",
        "website": "https://example.com/x",
        "colour": "green",
        "labels": ["A", option_id(obj, "labels", "C")],
        "phase": "Doing",
        "picture": "https://example.com/p.png",
        "attachment": "http://example.com/f.pdf",
    }
    response = api.post(f"/v1/objects/{obj['key']}/records", json={"values": values})
    assert response.status_code == 201, response.text
    record = response.json()
    stored = record["values"]
    assert stored["colour"] == option_id(obj, "colour", "Green")
    assert stored["labels"] == [option_id(obj, "labels", "A"), option_id(obj, "labels", "C")]
    assert stored["phase"] == option_id(obj, "phase", "Doing")
    assert stored["starts_at"] == "2026-03-01T09:30:00.000Z"
    assert stored["price"] == 19.99 and stored["done"] is False
    assert record["title"] == "Launch"
    assert api.get(f"/v1/objects/{obj['key']}/records/{record['id']}").json() == record


def test_patch_changes_only_the_keys_sent_and_null_clears(api):
    obj = make_object(api)
    path = f"/v1/objects/{obj['key']}/records"
    record = api.post(path, json={"values": {"title": "A", "count": 1, "email": "x@y.example"}}).json()
    changed = api.patch(f"{path}/{record['id']}", json={"values": {"count": 2, "email": None}}).json()
    assert changed["values"]["title"] == "A"
    assert changed["values"]["count"] == 2
    assert changed["values"]["email"] is None
    assert changed["updated_at"] >= record["updated_at"]
    assert changed["created_at"] == record["created_at"]


def test_filter_matches_choices_by_label_or_id_booleans_lists_numbers_and_empty(api):
    obj = make_object(api)
    path = f"/v1/objects/{obj['key']}/records"
    rows = [
        {"title": "one", "colour": "Red", "labels": ["A", "B"], "done": True, "count": 1},
        {"title": "two", "colour": "Green", "labels": ["A"], "done": False, "count": 2},
        {"title": "three", "labels": ["B", "C"], "done": True, "count": 2},
    ]
    for row in rows:
        assert api.post(path, json={"values": row}).status_code == 201

    def titles(spec: dict) -> set[str]:
        items = all_pages(api, path, {"filter": json.dumps(spec), "limit": 100})
        return {r["values"]["title"] for r in items}

    assert titles({"colour": "red"}) == {"one"}
    assert titles({"colour": option_id(obj, "colour", "Green")}) == {"two"}
    assert titles({"done": "true"}) == {"one", "three"}
    assert titles({"done": False}) == {"two"}
    assert titles({"labels": ["A", "B"]}) == {"one"}
    assert titles({"labels": "B"}) == {"one", "three"}
    assert titles({"colour": None}) == {"three"}
    assert titles({"count": "2"}) == {"two", "three"}
    assert titles({"count": 2, "done": True}) == {"three"}
    assert titles({"title": "one"}) == {"one"}


def test_search_finds_text_anywhere_case_insensitively(api):
    obj = make_object(api)
    path = f"/v1/objects/{obj['key']}/records"
    api.post(path, json={"values": {"title": "Alpha", "body": "mentions the ZEBRA crossing"}})
    api.post(path, json={"values": {"title": "Beta", "email": "zebra@zoo.example"}})
    api.post(path, json={"values": {"title": "Gamma", "colour": "Green"}})
    found = {r["values"]["title"] for r in all_pages(api, path, {"search": "zebra"})}
    assert found == {"Alpha", "Beta"}
    assert {r["values"]["title"] for r in all_pages(api, path, {"search": "GREEN"})} == {"Gamma"}


def test_sorts_by_a_field_with_empty_values_last_both_ways(fresh_api):
    deals = "/v1/objects/deals/records"
    ascending = [r["values"]["amount"] for r in all_pages(fresh_api, deals, {"sort": "amount", "limit": 100})]
    assert ascending == sorted(ascending)
    descending = [r["values"]["amount"] for r in all_pages(fresh_api, deals, {"sort": "-amount", "limit": 100})]
    assert descending == sorted(descending, reverse=True)
    contacts = "/v1/objects/contacts/records"
    birthdays = [r["values"]["birthday"] for r in all_pages(fresh_api, contacts, {"sort": "-birthday", "limit": 100})]
    present = [b for b in birthdays if b is not None]
    assert birthdays == present + [None] * (len(birthdays) - len(present))
    assert present == sorted(present, reverse=True)


def test_stage_sorts_in_pipeline_order_and_default_is_newest_update_first(fresh_api):
    deals_obj = fresh_api.get("/v1/objects/deals").json()
    order = [o["id"] for o in next(f for f in deals_obj["fields"] if f["key"] == "stage")["options"]]
    stages = [
        r["values"]["stage"] for r in all_pages(fresh_api, "/v1/objects/deals/records", {"sort": "stage", "limit": 100})
    ]
    assert stages == sorted(stages, key=order.index)
    updated = [r["updated_at"] for r in all_pages(fresh_api, "/v1/objects/deals/records", {"limit": 100})]
    assert updated == sorted(updated, reverse=True)


def test_delete_removes_the_record(api):
    obj = make_object(api, fields=[{"label": "Name"}])
    path = f"/v1/objects/{obj['key']}/records"
    record = api.post(path, json={"values": {"name": "Gone soon"}}).json()
    deleted = api.delete(f"{path}/{record['id']}")
    assert deleted.status_code == 200 and deleted.json()["deleted"] is True
    assert api.get(f"{path}/{record['id']}").status_code == 404
    assert all_pages(api, path) == []
