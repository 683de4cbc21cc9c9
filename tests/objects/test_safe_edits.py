"""Safe edits, inline cell edits, history and undo, duplicate, against a
mocked service (respx): only what the person changed relative to what the
form showed is sent; a field changed meanwhile is a conflict to settle; a
422 lands in place; every console change enters the record's history."""

from __future__ import annotations

import json

import httpx
import pytest

from objects.models import RecordChange
from objects.records import READ_ONLY
from tests.html import form_values, one, parse, select, text_of, texts
from tests.objects.records_fixtures import (
    ACME,
    DEALS,
    OBJECT_KEY,
    RECORD_ID,
    error_body,
    hidden_value,
    sent_json,
)
from tests.objects.support import grid_cell_text

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
RECORD_URL = f"/objects/{OBJECT_KEY}/records/{RECORD_ID}/"
EDIT_URL = f"{RECORD_URL}edit/"
RECORD_PATH = f"/v1/objects/{OBJECT_KEY}/records/{RECORD_ID}"


def with_values(**changes) -> dict:
    return {**ACME, "values": {**ACME["values"], **changes}}


@pytest.fixture
def definition(remote):
    return remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))


def form_of(html: str) -> dict:
    """The edit form as a browser would post it unchanged."""
    return form_values(one(html, "form#record-form"))


def test_edit_sends_only_what_the_person_changed_relative_to_the_form(console, definition, remote):
    """The lost update of the issue: Weight (seats) changed elsewhere after the
    form was shown; this person changes only Notes; seats is not sent back."""
    reads = remote.get(RECORD_PATH)
    reads.side_effect = [
        httpx.Response(200, json=ACME),  # the form is shown
        httpx.Response(200, json=with_values(seats=99)),  # re-read at submit: a colleague changed Seats
    ]
    update = remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=with_values(seats=99)))
    data = form_of(console.get(EDIT_URL).content.decode())
    assert json.loads(data["shown_values"])["seats"] == 1250

    response = console.post(EDIT_URL, {**data, "notes": "Call on Monday"})

    assert response.status_code == 302
    assert sent_json(update.calls.last) == {"values": {"notes": "Call on Monday"}}
    change = RecordChange.objects.get()
    assert (change.action, change.actor, change.record_id) == ("edit", "alice", RECORD_ID)
    assert change.changes == [
        {"field": "notes", "label": "Notes", "before": "Call before Friday", "after": "Call on Monday"}
    ]


def test_the_same_field_changed_meanwhile_shows_both_values_and_the_choice_decides(console, definition, remote):
    reads = remote.get(RECORD_PATH)
    reads.side_effect = [httpx.Response(200, json=ACME)] + [httpx.Response(200, json=with_values(seats=99))] * 3
    update = remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=with_values(seats=7)))
    data = form_of(console.get(EDIT_URL).content.decode())

    html = console.post(EDIT_URL, {**data, "seats": "7", "notes": "Mine"}, **HTMX).content.decode()

    # Nothing written; both values shown, with what the form showed.
    assert update.call_count == 0
    conflict = one(html, "[data-conflict=seats]")
    assert "1,250" in text_of(conflict) and "99" in text_of(conflict) and "7" in text_of(conflict)
    assert one(html, "input[name=seats]")["value"] == "7"  # what was typed stays
    seen = one(html, "input[name='seen.seats']")["value"]
    key = hidden_value(html, "idempotency_key")

    # Not chosen: asked again.
    again = console.post(EDIT_URL, {**data, "seats": "7", "notes": "Mine", "idempotency_key": key}, **HTMX)
    assert select(again.content, "[data-conflict=seats]") and update.call_count == 0

    # Keep theirs: Seats is left at 99; Notes (no conflict) is saved.
    response = console.post(
        EDIT_URL,
        {**data, "seats": "7", "notes": "Mine", "idempotency_key": key, "resolve.seats": "theirs", "seen.seats": seen},
        **HTMX,
    )
    assert response["HX-Redirect"] == RECORD_URL
    assert sent_json(update.calls.last) == {"values": {"notes": "Mine"}}


def test_keep_mine_writes_it_but_only_against_the_value_it_was_chosen_for(console, definition, remote):
    reads = remote.get(RECORD_PATH)
    reads.side_effect = [
        httpx.Response(200, json=ACME),
        httpx.Response(200, json=with_values(seats=99)),
        httpx.Response(200, json=with_values(seats=120)),  # moved again before the choice arrived
        httpx.Response(200, json=with_values(seats=120)),
    ]
    update = remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=with_values(seats=7)))
    data = form_of(console.get(EDIT_URL).content.decode())
    html = console.post(EDIT_URL, {**data, "seats": "7"}, **HTMX).content.decode()
    seen = one(html, "input[name='seen.seats']")["value"]
    mine = {**data, "seats": "7", "resolve.seats": "mine", "seen.seats": seen}

    # The choice was made against 99; the record now says 120: asked again, about 120.
    html = console.post(EDIT_URL, mine, **HTMX).content.decode()
    assert "120" in text_of(one(html, "[data-conflict=seats]")) and update.call_count == 0

    mine["seen.seats"] = one(html, "input[name='seen.seats']")["value"]
    console.post(EDIT_URL, mine, **HTMX)
    assert sent_json(update.calls.last) == {"values": {"seats": 7}}


