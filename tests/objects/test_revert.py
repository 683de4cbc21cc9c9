"""Revert any change (objects/revert.py): put back one value from any history
entry, refused in words when it changed since; the record before an entry
beside now, with the ticked fields put back by the safe-edit rule. Against
the real sandbox over HTTP; the values are read back from the sandbox."""

from __future__ import annotations

import uuid

import pytest

from dashboard.api import ServiceClient
from dashboard.keys.testing import store_sandbox_key
from objects.edits import encode_values
from objects.fields import FieldDef
from objects.models import RecordChange
from objects.revert import BEFORE, put_back_check, record_then
from tests.helpers import running_sandbox
from tests.html import form_values, one, parse, select, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def sandbox():
    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def world(sandbox, settings, logged_in_client, user):
    settings.SERVICE_BASE_URL = sandbox.base_url
    service = ServiceClient(api_key=sandbox.demo_key)
    definition = service.post(
        "/v1/objects",
        json={
            "singular_name": "Account",
            "plural_name": f"Accounts {uuid.uuid4().hex[:6]}",
            "title_field": "name",
            "fields": [
                {"label": "Name", "key": "name", "type": "text", "required": True},
                {"label": "Seats", "key": "seats", "type": "number"},
                {"label": "Stage", "key": "stage", "type": "select", "options": [{"label": "Lead"}, {"label": "Won"}]},
                {"label": "Notes", "key": "notes", "type": "text"},
            ],
        },
    )
    key = definition["key"]
    record = service.post(
        f"/v1/objects/{key}/records", json={"values": {"name": "Acme", "seats": 36, "stage": "lead", "notes": "new"}}
    )
    store_sandbox_key(user, service, sandbox.demo_key)
    base = f"/objects/{key}/records/{record['id']}/"
    return {
        "service": service,
        "key": key,
        "id": record["id"],
        "base": base,
        "client": logged_in_client,
        "stage": record["values"]["stage"],  # as the service stores the choice "Lead"
    }


def _edit(world, **values) -> RecordChange:
    """An edit through the console's record form, as a person makes it (a
    choice by its option's label)."""
    client = world["client"]
    form = one(client.get(world["base"] + "edit/").content.decode(), "form#record-form")
    data = form_values(form)
    for name, value in list(values.items()):
        options = {text_of(o): o["value"] for o in select(form, f'select[name="{name}"] option')}
        if options:
            values[name] = options[value]
    response = client.post(world["base"] + "edit/", {**data, **values})
    assert response.status_code == 302, response.content.decode()[:2000]
    return RecordChange.objects.order_by("-pk").first()


def _values(world) -> dict:
    return world["service"].get(f"/v1/objects/{world['key']}/records/{world['id']}")["values"]


def test_any_entry_puts_one_value_back_while_the_field_still_holds_what_it_left(world):
    seats = _edit(world, seats="44")
    _edit(world, notes="call Friday")  # a newer entry: the seats change is no longer the latest
    client = world["client"]
    history = parse(client.get(world["base"]).content.decode())
    links = [a["href"] for a in select(history, "#history a") if "put-back" in a["href"]]
    url = f"{world['base']}history/{seats.pk}/put-back/seats/"
    assert url in links

    page = parse(client.get(url).content.decode())
    assert text_of(one(page, "h1")) == "Put back Seats"
    response = client.post(url, form_values(one(page, ".undo-card form, .then-card form")))

    assert response.status_code == 302
    values = _values(world)
    assert (float(values["seats"]), values["notes"]) == (36, "call Friday")
    entry = RecordChange.objects.order_by("-pk").first()
    assert entry.action == RecordChange.Action.PUT_BACK
    assert [(i["field"], i["before"], i["after"]) for i in entry.changes] == [("seats", 44, 36)]
    # Putting back again finds it already so: nothing more is written.
    assert "already holds that value" in text_of(one(parse(client.get(url).content.decode()), ".undo-card"))


def test_a_value_changed_again_since_is_refused_in_words_and_nothing_is_written(world):
    first = _edit(world, seats="44")
    _edit(world, seats="50")
    client = world["client"]
    url = f"{world['base']}history/{first.pk}/put-back/seats/"
    page = parse(client.get(url).content.decode())
    refusal = text_of(one(page, ".alert-warning"))
    assert "Seats was changed again since this change" in refusal
    assert not select(page, ".then-card form")
    count = RecordChange.objects.count()

    response = client.post(url, {"idempotency_key": str(uuid.uuid4())})

    assert response.status_code == 200
    assert float(_values(world)["seats"]) == 50
    assert RecordChange.objects.count() == count
    # The refusal leads to the page where the person can choose knowingly.
    assert one(page, f'a[href="{world["base"]}history/{first.pk}/then/?when=before"]')


