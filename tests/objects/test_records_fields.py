"""The records side of the 15 field types (objects/fields.py), the URL state
of the table (objects/table.py) and the relationship reading: plain functions."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.http import QueryDict

from dashboard.frame.forms import field_named_in
from objects.fields import api_value, cell, comparable, csv_value, field_defs, form_field
from objects.filters import RecordFilter
from objects.forms import RecordForm
from objects.links import link_from, links_by_relation
from objects.table import TableState
from tests.html import roots, select, text_of
from tests.objects.records_fixtures import DEALS, OBJECT_KEY, OTHER_ID, RECORD_ID

FIELDS = {f.key: f for f in field_defs(DEALS)}
BERLIN = ZoneInfo("Europe/Berlin")
UTC = dt.UTC


def test_title_field_comes_first_and_options_are_read_tolerantly():
    assert [f.key for f in field_defs(DEALS)][:2] == ["name", "notes"]
    plain = field_defs({"fields": [{"key": "s", "type": "select", "options": ["Open", "Lost"]}]})[0]
    assert [(o.id, o.label) for o in plain.options] == [("Open", "Open"), ("Lost", "Lost")]
    assert field_defs({"fields": [{"key": "untyped"}]})[0].type == "text"


@pytest.mark.parametrize(
    ("key", "stored", "kind", "text"),
    [
        ("seats", 1234567, "number", "1,234,567"),
        ("seats", 2.5, "number", "2.5"),
        ("amount", 1234.5, "number", "1,234.50"),
        ("amount", 0.005, "number", "0.01"),
        ("close_date", "2026-03-01", "text", "2026-03-01"),
        ("meeting_at", "2026-07-01T10:00:00.000Z", "text", "2026-07-01 12:00 CEST"),  # summer time
        ("meeting_at", "2026-01-01T10:00:00Z", "text", "2026-01-01 11:00 CET"),
        ("active", False, "mark", "No"),
        ("email", "a@b.test", "link", "a@b.test"),
        ("website", "http://plain.test/x", "link", "http://plain.test/x"),
        ("website", "javascript:alert(1)", "text", "javascript:alert(1)"),
        ("logo", "data:image/png;base64,xx", "text", "data:image/png;base64,xx"),
        ("contract", "https://f.test/a/b/report.pdf?x=1", "file", "report.pdf"),
        ("notes", None, "empty", ""),
        ("tags", [], "empty", ""),
    ],
)
def test_cells_by_type(key, stored, kind, text):
    shown = cell(FIELDS[key], stored, zone=BERLIN)
    assert (shown.kind, shown.text) == (kind, text)


def test_choice_cells_show_labels_and_colours_even_for_stored_labels_or_unknown_ids():
    chips = cell(FIELDS["tags"], ["opt-vip", "Hot", "opt-gone"], zone=UTC).chips
    assert [(c.label, c.color) for c in chips] == [("VIP", "#8b5cf6"), ("Hot", "#f97316"), ("opt-gone", "")]
    assert csv_value(FIELDS["status"], "opt-lost", zone=UTC) == "Lost"
    assert csv_value(FIELDS["tags"], ["opt-hot", "opt-vip"], zone=UTC) == "Hot; VIP"


def test_values_sent_to_the_service():
    assert api_value(FIELDS["amount"], Decimal("10.005")) == 10.01
    assert api_value(FIELDS["seats"], Decimal("12")) == 12
    assert api_value(FIELDS["seats"], Decimal("1.5")) == 1.5
    assert api_value(FIELDS["active"], False) is False
    assert api_value(FIELDS["email"], "") is None  # clears the field
    assert api_value(FIELDS["tags"], []) is None
    assert api_value(FIELDS["close_date"], dt.date(2026, 2, 3)) == "2026-02-03"


def test_datetime_field_reads_and_shows_workspace_wall_clock_time():
    field = form_field(FIELDS["meeting_at"], zone=BERLIN)
    parsed = field.clean("2026-07-01T12:00")
    assert api_value(FIELDS["meeting_at"], parsed) == "2026-07-01T10:00:00Z"
    assert field.prepare_value("2026-01-01T10:00:00Z") == "2026-01-01T11:00"
    assert field.prepare_value("not a date") == "not a date"  # what was typed stays
    with pytest.raises(ValidationError):
        field.clean("tomorrow")


def test_changes_are_compared_in_one_shape():
    assert comparable(FIELDS["amount"], 1234.5) == comparable(FIELDS["amount"], 1234.50)
    assert comparable(FIELDS["tags"], ["opt-vip", "Hot"]) == comparable(FIELDS["tags"], ["opt-hot", "opt-vip"])
    assert comparable(FIELDS["meeting_at"], "2026-01-01T10:00:00.000Z") == comparable(
        FIELDS["meeting_at"], "2026-01-01T10:00:00Z"
    )
    assert comparable(FIELDS["email"], "") == comparable(FIELDS["email"], None)


def test_filter_values_follow_the_spec():
    fields = list(FIELDS.values())

    def plan(query: str):
        return RecordFilter.from_query(QueryDict(query), fields).plan(fields)

    assert plan("f.active=true&f.tags=opt-hot&f.tags=&f.amount=12.50").remote == {
        "active": True,
        "tags": ["opt-hot"],
        "amount": 12.5,
    }
    assert plan("f.close_date=31/12/2026").problems == ["Close date: enter a date as YYYY-MM-DD."]


def test_table_state_round_trips_through_the_url():
    fields = field_defs(DEALS)
    state = TableState.from_query(
        QueryDict("q=a&f.status=opt-open&f.unknown=x&f.meeting_at=2026&empty=email&sort=bogus&limit=7"), fields
    )
    # Unknown fields and exact datetimes dropped; the older `empty=` read as "is empty".
    assert {key: (c.op, c.values) for key, c in state.filter.conditions.items()} == {
        "status": ("is", ("opt-open",)),
        "email": ("empty", ()),
    }
    assert (state.sort, state.limit) == ("-updated_at", 25)
    again = TableState.from_query(QueryDict(state.query()), fields)
    assert again == state
    third = TableState.from_query(QueryDict(state.next_query("c2")), fields).next_query("c3")
    page3 = TableState.from_query(QueryDict(third), fields)
    assert (page3.cursor, page3.pager.back, page3.page_number) == ("c3", ("", "c2"), 3)
    assert TableState.from_query(QueryDict(page3.previous_query()), fields).cursor == "c2"
    assert "cursor" not in page3.export_query() and "limit" not in page3.export_query()


def test_links_read_from_both_directions_and_other_spellings():
    outgoing = link_from(
        {"relation_key": "company", "direction": "outgoing", "target": {"object": "companies", "id": OTHER_ID}},
        object_key=OBJECT_KEY,
        record_id=RECORD_ID,
    )
    assert (outgoing.direction, outgoing.object_key, outgoing.record_id) == ("outgoing", "companies", OTHER_ID)
    incoming = link_from(
        {"relation_key": "owner", "source": {"object_key": "agents", "record_id": "ag-1"}, "target": {"id": RECORD_ID}},
        object_key=OBJECT_KEY,
        record_id=RECORD_ID,
    )
    assert (incoming.direction, incoming.object_key, incoming.record_id) == ("incoming", "agents", "ag-1")
    groups = links_by_relation(
        [
            {"relation_key": "b", "other": {"object": "x", "id": "1"}},
            {"relation_key": "a", "other": {"object": "x", "id": "2"}},
        ],
        object_key=OBJECT_KEY,
        record_id=RECORD_ID,
    )
    assert [key for key, _ in groups] == ["a", "b"]


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ("Phone (phone) must be a phone number.", "phone"),
        ("'close_date' must be a date", "close_date"),
        ("Close date is required", "close_date"),
        ("Something else went wrong", None),
    ],
)
def test_service_messages_name_their_field(message, field):
    form = RecordForm(definition=DEALS, zone=UTC)
    assert field_named_in(message, form) == field


def test_long_text_is_cut_in_the_table_and_whole_on_the_record_page():
    from objects.cell_markup import render_cell

    text = "First line <b>\n" + "x" * 200
    shown = cell(FIELDS["notes"], text, zone=UTC)
    short, whole = render_cell(shown), render_cell(shown, full=True)
    (cut,) = roots(short)
    assert text_of(cut).endswith("…") and "x" * 200 not in text_of(cut)  # the full text stays in the title
    assert "x" * 200 in cut.get("title", "")
    assert "x" * 200 in whole and "&lt;b&gt;\n" in whole  # escaped, lines kept for CSS pre-line
    assert select(short, "b") == [] and select(whole, "b") == []  # the tag typed is text, not markup