def test_a_form_without_its_shown_values_compares_with_the_record_re_read(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    update = remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    data = form_of(console.get(EDIT_URL).content.decode())
    for garbage in ("", "not json", "[1, 2]"):
        response = console.post(EDIT_URL, {**data, "shown_values": garbage, "seats": "8"})
        assert response.status_code == 302
    assert sent_json(update.calls.last) == {"values": {"seats": 8}}


# --- inline cell edit ---

CELL_URL = f"{RECORD_URL}cells/seats/"


def test_cell_editor_opens_with_the_typed_input_and_saves_one_field(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    update = remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=with_values(seats=1300)))

    editor = console.get(CELL_URL, **HTMX).content.decode()
    form = one(editor, "form[data-cell-editor]")
    assert one(form, "input[name=seats]")["type"] == "number"
    assert one(form, "label.visually-hidden").get_text(strip=True) == "Seats of Acme renewal"
    assert not select(form, "input[name=notes]")  # one field only
    key = hidden_value(editor, "idempotency_key")
    shown = one(form, "input[name=shown_values]")["value"]
    assert json.loads(shown) == {"seats": 1250}

    response = console.post(CELL_URL, {"seats": "1300", "shown_values": shown, "idempotency_key": key}, **HTMX)

    assert sent_json(update.calls.last) == {"values": {"seats": 1300}}
    assert update.calls.last.request.headers["Idempotency-Key"] == key
    html = response.content.decode()
    assert grid_cell_text(html) == "1,300"
    assert "Seats of “Acme renewal” saved." in text_of(one(html, "#messages"))
    assert RecordChange.objects.get().action == "inline"


def test_cell_edit_refused_with_422_shows_in_place_and_keeps_the_value(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    remote.patch(RECORD_PATH).mock(
        return_value=httpx.Response(422, json=error_body("validation_error", "Seats (seats) must be at most 5000."))
    )
    editor = console.get(CELL_URL, **HTMX).content.decode()
    key = hidden_value(editor, "idempotency_key")
    shown = one(editor, "input[name=shown_values]")["value"]

    html = console.post(CELL_URL, {"seats": "9999", "shown_values": shown, "idempotency_key": key}, **HTMX)
    html = html.content.decode()

    assert "must be at most 5000" in text_of(one(html, ".field-error"))
    assert one(html, "input[name=seats]")["value"] == "9999"
    assert hidden_value(html, "idempotency_key") != key  # the corrected value is a new write
    assert not RecordChange.objects.exists()


def test_cell_changed_meanwhile_offers_mine_or_theirs_in_place(console, definition, remote):
    reads = remote.get(RECORD_PATH)
    reads.side_effect = [httpx.Response(200, json=ACME)] + [httpx.Response(200, json=with_values(seats=99))] * 2
    update = remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=with_values(seats=99)))
    editor = console.get(CELL_URL, **HTMX).content.decode()
    data = {
        "seats": "7",
        "shown_values": one(editor, "input[name=shown_values]")["value"],
        "idempotency_key": hidden_value(editor, "idempotency_key"),
    }
    html = console.post(CELL_URL, data, **HTMX).content.decode()
    assert text_of(one(html, ".cell-conflict p")).startswith("Changed meanwhile to 99 (was 1,250")
    assert texts(html, ".cell-conflict button") == ["Save mine", "Keep theirs"]

    seen = one(html, "input[name='seen.seats']")["value"]
    html = console.post(CELL_URL, {**data, "resolve.seats": "theirs", "seen.seats": seen}, **HTMX).content.decode()
    assert update.call_count == 0
    assert grid_cell_text(html) == "99"


def test_cells_of_unknown_fields_and_built_in_objects_are_not_editable(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    assert console.get(f"{RECORD_URL}cells/nope/").status_code == 404
    assert console.get(f"{RECORD_URL}cells/idempotency_key/").status_code == 404


def test_cell_edit_without_javascript_is_a_page_and_redirects_to_the_record(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=with_values(seats=3)))
    page = console.get(CELL_URL).content.decode()
    assert one(page, "h1").get_text() == "Edit Seats"
    response = console.post(CELL_URL, {"seats": "3", "shown_values": one(page, "input[name=shown_values]")["value"]})
    assert response.status_code == 302 and response["Location"] == RECORD_URL


# --- history, undo, duplicate ---