def test_the_record_before_an_entry_is_shown_beside_now_and_the_ticked_fields_go_back(world):
    seats = _edit(world, seats="44")
    _edit(world, stage="Won")
    _edit(world, notes="signed")
    client = world["client"]
    url = f"{world['base']}history/{seats.pk}/then/?when=before"
    page = parse(client.get(url).content.decode())
    rows = {text_of(one(tr, "th")).split(" ")[0]: tr for tr in select(page, ".then-table tbody tr")}
    assert {name for name, tr in rows.items() if "then-differs" in (tr.get("class") or [])} == {
        "Seats",
        "Stage",
        "Notes",
    }
    assert "3 fields differ from now" in text_of(one(page, ".then-table caption"))
    data = form_values(one(page, ".undo-card form, .then-card form"))
    data["put_back"] = ["seats", "stage"]

    response = client.post(url.split("?")[0], data)

    assert response.status_code == 302
    values = _values(world)
    assert (float(values["seats"]), values["stage"], values["notes"]) == (36, world["stage"], "signed")
    entry = RecordChange.objects.order_by("-pk").first()
    assert entry.action == RecordChange.Action.PUT_BACK
    assert sorted(i["field"] for i in entry.changes) == ["seats", "stage"]


def test_a_field_moved_since_the_page_was_opened_is_a_conflict_and_nothing_is_written(world):
    seats = _edit(world, seats="44")
    client = world["client"]
    url = f"{world['base']}history/{seats.pk}/then/"
    data = form_values(one(parse(client.get(url + "?when=before").content.decode()), ".then-card form"))
    data["put_back"] = ["seats"]
    # A colleague (another tool) changes Seats while the page is open.
    world["service"].patch(f"/v1/objects/{world['key']}/records/{world['id']}", json={"values": {"seats": 60}})

    page = parse(client.post(url, data).content.decode())

    assert one(page, ".conflict-panel")
    assert float(_values(world)["seats"]) == 60
    # Settled by choosing to put back: the value then is written.
    conflict = one(page, 'fieldset[data-conflict="seats"]')
    seen = one(conflict, 'input[name="seen.seats"]')["value"]
    response = client.post(url, {**data, "resolve.seats": "mine", "seen.seats": seen})
    assert response.status_code == 302
    assert float(_values(world)["seats"]) == 36


def test_a_change_made_outside_the_console_is_marked_rather_than_shown_as_fact(world):
    seats = _edit(world, seats="44")
    world["service"].patch(f"/v1/objects/{world['key']}/records/{world['id']}", json={"values": {"seats": 45}})
    page = parse(world["client"].get(f"{world['base']}history/{seats.pk}/then/?when=after").content.decode())
    seats_row = next(tr for tr in select(page, ".then-table tbody tr") if text_of(one(tr, "th")).startswith("Seats"))
    assert "changed elsewhere" in text_of(seats_row)
    assert one(page, ".alert-warning")


# --- the walk itself, without the service ---

FIELDS = [
    FieldDef(
        key=k, label=k.title(), type="number", required=False, options=(), origin="custom", max_length=None, raw={}
    )
    for k in ("a", "b")
]


def _entry(pk: int, action: str, **items) -> RecordChange:
    return RecordChange(
        pk=pk,
        action=action,
        changes=[{"field": k, "label": k, "before": before, "after": after} for k, (before, after) in items.items()],
    )


def test_the_walk_goes_back_through_every_newer_entry_and_skips_links():
    first = _entry(1, "edit", a=(1, 2))
    newer = [_entry(4, "edit", a=(3, 4)), RecordChange(pk=3, action="link", changes=[]), _entry(2, "edit", a=(2, 3))]
    then = record_then(newer, change=first, when=BEFORE, fields=FIELDS, current={"a": 4, "b": 9})
    assert [(f.field.key, f.then, f.now, f.uncertain) for f in then.fields] == [("a", 1, 4, False), ("b", 9, 9, False)]
    assert [f.field.key for f in then.differing] == ["a"]


def test_a_gap_between_entries_marks_the_field_uncertain():
    first = _entry(1, "edit", a=(1, 2))
    # Something outside the console moved a from 2 to 5 before the newer entry.
    newer = [_entry(2, "edit", a=(5, 6))]
    then = record_then(newer, change=first, when=BEFORE, fields=FIELDS, current={"a": 6})
    assert then.fields[0].uncertain and then.any_uncertain


def test_put_back_check_refuses_created_entries_and_fields_gone():
    assert put_back_check(_entry(1, "create", a=(None, 2)), field_key="a", fields=FIELDS, current={"a": 2}) is None
    gone = put_back_check(_entry(1, "edit", c=(1, 2)), field_key="c", fields=FIELDS, current={})
    assert gone is not None and "no longer a field" in gone.refusal
    # Shown the same value again (its shown form): no refusal.
    fine = put_back_check(_entry(1, "edit", a=(1, 2)), field_key="a", fields=FIELDS, current={"a": 2})
    assert fine is not None and not fine.refusal and not fine.already
    assert encode_values({"a": 2}, FIELDS) == '{"a":2,"b":null}'
