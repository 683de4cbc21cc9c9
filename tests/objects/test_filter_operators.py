"""Filters with operators against the real sandbox over HTTP: each operator
finds what it says among seeded deals (tests/objects/conftest.py `deals`:
sandbox/fixtures.py sample_values 0-11 and a bare record), conditions
combine with AND, "Nova" contains finds the record, and a filter the service
cannot answer is narrowed by the console within its page budget, which the
page says."""

from __future__ import annotations

import datetime as dt
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from objects import selectors
from tests.html import one, parse, text_of, texts
from tests.objects.records_fixtures import DEALS, OBJECT_KEY, page, record
from tests.objects.support import DEAL, deals_named, shown

pytestmark = pytest.mark.django_db

RECORDS_URL = f"/objects/{OBJECT_KEY}/records/"
RECORDS_PATH = f"/v1/objects/{OBJECT_KEY}/records"


EVERY = range(12)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # text
        ({"op.name": "contains", "f.name": "deal 01"}, deals_named(10, 11)),
        ({"op.email": "not_contains", "f.email": "buyer1"}, deals_named(0, *range(2, 10), bare=True)),
        ({"f.name": "Deal 003"}, deals_named(3)),
        ({"op.name": "is_not", "f.name": "Deal 003"}, deals_named(*(n for n in EVERY if n != 3), bare=True)),
        ({"op.email": "empty"}, ["Bare"]),
        ({"op.email": "not_empty"}, deals_named(*EVERY)),
        # choice (by label here: the service and the console read labels as ids' names)
        ({"f.status": "Lost"}, deals_named(0, 3, 6, 9)),
        ({"op.status": "is_not", "f.status": "Lost"}, deals_named(1, 2, 4, 5, 7, 8, 10, 11, bare=True)),
        ({"op.stage": "any_of", "f.stage": ["Won", "Lead"]}, deals_named(*EVERY)),
        ({"op.status": "any_of", "f.status": ["Lost"]}, deals_named(0, 3, 6, 9)),
        ({"op.status": "empty"}, ["Bare"]),
        # multi-select
        ({"op.tags": "any_of", "f.tags": ["VIP"]}, deals_named(0, 2, 4, 6, 8, 10)),
        ({"f.tags": ["Hot", "VIP"]}, deals_named(0, 2, 4, 6, 8, 10)),
        # number and currency
        ({"f.seats": "9"}, deals_named(3)),
        ({"op.seats": "is_not", "f.seats": "0"}, deals_named(*range(1, 12), bare=True)),
        ({"op.seats": "lt", "f.seats": "9"}, deals_named(0, 1, 2)),
        ({"op.seats": "lte", "f.seats": "9"}, deals_named(0, 1, 2, 3)),
        ({"op.seats": "gt", "f.seats": "27"}, deals_named(10, 11)),
        ({"op.seats": "gte", "f.seats": "27"}, deals_named(9, 10, 11)),
        ({"op.seats": "between", "f.seats": "6", "to.seats": "12"}, deals_named(2, 3, 4)),
        ({"op.amount": "between", "f.amount": "300", "to.amount": "100"}, deals_named(1, 2)),  # bounds either way
        ({"op.amount": "empty"}, ["Bare"]),
        # date and datetime
        ({"f.close_date": "2026-12-04"}, deals_named(3)),
        ({"op.close_date": "before", "f.close_date": "2026-12-03"}, deals_named(0, 1)),
        ({"op.close_date": "after", "f.close_date": "2026-12-10"}, deals_named(10, 11)),
        (
            {"op.close_date": "between", "f.close_date": "2026-12-02", "to.close_date": "2026-12-04"},
            deals_named(1, 2, 3),
        ),
        ({"op.meeting_at": "after", "f.meeting_at": "2026-11-10"}, deals_named(10, 11)),
        ({"op.meeting_at": "not_empty"}, deals_named(*EVERY)),
        # boolean
        ({"f.active": "true"}, deals_named(0, 2, 4, 6, 8, 10)),
        # AND
        (
            {
                "op.name": "contains",
                "f.name": "DEAL",
                "op.seats": "gt",
                "f.seats": "20",
                "op.status": "is_not",
                "f.status": "Lost",
            },
            deals_named(7, 8, 10, 11),
        ),
    ],
)
def test_each_operator_finds_what_it_says(deals, logged_in_client, query, expected):
    assert shown(logged_in_client.get(f"/objects/{deals['key']}/records/", query)) == expected


def test_within_the_last_n_days_counts_back_from_today(deals, logged_in_client):
    from zoneinfo import ZoneInfo

    service, key = deals["service"], deals["key"]
    # Days are the workspace's (the console counts them in its time zone), not this machine's:
    # between 23:00 and midnight UTC a workspace in Europe is already on the next day.
    zone = ZoneInfo(service.get("/v1/me")["workspace"]["timezone"] or "UTC")
    today = dt.datetime.now(zone).date()
    for name, days_ago in (("Recent", 3), ("Old", 40)):
        day = today - dt.timedelta(days=days_ago)
        service.post(f"/v1/objects/{key}/records", json={"values": {"name": name, "close_date": day.isoformat()}})
    found = shown(
        logged_in_client.get(f"/objects/{key}/records/", {"op.close_date": "last_days", "days.close_date": "7"})
    )
    assert "Recent" in found and "Old" not in found
    # The seeded deals close in December 2026: in the window only if that is the last week.
    window = {DEAL.format(i) for i in EVERY if 0 <= (today - dt.date(2026, 12, i + 1)).days <= 7}
    assert set(found) - {"Recent"} == window


