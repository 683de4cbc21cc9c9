"""Record form (new and edit) against a mocked service (respx): one widget
per type, values converted on send, only changed keys on edit, 422 on the
named field with the input kept, idempotency keys."""

from __future__ import annotations

import httpx
import pytest
from bs4 import Tag

from tests.html import form_values, one, parse, select, text_of
from tests.objects.records_fixtures import (
    ACME,
    DEALS,
    OBJECT_KEY,
    RECORD_ID,
    error_body,
    hidden_value,
    sent_json,
)

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
NEW_URL = f"/objects/{OBJECT_KEY}/records/new/"
EDIT_URL = f"/objects/{OBJECT_KEY}/records/{RECORD_ID}/edit/"
RECORDS_PATH = f"/v1/objects/{OBJECT_KEY}/records"
RECORD_PATH = f"{RECORDS_PATH}/{RECORD_ID}"

FILLED = {
    "name": "Globex expansion",
    "notes": "Two lines\nof notes",
    "seats": "42",
    "amount": "1999.9",
    "close_date": "2026-12-24",
    "meeting_at": "2026-11-23T14:15",
    "active": "on",
    "email": "cfo@globex.test",
    "phone": "+1 555 0100",
    "website": "https://globex.test",
    "status": "opt-lost",
    "tags": ["opt-hot", "opt-vip"],
    "stage": "opt-lead",
    "logo": "https://cdn.globex.test/logo.png",
    "contract": "https://cdn.globex.test/contract.pdf",
}


def acme_form(*, meeting_at: str = "2026-11-22T09:30", **changes) -> dict:
    """The edit form of ACME as a browser posts it unchanged (09:30Z shown in
    a UTC workspace), with `changes` applied."""
    values = ACME["values"]
    form = {key: value for key, value in values.items() if not isinstance(value, (bool, int, float))}
    form.update(seats=str(values["seats"]), amount="1234.50", active="on", meeting_at=meeting_at)
    return {**form, **changes}


def field_group(html: str, key: str) -> Tag:
    """One field's group in the record form (label, input, help, errors: templates/forms/field.html)."""
    return one(html, f'#record-form [data-field="{key}"] .form-field')


@pytest.fixture
def definition(remote):
    return remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))


def test_new_form_has_one_widget_per_type(console, definition):
    form = one(console.get(NEW_URL).content, "#record-form")
    inputs = {
        "seats": ("number", "any"),
        "amount": ("number", "0.01"),
        "close_date": ("date", None),
        "meeting_at": ("datetime-local", "60"),
        "active": ("checkbox", None),
        "email": ("email", None),
        "phone": ("tel", None),
        "website": ("url", None),
        "logo": ("url", None),
        "contract": ("url", None),
    }
    for name, (kind, step) in inputs.items():
        element = one(form, f"input[name={name}]")
        assert (element["type"], element.get("step")) == (kind, step), name
    assert one(form, "textarea[name=notes]")
    assert [o["value"] for o in select(form, "select[name=status] option") if o.text == "Open"] == ["opt-open"]
    assert one(form, "select[name=stage]")
    assert [box["type"] for box in select(form, 'input[name=tags][value="opt-hot"]')] == ["checkbox"]
    assert (one(form, "input[name=logo]")["data-preview"], one(form, "input[name=contract]")["data-preview"]) == (
        "image",
        "file",
    )
    # Required mark and attribute mirrored from the definition.
    name = one(form, "input[name=name]")
    assert name.has_attr("required") and name["id"] == "id_name"
    assert one(form, "label[for=id_name] .required-mark")
    assert one(form, "input[name=idempotency_key]")["value"]


def test_create_sends_typed_values_with_the_forms_idempotency_key(paris_console, definition, remote):
    create = remote.post(RECORDS_PATH).mock(return_value=httpx.Response(201, json={**ACME, "id": RECORD_ID}))
    key = hidden_value(paris_console.get(NEW_URL).content.decode(), "idempotency_key")

    response = paris_console.post(NEW_URL, {**FILLED, "idempotency_key": key})

    assert response.status_code == 302
    assert response["Location"] == f"/objects/{OBJECT_KEY}/records/{RECORD_ID}/"
    call = create.calls.last
    assert call.request.headers["Idempotency-Key"] == key
    assert sent_json(call) == {
        "values": {
            "name": "Globex expansion",
            "notes": "Two lines\nof notes",
            "seats": 42,
            "amount": 1999.9,
            "close_date": "2026-12-24",
            "meeting_at": "2026-11-23T13:15:00Z",  # 14:15 in Paris is 13:15 UTC
            "active": True,
            "email": "cfo@globex.test",
            "phone": "+1 555 0100",
            "website": "https://globex.test",
            "status": "opt-lost",
            "tags": ["opt-hot", "opt-vip"],
            "stage": "opt-lead",
            "logo": "https://cdn.globex.test/logo.png",
            "contract": "https://cdn.globex.test/contract.pdf",
        }
    }


def test_htmx_create_redirects_the_browser(console, definition, remote):
    remote.post(RECORDS_PATH).mock(return_value=httpx.Response(201, json=ACME))
    response = console.post(NEW_URL, {"name": "Only a name"}, **HTMX)
    assert response["HX-Redirect"] == f"/objects/{OBJECT_KEY}/records/{RECORD_ID}/"


def test_the_same_form_posted_twice_reuses_its_key(console, definition, remote):
    create = remote.post(RECORDS_PATH).mock(return_value=httpx.Response(201, json=ACME))
    key = hidden_value(console.get(NEW_URL).content.decode(), "idempotency_key")

    console.post(NEW_URL, {"name": "Twice", "idempotency_key": key})
    console.post(NEW_URL, {"name": "Twice", "idempotency_key": key})

    assert create.call_count == 2
    assert {call.request.headers["Idempotency-Key"] for call in create.calls} == {key}


