"""Objects: create with defaults and every field type, get, patch, remove_fields, system objects."""

from __future__ import annotations

from tests.sandbox.support import EVERY_TYPE_FIELDS, all_pages, make_object, unique


def test_create_derives_keys_and_fills_defaults(api):
    plural = unique("Sales leads")
    response = api.post(
        "/v1/objects",
        json={
            "singular_name": "Sales lead",
            "plural_name": plural,
            "fields": [
                {"label": "Company name"},
                {"label": "Deal size", "type": "currency", "required": True},
                {
                    "label": "Tier",
                    "key": "tier_level",
                    "type": "select",
                    "options": ["Gold", {"label": "Silver", "color": "#c0c0c0"}],
                },
            ],
        },
    )
    assert response.status_code == 201, response.text
    obj = response.json()
    assert obj["key"] == plural.lower().replace(" ", "_")
    assert obj["kind"] == "custom"
    assert (obj["description"], obj["icon"], obj["color"]) == ("", "Box", "#64748b")
    assert obj["title_field"] == "company_name"
    assert [f["key"] for f in obj["fields"]] == ["company_name", "deal_size", "tier_level"]
    assert obj["fields"][0]["type"] == "text" and obj["fields"][0]["required"] is False
    assert obj["fields"][1]["required"] is True
    gold, silver = obj["fields"][2]["options"]
    assert gold["label"] == "Gold" and gold["id"] and gold["color"].startswith("#")
    assert silver == {"id": silver["id"], "label": "Silver", "color": "#c0c0c0"}
    assert {f["origin"] for f in obj["fields"]} == {"custom"}
    assert obj["views"][0]["type"] == "table"


def test_every_field_type_can_be_created_and_read_back_by_key_and_id(api):
    obj = make_object(api)
    assert [f["type"] for f in obj["fields"]] == [f["type"] for f in EVERY_TYPE_FIELDS]
    assert api.get(f"/v1/objects/{obj['key']}").json() == obj
    assert api.get(f"/v1/objects/{obj['id']}").json() == obj


def test_limits_are_checked(api):
    too_long = api.post(
        "/v1/objects",
        json={
            "singular_name": "A",
            "plural_name": unique("Limits"),
            "description": "d" * 2001,
            "icon": "i" * 65,
            "color": "c" * 33,
            "fields": [{"label": "l" * 121}],
        },
    )
    assert too_long.status_code == 400
    details = too_long.json()["error"]["details"]
    assert set(details) == {"description", "icon", "color", "fields"}
    assert details["fields"]["0"]["label"] == ["must be at most 120 characters"]


def test_patch_changes_only_what_is_sent_and_never_the_key(api):
    obj = make_object(api, fields=[{"label": "Name"}, {"label": "Size", "type": "select", "options": ["S", "M"]}])
    response = api.patch(
        f"/v1/objects/{obj['key']}",
        json={
            "plural_name": "Renamed things",
            "description": "Now described",
            "fields": [
                {"key": "size", "label": "T-shirt size", "options": ["M", "L"], "required": True},
                {"label": "Shipped on", "type": "date"},
            ],
        },
    )
    assert response.status_code == 200, response.text
    changed = response.json()
    assert changed["key"] == obj["key"] and changed["id"] == obj["id"]
    assert changed["plural_name"] == "Renamed things" and changed["singular_name"] == obj["singular_name"]
    assert changed["icon"] == obj["icon"]
    size = next(f for f in changed["fields"] if f["key"] == "size")
    old_m = next(o for o in obj["fields"][1]["options"] if o["label"] == "M")
    assert size["label"] == "T-shirt size" and size["required"] is True
    assert [o["label"] for o in size["options"]] == ["M", "L"]
    assert size["options"][0]["id"] == old_m["id"]  # a known label keeps its id
    assert [f["key"] for f in changed["fields"]] == ["name", "size", "shipped_on"]


def test_remove_fields_hides_the_field_but_keeps_the_values(api):
    obj = make_object(api, fields=[{"label": "Name"}, {"label": "Secret note"}])
    path = f"/v1/objects/{obj['key']}/records"
    record = api.post(path, json={"values": {"name": "A", "secret_note": "kept"}}).json()
    removed = api.patch(f"/v1/objects/{obj['key']}", json={"remove_fields": ["secret_note"]}).json()
    assert [f["key"] for f in removed["fields"]] == ["name"]
    shown = api.get(f"{path}/{record['id']}").json()
    assert "secret_note" not in shown["values"]
    refused = api.post(path, json={"values": {"name": "B", "secret_note": "x"}})
    assert refused.status_code == 422  # no longer a field
    back = api.patch(f"/v1/objects/{obj['key']}", json={"fields": [{"key": "secret_note", "label": "Secret note"}]})
    assert back.status_code == 200
    assert api.get(f"{path}/{record['id']}").json()["values"]["secret_note"] == "kept"


def test_system_objects_are_listed_refuse_changes_to_builtin_fields_and_take_extra_fields(api):
    system = all_pages(api, "/v1/objects", {"kind": "system"})
    assert {o["key"] for o in system} == {"agents", "websites", "image_boards", "video_boards", "files"}
    assert all(o["kind"] == "system" for o in system)
    assert {f["origin"] for f in system[0]["fields"]} == {"system"}
    custom = all_pages(api, "/v1/objects", {"kind": "custom", "limit": 100})
    assert {"companies", "contacts", "deals"} <= {o["key"] for o in custom}
    refused = api.patch("/v1/objects/files", json={"fields": [{"key": "name", "label": "Renamed"}]})
    assert refused.status_code == 400
    assert "built-in" in refused.json()["error"]["details"]["fields"]["0"]["key"][0]
    assert api.patch("/v1/objects/files", json={"remove_fields": ["name"]}).status_code == 400
    extra = api.patch("/v1/objects/files", json={"fields": [{"label": "Reviewed", "type": "boolean"}]})
    assert extra.status_code == 200
    assert [(f["key"], f["origin"]) for f in extra.json()["fields"]][-1] == ("reviewed", "custom")
    write = api.post("/v1/objects/files/records", json={"values": {"name": "x"}})
    assert write.status_code == 400
