"""The grid's paste and fill down, pure logic (objects/grid_paste.py): the
spreadsheet's text read as cells, a block laid onto the rows and columns the
grid showed, what is refused and why in words naming the field, and only
the cells that differ planned, with the values they replace."""

from __future__ import annotations

import datetime as dt

import pytest
from django.http import QueryDict
from django.utils import translation

from objects.bulk import Selection
from objects.fields import field_defs
from objects.grid_paste import (
    FILL,
    PASTE,
    SHOWN_FIELD,
    Column,
    Region,
    fill_wanted,
    paste_wanted,
    plan_changes,
    shown_from_data,
    size_words,
    tsv_parse,
)

DEFINITION = {
    "key": "deals",
    "plural_name": "Deals",
    "title_field": "name",
    "fields": [
        {"key": "name", "label": "Name", "type": "text", "required": True},
        {"key": "seats", "label": "Seats", "type": "number"},
        {"key": "amount", "label": "Amount", "type": "currency", "currency": "USD"},
        {"key": "active", "label": "Active", "type": "boolean"},
        {
            "key": "status",
            "label": "Status",
            "type": "select",
            "options": [{"id": "opt_open", "label": "Open"}, {"id": "opt_lost", "label": "Lost"}],
        },
        {"key": "created_by", "label": "Created by", "type": "text", "origin": "system"},
    ],
}
FIELDS = field_defs(DEFINITION)
RECORDS = {
    f"rec_{i}": {"id": f"rec_{i}", "values": {"name": f"Deal {i}", "seats": i, "amount": 10.5, "status": "opt_open"}}
    for i in range(3)
}
COLUMNS = [Column("name", "Name"), Column("seats", "Seats"), Column("amount", "Amount"), Column("status", "Status")]


def region(ids: list[str], columns: list[Column], *, raw: str = "", mode: str = PASTE) -> Region:
    return Region(mode=mode, selection=Selection(scope="ids", ids=ids, query=""), columns=columns, raw=raw)


def wanted_of(raw: str, ids=("rec_0", "rec_1", "rec_2"), columns=COLUMNS):
    return paste_wanted(
        tsv_parse(raw),
        region(list(ids), list(columns), raw=raw),
        definition=DEFINITION,
        fields=FIELDS,
        records=RECORDS,
        zone=dt.UTC,
    )


@pytest.mark.parametrize(
    ("raw", "rows"),
    [
        ("a\tb\nc\td\n", [["a", "b"], ["c", "d"]]),
        ("a\tb\r\nc\td", [["a", "b"], ["c", "d"]]),
        ("one", [["one"]]),
        ("a\t\tc", [["a", "", "c"]]),
        ("a\t", [["a", ""]]),
        ('"two\nlines"\tx', [["two\nlines", "x"]]),
        ('"tab\there"\t"say ""hi"""', [["tab\there", 'say "hi"']]),
        ('6" pipe\tx', [['6" pipe', "x"]]),  # a quote inside an unquoted cell is kept as typed
        ("\n", []),
        ("", []),
    ],
)
def test_tsv_is_read_as_spreadsheets_write_it(raw, rows):
    assert tsv_parse(raw) == rows


def test_a_block_is_laid_from_the_first_row_and_column_as_the_grid_shows_them():
    wanted, refused = wanted_of("7\tUSD 1,200.50\n8\t3")
    assert refused == []
    assert wanted == {"rec_0": {"name": "7", "seats": 1200.5}, "rec_1": {"name": "8", "seats": 3}}


def test_typed_values_are_read_as_the_grid_shows_them():
    wanted, refused = wanted_of("5\tUSD 1,200.50\tLost", columns=COLUMNS[1:])
    assert refused == []
    assert wanted == {"rec_0": {"seats": 5, "amount": 1200.5, "status": "opt_lost"}}