def test_422_lands_on_the_named_field_and_keeps_every_typed_value(console, definition, remote):
    create = remote.post(RECORDS_PATH).mock(
        side_effect=[
            httpx.Response(
                422,
                json=error_body(
                    "validation_error",
                    "Phone (phone) must be a phone number (digits, spaces, + - ( )).",
                    details={"phone": ["must be a phone number (digits, spaces, + - ( ))"]},
                    request_id="req_422_phone",
                ),
            ),
            httpx.Response(201, json=ACME),
        ]
    )
    key = hidden_value(console.get(NEW_URL).content.decode(), "idempotency_key")
    typed = {**FILLED, "phone": "call me", "idempotency_key": key}

    response = console.post(NEW_URL, typed, **HTMX)

    assert response.status_code == 200  # htmx swaps it
    html = response.content.decode()
    page = parse(html)
    assert one(page, "form#record-form") and not select(page, "html body")
    phone = field_group(html, "phone")
    assert "has-error" in phone["class"]
    error = one(phone, ".field-error")
    assert (error["id"], error["role"]) == ("id_phone_error", "alert")
    assert "Phone must be a phone number" in text_of(error)
    phone_input = one(phone, "input[name=phone]")
    assert phone_input["aria-invalid"] == "true"
    assert phone_input["aria-describedby"].split() == ["id_phone_helptext", "id_phone_error"]
    assert "req_422_phone" in text_of(page)
    # Everything typed is still there.
    shown = form_values(one(page, "form#record-form"))
    assert {key: shown.get(key) for key in ("phone", "name", "notes", "meeting_at", "status", "tags")} == {
        "phone": "call me",
        "name": "Globex expansion",
        "notes": "Two lines\nof notes",
        "meeting_at": "2026-11-23T14:15",
        "status": "opt-lost",
        "tags": ["opt-hot", "opt-vip"],
    }
    # A new key after the refusal: the corrected body is a new logical write.
    new_key = hidden_value(html, "idempotency_key")
    assert new_key != key

    console.post(NEW_URL, {**typed, "phone": "+1 555 0100", "idempotency_key": new_key}, **HTMX)
    assert create.calls.last.request.headers["Idempotency-Key"] == new_key


def test_a_locally_invalid_form_keeps_its_key_and_sends_nothing(console, definition, remote):
    create = remote.post(RECORDS_PATH).mock(return_value=httpx.Response(201, json=ACME))
    key = hidden_value(console.get(NEW_URL).content.decode(), "idempotency_key")

    html = console.post(NEW_URL, {"name": "", "email": "not-an-email", "idempotency_key": key}).content.decode()

    assert create.call_count == 0
    assert "This field is required." in text_of(one(field_group(html, "name"), ".field-error"))
    email = field_group(html, "email")
    assert "Enter a valid email address." in text_of(one(email, ".field-error"))
    assert one(email, "input[name=email]")["value"] == "not-an-email"
    assert hidden_value(html, "idempotency_key") == key


def test_edit_form_shows_stored_values_in_the_workspace_zone(paris_console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    form = one(paris_console.get(EDIT_URL).content, "#record-form")
    assert one(form, "input[name=meeting_at]")["value"] == "2026-11-22T10:30"  # 09:30Z shown in Paris
    assert one(form, "input[name=amount]")["value"] in ("1234.5", "1234.50")
    chosen = [(option["value"], text_of(option)) for option in select(form, "select[name=status] option[selected]")]
    assert chosen == [("opt-open", "Open")]
    active = one(form, "input[name=active]")
    assert active["type"] == "checkbox" and active.has_attr("checked")


def test_edit_sends_only_changed_keys_and_null_for_cleared(paris_console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    update = remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    html = paris_console.get(EDIT_URL).content.decode()
    key = hidden_value(html, "idempotency_key")

    response = paris_console.post(
        EDIT_URL,
        acme_form(meeting_at="2026-11-22T10:30", seats="1300", email="", active="", idempotency_key=key),
    )

    assert response.status_code == 302
    call = update.calls.last
    assert sent_json(call) == {"values": {"seats": 1300, "email": None, "active": False}}
    assert call.request.headers["Idempotency-Key"] == key


def test_an_unchanged_edit_sends_nothing(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    update = remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    # Same values, written differently: 1234.5 for 1234.50, tags in another order.
    response = console.post(EDIT_URL, acme_form(amount="1234.5", tags=["opt-vip", "opt-hot"]))
    assert response.status_code == 302
    assert update.call_count == 0


def test_edit_422_names_the_field(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    remote.patch(RECORD_PATH).mock(
        return_value=httpx.Response(
            422,
            json=error_body("validation_error", "Seats (seats) must be a number.", request_id="req_seats"),
        )
    )
    html = console.post(EDIT_URL, {"name": "Acme renewal", "seats": "7"}, **HTMX).content.decode()
    seats = field_group(html, "seats")
    assert "Seats (seats) must be a number." in text_of(one(seats, ".field-error[role=alert]"))
    assert one(seats, "input[name=seats]")["value"] == "7"


def test_remote_server_error_on_create_is_shown_and_the_key_kept_for_a_retry(console, definition, remote):
    create = remote.post(RECORDS_PATH).mock(
        return_value=httpx.Response(503, json=error_body("server_error", "down", request_id="req_down"))
    )
    key = hidden_value(console.get(NEW_URL).content.decode(), "idempotency_key")
    response = console.post(NEW_URL, {"name": "Retry me", "idempotency_key": key}, **HTMX)
    assert response.status_code == 200
    assert "req_down" in response.content.decode()
    assert create.calls.last.request.headers["Idempotency-Key"] == key
