"""OR groups in the records filter bar against the real sandbox (the seeded
deals of tests/objects/conftest.py): begun and extended without JavaScript
(a field picker and the form's own submit), read in words, removed by a
link that keeps the rest of the table's state, and kept by the board and
the looks switch."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.html import one, parse, select, text_of, texts
from tests.objects.support import deals_named, shown

pytestmark = pytest.mark.django_db

# (Stage is Won or Seats > 27) and Email is not empty: deals 0, 5, 10 are Won; 10, 11 have seats > 27.
GROUPED = {"or.1.1.f.stage": "Won", "or.1.2.op.seats": "gt", "or.1.2.f.seats": "27", "op.email": "not_empty"}


def test_a_new_group_begins_with_a_blank_control_of_the_field_picked(deals, logged_in_client):
    address = f"/objects/{deals['key']}/records/"
    html = parse(logged_in_client.get(address, {"or.add": "stage", "sort": "name"}).content)
    group = one(html, "fieldset.filter-or__group")
    assert text_of(group.find("legend")) == "Group 1"
    assert {box["name"] for box in select(group, "input[type=checkbox]")} == {"or.1.1.f.stage"}
    # A blank control is no condition: every record is still shown.
    assert shown(logged_in_client.get(address, {"or.add": "stage"})) == deals_named(*range(12), bare=True)
    # From htmx (the form's own submit), the whole page is asked for, since the bar changes.
    swapped = logged_in_client.get(address, {"or.add": "stage"}, HTTP_HX_REQUEST="true")
    assert swapped.headers["HX-Redirect"].endswith("or.add=stage")


def test_a_group_reads_in_words_filters_and_takes_another_alternative(deals, logged_in_client):
    address = f"/objects/{deals['key']}/records/"
    response = logged_in_client.get(address, {**GROUPED, "or.add.1": "status", "sort": "name"})
    assert shown(response) == deals_named(0, 5, 10, 11)
    html = parse(response.content)
    assert text_of(one(html, ".filter-summary")) == (
        "2 active Stage is “Won” or Seats > 27, and Email is not empty — 4 matches in the 13 records read (1 page)."
    )
    group = one(html, "fieldset.filter-or__group")
    assert text_of(group.find("legend")) == "Group 1: Stage is “Won” or Seats > 27"
    # Two alternatives, and the third begun with the field picked.
    assert len(select(group, ".filter-or__branch")) == 3
    assert one(group, "select[name='or.1.3.op.status']")
    # Remove: the same table (its sort, its other conditions) without the group.
    remove = dict(parse_qsl(urlsplit(one(group, "a[aria-label='Remove group 1']")["href"]).query))
    assert remove == {"op.email": "not_empty", "sort": "name"}


def test_the_board_and_the_looks_switch_keep_the_groups(deals, logged_in_client):
    key = deals["key"]
    board = parse(logged_in_client.get(f"/objects/{key}/kanban/", GROUPED).content)
    assert sorted(texts(str(board), ".kanban-card__title")) == deals_named(0, 5, 10, 11)
    table = parse(logged_in_client.get(f"/objects/{key}/records/", GROUPED).content)
    calendar = [a["href"] for a in select(table, "a") if "/calendar/" in a.get("href", "")]
    assert calendar and all("or.1.2.op.seats=gt" in href for href in calendar)
