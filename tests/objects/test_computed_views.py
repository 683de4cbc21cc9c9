"""The computed columns page of an object (objects/views/computed.py)
against a mocked service (respx): a formula refused in words in place with
everything typed kept, a lookup or rollup's missing parts named, columns kept
for their workspace only, removal; and the grid and export showing them
read-only, computed on the page's records."""

from __future__ import annotations

import csv
import io

import httpx
import pytest
from django.utils import translation

from dashboard.keys.testing import stored_api_key
from dashboard.people.models import Person
from objects.models import ComputedColumn
from tests.html import form_values, one, parse, select, text_of, texts
from tests.objects.records_fixtures import ACME, DEALS, OBJECT_KEY, page, record
from tests.objects.support import WORKSPACE_ID

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
PAGE = f"/objects/{OBJECT_KEY}/settings/computed/"
ADD = f"{PAGE}add/"
RECORDS = f"/objects/{OBJECT_KEY}/records/"


@pytest.fixture
def definition(remote):
    return remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))


def field_error(html, name: str) -> str:
    group = one(html, f'[name="{name}"]').find_parent(class_="form-field")
    assert group is not None, f"{name} is in no field group"
    return text_of(one(group, ".field-error"))


def test_the_page_says_the_service_has_no_such_fields_and_offers_the_form(console, definition):
    html = parse(console.get(PAGE).content)

    assert "The service has no computed fields" in text_of(one(html, "main"))
    assert text_of(one(html, "h1")) == "Computed columns of Deals"
    form = one(html, "form#computed-form")
    assert {"name", "kind", "formula", "relation_key", "field_key", "function"} <= set(form_values(form))
    assert "No computed columns yet." in text_of(one(html, "main"))


def test_a_formula_with_a_type_error_is_refused_in_words_in_place_nothing_typed_lost(console, definition):
    typed = {"name": "Price per seat", "kind": "formula", "formula": "{Amount} / name"}

    assert console.post(ADD, typed).status_code == 422  # the whole page, without JavaScript
    response = console.post(ADD, typed, **HTMX)

    assert response.status_code == 200  # the form in place (htmx swaps a 2xx)
    html = parse(response.content)
    assert field_error(html, "formula") == "“/” needs numbers, but {Name} is text."
    kept = form_values(one(html, "form#computed-form"))
    assert kept["name"] == "Price per seat" and kept["formula"] == "{Amount} / name"
    assert not ComputedColumn.objects.exists()


def test_an_unknown_field_is_named_with_the_closest_one(console, definition):
    html = parse(console.post(ADD, {"name": "Twice", "kind": "formula", "formula": "{Amont} * 2"}).content)
    assert field_error(html, "formula") == "No field is called “Amont”. Did you mean {Amount}?"


def test_a_rollup_names_what_it_is_missing(console, definition):
    html = parse(console.post(ADD, {"name": "Total", "kind": "rollup", "relation_key": "Bad Key"}).content)
    assert "lower case letters" in field_error(html, "relation_key")
    assert field_error(html, "function").startswith("Choose how to roll up")

    html = parse(
        console.post(ADD, {"name": "Total", "kind": "rollup", "relation_key": "company", "function": "sum"}).content
    )
    assert field_error(html, "field_key") == "Name the field of the linked records to read (its key)."


def test_a_name_taken_by_a_field_or_a_column_is_refused(console, definition):
    assert console.post(ADD, {"name": "Twice", "kind": "formula", "formula": "seats * 2"}).status_code == 302
    html = parse(console.post(ADD, {"name": "twice", "kind": "formula", "formula": "seats * 3"}).content)
    assert "exists already" in field_error(html, "name")
    html = parse(console.post(ADD, {"name": "Amount", "kind": "formula", "formula": "seats * 3"}).content)
    assert "A field is called “Amount”" in field_error(html, "name")


def test_a_saved_column_is_listed_and_removed(console, definition):
    console.post(ADD, {"name": "Twice", "kind": "formula", "formula": "seats * 2"})
    column = ComputedColumn.objects.get()
    assert (column.workspace_id, column.object_key, column.formula) == (WORKSPACE_ID, OBJECT_KEY, "seats * 2")
    html = parse(console.get(PAGE).content)
    assert texts(html, "table tbody th") == ["Twice"]
    assert "Formula: seats * 2" in text_of(one(html, "table tbody"))

    assert console.post(f"{PAGE}{column.pk}/remove/").status_code == 302
    assert not ComputedColumn.objects.exists()