def test_nova_contains_finds_the_record_and_the_bar_says_so(deals, logged_in_client):
    deals["service"].post(f"/v1/objects/{deals['key']}/records", json={"values": {"name": "Nova Industries"}})
    response = logged_in_client.get(f"/objects/{deals['key']}/records/", {"op.name": "contains", "f.name": "nova"})
    assert shown(response) == ["Nova Industries"]
    html = parse(response.content)
    assert text_of(one(html, "#records-filter-badge")) == "1 active"
    assert "Name contains “nova”" in text_of(one(html, ".filter-summary"))
    # The bar shows the condition as it was asked, to change it.
    assert one(html, 'select[name="op.name"] option[selected]').get("value") == "contains"
    assert one(html, 'input[name="f.name"]').get("value") == "nova"


def test_narrowing_stops_at_the_page_budget_and_reads_on_from_there(deals, logged_in_client, settings, monkeypatch):
    settings.OBJECTS_FILTER_PAGE_BUDGET = 2
    monkeypatch.setattr(selectors, "SCAN_PAGE_SIZE", 5)
    address = f"/objects/{deals['key']}/records/"
    query = {"op.name": "not_contains", "f.name": "zzz", "sort": "name"}
    first = logged_in_client.get(address, query)
    html = parse(first.content)
    assert text_of(one(html, ".filter-read")) == (
        "— 10 matches in the 10 records read (2 pages); refine the filters to see more, or read the next pages."
    )
    next_link = one(html, "a[rel=next]").get("href")
    second = logged_in_client.get(address, dict(parse_qsl(urlsplit(next_link).query)))
    assert "3 matches in the 3 records read (1 page)." in text_of(one(parse(second.content), ".filter-read"))
    assert sorted(shown(first) + shown(second)) == deals_named(*EVERY, bare=True)


def test_a_full_budget_without_a_match_reads_ten_pages_of_a_hundred(console, remote):
    """With the default budget the console reads 10 pages of 100 and says so."""
    calls = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        n = len(calls)
        items = [record(f"r{n}-{i}", f"Deal {n}-{i}") for i in range(100)]
        return httpx.Response(200, json=page(items, next_cursor=f"c{n}"))

    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.get(RECORDS_PATH).mock(side_effect=answer)
    html = parse(console.get(RECORDS_URL, {"op.name": "contains", "f.name": "Nova"}).content)
    assert len(calls) == 10
    assert {dict(c.url.params)["limit"] for c in calls} == {"100"}
    # "contains" is sent as the service's search, which narrows its pages first.
    assert {dict(c.url.params).get("search") for c in calls} == {"Nova"}
    assert text_of(one(html, ".filter-read")).startswith("— 0 matches in the 1,000 records read (10 pages)")
    assert OBJECT_KEY in one(html, "a[rel=next]").get("href")


def test_saved_views_keep_operators_and_older_exact_filters_keep_working(deals, logged_in_client, user):
    from objects.models import SavedView

    key = deals["key"]
    logged_in_client.post(
        f"/objects/{key}/views/save/",
        {"name": "Big", "query": "op.seats=gte&f.seats=27&op.email=not_empty&op.phone=contains&cursor=zz"},
    )
    view = SavedView.objects.get()
    # The conditions as the table reads them; a blank one ("contains" nothing) and the page are not kept.
    assert dict(parse_qsl(view.query)) == {"f.seats": "27", "op.seats": "gte", "op.email": "not_empty"}
    assert shown(
        logged_in_client.get(f"/objects/{key}/records/", {**dict(parse_qsl(view.query)), "view": view.pk})
    ) == (deals_named(9, 10, 11))
    # A view saved before operators (exact values, `empty=`) means what it meant.
    status_lost = deals["options"]["status"]["Lost"]
    older = SavedView.objects.create(
        owner=user,
        workspace_id=view.workspace_id,
        object_key=key,
        name="Old",
        query=f"f.status={status_lost}&empty=email",
    )
    assert shown(logged_in_client.get(f"/objects/{key}/views/{older.pk}/", follow=True)) == []
    older.query = f"f.status={status_lost}"
    older.save()
    assert shown(logged_in_client.get(f"/objects/{key}/views/{older.pk}/", follow=True)) == deals_named(0, 3, 6, 9)


def test_export_and_the_board_keep_only_what_the_console_checks(deals, logged_in_client):
    key = deals["key"]
    exported = logged_in_client.get(f"/objects/{key}/records/export.csv", {"op.seats": "gt", "f.seats": "27"})
    lines = b"".join(exported.streaming_content).decode().splitlines()
    assert sorted(line.split(",")[1] for line in lines[1:]) == deals_named(10, 11)
    board = parse(logged_in_client.get(f"/objects/{key}/kanban/", {"op.name": "contains", "f.name": "deal 00"}).content)
    assert sorted(texts(str(board), ".kanban-card__title")) == deals_named(*range(10))


def test_values_that_cannot_be_read_are_explained_and_left_out(deals, logged_in_client):
    html = parse(
        logged_in_client.get(
            f"/objects/{deals['key']}/records/",
            {
                "op.seats": "lt",
                "f.seats": "1e999",
                "op.close_date": "last_days",
                "days.close_date": "soon",
                "f.name": "Deal 003",
            },
        ).content
    )
    assert sorted(text_of(a) for a in html.select("#records-table .alert-error")) == [
        "Close date: enter a number of days (0 or more). This filter was left out.",
        "Seats: enter a number. This filter was left out.",
    ]
    assert texts(str(html), "th.record-title a") == ["Deal 003"]  # the rest still apply
    assert one(html, 'input[name="days.close_date"]').get("value") == "soon"  # nothing typed is lost
