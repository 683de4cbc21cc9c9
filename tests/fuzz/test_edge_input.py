"""The edge's own readers, case by case: strict JSON with positions, the
path converters, bounded numbers. (tests/fuzz/test_fuzz.py drives them
through every URL.)"""

from __future__ import annotations

import pytest
from django.urls import Resolver404, resolve, reverse

from dashboard.web.json_input import JsonInputError, parse_json_input, parse_json_object
from dashboard.web.params import bounded_int, database_id
from tests.html import one


@pytest.mark.parametrize(
    ("typed", "where", "words"),
    [
        ('{"a": NaN}', (1, 7), "NaN is not a JSON number"),
        ("[1,\n -Infinity]", (2, 2), "-Infinity is not a JSON number"),
        ('{"a": Infinity}', (1, 7), "Infinity is not a JSON number"),
        ("[1e999]", (1, 2), "too large"),
        ('"\\ud800"', (1, 2), "lone UTF-16 surrogate"),
        ('{"x": "a\\udc00"}', (1, 9), "lone UTF-16 surrogate"),
        ('{"x": "\ud800"}', (1, 8), "lone UTF-16 surrogate"),
        ("[" * 33 + "]" * 33, (1, 33), "nested too deeply"),
        ("1" * 101, (1, 1), "too long"),
        ("{order: 42", (1, 2), "not valid JSON"),
    ],
)
def test_json_that_python_would_take_but_the_console_must_not_is_refused_with_its_position(typed, where, words):
    with pytest.raises(JsonInputError) as refused:
        parse_json_input(typed)
    assert (refused.value.line, refused.value.column) == where
    assert words in refused.value.message
    assert str(refused.value).startswith(f"Line {where[0]}, column {where[1]}: ")


def test_valid_json_is_read_whole_including_escaped_pairs_and_text_that_looks_like_constants():
    assert parse_json_input('{"emoji": "\\ud83d\\ude00", "word": "NaN", "n": -1.5e3, "deep": [[[]]]}') == {
        "emoji": "😀",
        "word": "NaN",
        "n": -1500.0,
        "deep": [[[]]],
    }
    assert parse_json_input('"a\\\\ud800"') == "a\\ud800"  # an escaped backslash, not an escape


def test_size_and_shape_limits():
    with pytest.raises(JsonInputError, match="too long"):
        parse_json_input('"' + "x" * 70_000 + '"')
    with pytest.raises(JsonInputError, match="The event must be a JSON object"):
        parse_json_object("[1, 2]", what="The event", example='{"order": 42}')


@pytest.mark.parametrize("bad", ["\x00", "a\r\nb", "\x7f", "\x85", "x" * 201])
def test_a_path_id_no_id_can_hold_is_a_404_at_the_router(bad):
    with pytest.raises(Resolver404):
        resolve(f"/agents/{bad}/")


@pytest.mark.parametrize("path", ["/agents/%00/", "/objects/deals/records/a%0D%0Ab/", "/runs/%E2%80%8F%7F/"])
def test_a_bad_id_in_a_url_is_a_404_page(logged_in_client, path):
    assert logged_in_client.get(path).status_code == 404


def test_an_ordinary_id_resolves_and_reverses_and_a_huge_pk_does_not_resolve():
    assert resolve("/agents/a1b2-c3/").kwargs == {"agent_id": "a1b2-c3"}
    assert reverse("objects:record", args=["deals", "rec 1"]) == "/objects/deals/records/rec%201/"
    assert resolve("/live/12/").kwargs == {"pk": 12}
    with pytest.raises(Resolver404):
        resolve(f"/live/{2**63}/")
    with pytest.raises(Resolver404):
        resolve("/live/0/")


@pytest.mark.parametrize(
    ("value", "expected"),
    [("3", 3), (" 7 ", 7), ("", 0), (None, 0), ("²", 0), ("٣", 0), ("1" * 5000, 0), ("-5", 0), ("99999", 50), ("x", 0)],
)
def test_bounded_int_never_raises(value, expected):
    assert bounded_int(value, default=0, lowest=0, highest=50) == expected


def test_database_id_fits_a_big_integer():
    assert database_id("42") == 42
    assert database_id(str(2**63)) is None
    assert database_id("0") is None
    assert database_id("4e2") is None


@pytest.mark.parametrize(
    "tampered",
    [
        {"fields-TOTAL_FORMS": "x", "fields-INITIAL_FORMS": "0"},
        {"fields-TOTAL_FORMS": "²", "fields-INITIAL_FORMS": "0", "add_field": ""},
        {"fields-INITIAL_FORMS": "0"},
        {
            "fields-TOTAL_FORMS": "1",
            "fields-INITIAL_FORMS": "0",
            "fields-0-label": "Name",
            "fields-0-original_key": "x",
        },
    ],
)
def test_a_tampered_hidden_field_of_the_object_form_is_a_form_error_and_keeps_what_was_typed(
    logged_in_client, tampered
):
    response = logged_in_client.post(
        reverse("objects:create"), {"singular_name": "Lead", "plural_name": "Leads", **tampered}
    )

    assert response.status_code == 200
    assert one(response.content, "input[name=plural_name]")["value"] == "Leads"
    if "fields-TOTAL_FORMS" not in tampered or tampered["fields-TOTAL_FORMS"] == "x":
        from tests.html import texts

        assert "hidden row counts were changed" in " ".join(texts(response.content, "[role=alert].field-error"))