def test_record_page_lists_the_history_and_undo_restores_the_latest_change(console, definition, remote):
    reads = remote.get(RECORD_PATH)
    reads.side_effect = [httpx.Response(200, json=ACME), httpx.Response(200, json=ACME)] + [
        httpx.Response(200, json=with_values(seats=1300))
    ] * 4
    update = remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=with_values(seats=1300)))
    remote.get(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(200, json={"data": []}))
    data = form_of(console.get(EDIT_URL).content.decode())
    console.post(EDIT_URL, {**data, "seats": "1300"})
    change = RecordChange.objects.get()

    page = console.get(RECORD_URL).content.decode()
    item = one(page, "#history .history-item")
    assert "Edited by alice" in text_of(item)
    assert [text_of(td) for td in select(item, "tbody td")] == ["1,250", "1,300", "Put back"]
    undo_url = f"{RECORD_URL}history/{change.pk}/undo/"
    assert [a["href"] for a in select(item, "a") if text_of(a) == "Undo this change"] == [undo_url]

    confirm = console.get(undo_url).content.decode()
    key = hidden_value(confirm, "idempotency_key")
    response = console.post(undo_url, {"idempotency_key": key})

    assert response.status_code == 302 and response["Location"] == f"{RECORD_URL}#history"
    assert sent_json(update.calls.last) == {"values": {"seats": 1250}}
    assert update.calls.last.request.headers["Idempotency-Key"] == key
    change.refresh_from_db()
    assert change.undone_at is not None
    undo = RecordChange.objects.exclude(pk=change.pk).get()
    assert (undo.action, undo.changes[0]["before"], undo.changes[0]["after"]) == ("undo", 1300, 1250)
    # Undone once: the page no longer offers it.
    assert "can no longer be undone" in console.get(undo_url).content.decode()


def test_undo_of_a_field_changed_again_since_asks_first(console, definition, remote, user):
    change = RecordChange.objects.create(
        workspace_id="ws-objects-1",
        object_key=OBJECT_KEY,
        record_id=RECORD_ID,
        user=user,
        actor="alice",
        action="edit",
        changes=[{"field": "seats", "label": "Seats", "before": 10, "after": 20}],
    )
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=with_values(seats=30)))
    update = remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=with_values(seats=10)))
    undo_url = f"{RECORD_URL}history/{change.pk}/undo/"

    response = console.post(undo_url, {})
    html = response.content.decode()
    assert response.status_code == 200, response
    assert update.call_count == 0
    seen = one(html, "input[name='seen.seats']")["value"]
    assert "30" in text_of(one(html, "[data-conflict=seats]"))

    console.post(undo_url, {"resolve.seats": "mine", "seen.seats": seen})
    assert sent_json(update.calls.last) == {"values": {"seats": 10}}


def test_duplicate_fills_a_new_form_and_the_copy_remembers_its_source(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    create = remote.post(f"/v1/objects/{OBJECT_KEY}/records").mock(
        return_value=httpx.Response(201, json={**ACME, "id": "new-id"})
    )
    html = console.get(f"{RECORD_URL}duplicate/").content.decode()
    assert one(html, "h1").get_text() == "Duplicate of Acme renewal"
    data = form_of(html)
    assert data["name"] == "Acme renewal" and "shown_values" not in data or not data.get("shown_values")

    response = console.post(f"{RECORD_URL}duplicate/", {**data, "name": "Acme renewal (2027)"})

    assert response.status_code == 302 and response["Location"] == f"/objects/{OBJECT_KEY}/records/new-id/"
    assert sent_json(create.calls.last)["values"]["name"] == "Acme renewal (2027)"
    copy = RecordChange.objects.get()
    assert (copy.action, copy.record_id, copy.source_record_id) == ("duplicate", "new-id", RECORD_ID)


# --- read-only members ---


@pytest.fixture
def viewer(logged_in_client, user):
    from dashboard.keys.testing import stored_api_key
    from tests.objects.support import SECRET, WORKSPACE_ID

    stored_api_key(user=user, secret=SECRET, workspace_id=WORKSPACE_ID, member_role="viewer", key_id="key-viewer")
    return logged_in_client


def test_a_read_only_member_is_offered_no_write_and_refused_before_typing(viewer, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    remote.get(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(200, json={"data": []}))
    remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(return_value=httpx.Response(200, json={"data": [ACME]}))

    table = viewer.get(f"/objects/{OBJECT_KEY}/records/").content.decode()
    assert not select(table, "[data-editable], th[data-key]")
    assert not [a for a in select(table, "a.btn") if a.get_text(strip=True).startswith(("New", "Object settings"))]
    page = viewer.get(RECORD_URL).content.decode()
    assert not [a for a in select(page, ".page-header a.btn") if text_of(a) in ("Edit", "Duplicate", "Delete")]
    for url in (
        EDIT_URL,
        f"{RECORD_URL}duplicate/",
        CELL_URL,
        f"{RECORD_URL}links/new/",
        f"/objects/{OBJECT_KEY}/records/new/",
        f"/objects/{OBJECT_KEY}/settings/",
        "/objects/new/",
    ):
        response = viewer.get(url)
        assert response.status_code == 403
        assert READ_ONLY in text_of(parse(response.content).body)