def test_refusals_name_the_field_and_the_record():
    wanted, refused = wanted_of("many\tcheap\tMaybe", columns=COLUMNS[1:])
    assert wanted == {}
    assert len(refused) == 3
    assert refused[0].startswith("Deal 0, Seats: ")
    assert refused[1].startswith("Deal 0, Amount: ")
    assert refused[2] == "Deal 0, Status: “Maybe” is not one of: Open, Lost."


def test_an_empty_cell_clears_the_field_but_never_a_required_one():
    wanted, refused = wanted_of("\t", columns=[Column("name", "Name"), Column("seats", "Seats")])
    assert wanted == {"rec_0": {"seats": None}}
    assert refused == ["Deal 0, Name: this field is required."]


def test_rows_past_the_page_and_columns_past_the_table_are_left_out_and_said():
    wanted, refused = wanted_of("1\t2\t3\n4\t5\t6\n7\t8\t9", ids=["rec_1", "rec_2"], columns=COLUMNS[1:3])
    assert set(wanted) == {"rec_1", "rec_2"}
    assert refused == [
        "1 row of the block falls past this page's last row: left out. Paste it from the next page.",
        "1 column of the block falls past the table's last column: left out.",
    ]


def test_computed_and_read_only_columns_are_refused_with_their_cells_counted():
    columns = [Column("", "Total"), Column("created_by", "Created by"), Column("seats", "Seats")]
    wanted, refused = wanted_of("1\t2\t3\n4\t5\t6", columns=columns)
    assert wanted == {"rec_0": {"seats": 3}, "rec_1": {"seats": 6}}
    assert refused == [
        "“Total” is computed, linked or kept by the service, not a field to write: 2 cells left as they are.",
        "“Created by” is kept by the service (read-only): 2 cells left as they are.",
    ]


def test_a_row_whose_record_is_gone_is_said():
    wanted, refused = wanted_of("1\n2", ids=["rec_0", "rec_gone"], columns=[Column("seats", "Seats")])
    assert wanted == {"rec_0": {"seats": 1}}
    assert refused == ["A row's record no longer exists: its cells are left out."]


def test_fill_down_copies_the_top_rows_stored_values():
    records = {**RECORDS, "rec_0": {"id": "rec_0", "values": {"name": "Deal 0", "seats": 42, "status": "opt_lost"}}}
    wanted, refused = fill_wanted(
        region(["rec_0", "rec_1", "rec_2"], [Column("seats", "Seats"), Column("", "Total")], mode=FILL),
        fields=FIELDS,
        records=records,
    )
    assert wanted == {"rec_1": {"seats": 42}, "rec_2": {"seats": 42}}
    assert refused == [
        "“Total” is computed, linked or kept by the service, not a field to write: 2 cells left as they are."
    ]
    assert fill_wanted(region(["rec_0"], COLUMNS, mode=FILL), fields=FIELDS, records=records)[0] == {}


def test_only_the_cells_that_differ_are_planned_with_what_they_replace():
    rows, unchanged, skipped = plan_changes(
        {"rec_1": {"seats": 1, "status": "opt_lost"}, "rec_2": {"seats": 2}},
        definition=DEFINITION,
        fields=FIELDS,
        records=RECORDS,
        zone=dt.UTC,
    )
    assert unchanged == 2 and skipped == []  # rec_1's seats and rec_2's seats already hold the value
    assert [(r.record_id, r.title, r.before, r.written) for r in rows] == [
        ("rec_1", "Deal 1", {"status": "opt_open"}, {"status": "opt_lost"})
    ]
    assert [(c.field.key, c.now.chips[0].label, c.after.chips[0].label) for c in rows[0].cells] == [
        ("status", "Open", "Lost")
    ]