def test_columns_belong_to_their_workspace(console, definition, user):
    """Another workspace's columns are neither shown nor removable with this key."""
    other = ComputedColumn.objects.create(
        workspace_id="ws-other", object_key=OBJECT_KEY, name="Theirs", kind="formula", formula="1"
    )
    assert "Theirs" not in text_of(one(parse(console.get(PAGE).content), "main"))
    assert console.post(f"{PAGE}{other.pk}/remove/").status_code == 404
    assert ComputedColumn.objects.filter(pk=other.pk).exists()


def test_the_grid_and_the_export_show_them_read_only(console, definition, remote):
    for name, formula in (("Twice", "seats * 2"), ("Who", 'UPPER(name) & "!"'), ("Soon", "close_date + 7")):
        ComputedColumn.objects.create(
            workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY, name=name, kind="formula", formula=formula
        )
    bare = record("7a1c2d3e-0000-4000-8000-0000000000b9", "Bare")
    remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(return_value=httpx.Response(200, json=page([ACME, bare])))

    html = parse(console.get(RECORDS, {"view": "all"}).content)

    headers = select(html, "table.records thead th.records-computed-col")
    assert [text_of(h) for h in headers] == ["Twice computed", "Who computed", "Soon computed"]
    rows = select(html, "table.records tbody:not(.records-more) tr")
    acme = [text_of(td) for td in rows[0].find_all("td")][-5:-2]
    seats = ACME["values"]["seats"]
    assert acme[0] == f"{seats * 2:,}"
    assert acme[1] == ACME["values"]["name"].upper() + "!"
    assert [text_of(td) for td in rows[1].find_all("td")][-5:-2] == ["—", "BARE!", "—"]

    export = console.get(f"{RECORDS}export.csv")
    lines = list(csv.reader(io.StringIO(b"".join(export.streaming_content).decode())))
    assert lines[0][-5:] == ["Twice (computed)", "Who (computed)", "Soon (computed)", "Created", "Updated"]
    assert lines[1][-5:-2][1] == ACME["values"]["name"].upper() + "!"


def test_a_viewer_still_sees_computed_columns_in_the_grid(logged_in_client, user, definition, remote):
    """Reading them needs a working key of the workspace, not a writing role."""
    stored_api_key(user=user, secret="sk_view", workspace_id=WORKSPACE_ID, member_role="viewer", key_id="key-viewer")
    ComputedColumn.objects.create(
        workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY, name="Twice", kind="formula", formula="seats * 2"
    )
    remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(return_value=httpx.Response(200, json=page([ACME])))
    html = parse(logged_in_client.get(RECORDS, {"view": "all"}).content)
    assert [text_of(h) for h in select(html, "th.records-computed-col")] == ["Twice computed"]


@pytest.fixture
def speaking(console, user):
    """Signs the person in again with a language chosen (the session carries it); the
    language the sign-in activated in this thread is put back after the test."""

    def speak(language: str) -> None:
        Person.objects.update_or_create(user=user, defaults={"language": language})
        console.force_login(user)

    yield speak
    translation.deactivate()


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("de", "„/“ braucht Zahlen, aber {Name} ist Text."),
        ("fr", "« / » attend des nombres, mais {Name} est du texte."),
    ],
)
def test_a_refused_formula_is_said_in_the_persons_language(console, definition, speaking, language, said):
    """The person's own language (Person.language, carried by the session from sign-in); the field's name as typed."""
    speaking(language)
    typed = {"name": "Price per seat", "kind": "formula", "formula": "{Amount} / name"}

    html = parse(console.post(ADD, typed, **HTMX).content)

    assert field_error(html, "formula") == said


def test_an_unknown_field_and_its_closest_one_in_german(console, definition, speaking):
    speaking("de")

    html = parse(console.post(ADD, {"name": "Twice", "kind": "formula", "formula": "{Amont} * 2"}).content)

    assert field_error(html, "formula") == "Kein Feld heißt „Amont“. Meinten Sie {Amount}?"