def test_at_confirm_a_cell_changed_since_the_dry_run_is_skipped_by_the_safe_edit_rule():
    # The dry run showed every record as RECORDS holds them; since then a colleague
    # changed rec_1's seats to 7, rec_2's seats to 9 and rec_0's amount to 99.
    shown = {rid: dict(r["values"]) for rid, r in RECORDS.items()}
    now = {rid: {"id": rid, "values": dict(r["values"])} for rid, r in RECORDS.items()}
    now["rec_1"]["values"]["seats"] = 7
    now["rec_2"]["values"]["seats"] = 9
    now["rec_0"]["values"]["amount"] = 99
    wanted = {
        "rec_0": {"seats": 50, "amount": 10.5},  # amount pasted as shown: not the person's change
        "rec_1": {"seats": 51, "status": "opt_lost"},  # seats moved since: skipped; status written
        "rec_2": {"seats": 9},  # the colleague wrote what the block holds: nothing to write
    }
    rows, unchanged, skipped = plan_changes(
        wanted, definition=DEFINITION, fields=FIELDS, records=now, zone=dt.UTC, shown=shown
    )
    assert [(r.record_id, r.before, r.written) for r in rows] == [
        ("rec_0", {"seats": 0}, {"seats": 50}),
        ("rec_1", {"status": "opt_open"}, {"status": "opt_lost"}),
    ]
    assert [(s.record_id, s.title, s.field) for s in skipped] == [("rec_1", "Deal 1", "Seats")]
    assert unchanged == 2  # rec_0's amount (the colleague's 99 stays) and rec_2's seats
    # The dry run itself (nothing shown yet) plans against the records as read.
    rows, _unchanged, skipped = plan_changes(wanted, definition=DEFINITION, fields=FIELDS, records=now, zone=dt.UTC)
    assert skipped == [] and [r.written for r in rows] == [
        {"seats": 50, "amount": 10.5},
        {"seats": 51, "status": "opt_lost"},
    ]


def test_the_shown_values_come_back_from_the_form_or_not_at_all():
    assert shown_from_data(QueryDict(mutable=True)) is None
    data = QueryDict(mutable=True)
    data[SHOWN_FIELD] = '{"rec_1": {"seats": 1}, "rec_2": 3}'
    assert shown_from_data(data) == {"rec_1": {"seats": 1}}
    data[SHOWN_FIELD] = "{not json"
    assert shown_from_data(data) is None


def test_the_region_is_read_from_the_post_and_said_back_whole():
    data = QueryDict(mutable=True)
    data.setlist("ids", ["rec_0", "rec_1", "rec_0", "a/b"])
    data.setlist("keys", ["seats", ""])
    data.setlist("labels", ["Seats", "Total"])
    data.update({"tsv": "1\t2", "mode": "fill", "query": "sort=name"})
    read = Region.from_data(data)
    assert (read.mode, read.ids, read.columns) == (
        FILL,
        ["rec_0", "rec_1"],
        [Column("seats", "Seats"), Column("", "Total")],
    )
    assert Region.from_data(QueryDict("mode=other")).mode == PASTE
    assert ("tsv", "1\t2") in read.hidden_pairs()
    assert size_words(3, 1) == "3 rows by 1 column"


@pytest.mark.parametrize(
    ("language", "said"),
    [
        (
            "de",
            [
                "1 Zeile des Blocks liegt hinter der letzten Zeile dieser Seite: ausgelassen. "
                "Fügen Sie sie auf der nächsten Seite ein.",
                "„Total“ ist berechnet, verknüpft oder wird vom Dienst geführt, kein Feld zum Schreiben: "
                "1 Zelle bleibt, wie sie ist.",
                "Deal 0, Name: dieses Feld ist erforderlich.",
            ],
        ),
        (
            "fr",
            [
                "1 ligne du bloc dépasse la dernière ligne de cette page : laissée de côté. "
                "Collez-la depuis la page suivante.",
                "« Total » est calculé, lié ou tenu par le service, ce n’est pas un champ à écrire : "
                "1 cellule laissée telle quelle.",
                "Deal 0, Name : ce champ est obligatoire.",
            ],
        ),
    ],
)
def test_what_is_refused_is_said_in_the_language_of_the_page(language, said):
    """Translated as the dry run is made (the person's language is active); the field's label as the grid showed it."""
    with translation.override(language):
        _wanted, refused = wanted_of("1\t\n2\t", ids=["rec_0"], columns=[Column("", "Total"), Column("name", "Name")])
    assert refused == said
