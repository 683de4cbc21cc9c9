"""The kanban board against a mocked service (respx): a column per option in
the options' order, then "No value", each one read with the service's
filter, with its count ("50+" when there are more); a move without
JavaScript is a plain form that PATCHes the one field."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.html import parse, select
from tests.objects.records_fixtures import DEALS, OBJECT_KEY, error_body, page, record

pytestmark = pytest.mark.django_db

RECORDS_PATH = f"/v1/objects/{OBJECT_KEY}/records"


def by_filter(request: httpx.Request) -> httpx.Response:
    wanted = json.loads(request.url.params["filter"])
    assert request.url.params["limit"] == "50"
    if wanted == {"stage": "opt-lead"}:
        return httpx.Response(200, json=page([record(f"l{n}", f"Lead {n}") for n in range(50)], next_cursor="more"))
    if wanted == {"stage": "opt-won"}:
        return httpx.Response(200, json=page([record("w1", "Won one")]))
    assert wanted == {"stage": None}
    return httpx.Response(200, json=page([]))


def test_columns_in_option_order_with_counts(console, remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    listed = remote.get(RECORDS_PATH).mock(side_effect=by_filter)
    html = parse(console.get(f"/objects/{OBJECT_KEY}/kanban/").content)
    heads = [h.get_text(" ", strip=True) for h in select(html, ".kanban-column__head")]
    assert heads == ["Lead 50+", "Won 1", "No value 0"]
    assert len(listed.calls) == 3
    # Group by any select field too: the stage field comes first in the chooser.
    assert [o["value"] for o in select(html, "#kanban-by option")] == ["stage", "status"]
    card = select(html, '.kanban-cards[data-label="Won"] .kanban-card')[0]
    assert [o.get_text() for o in select(card, "select option")] == ["Lead", "Move to…", "No value"]


def test_a_move_without_javascript(console, remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    patched = remote.patch(f"{RECORDS_PATH}/w1").mock(return_value=httpx.Response(200, json=record("w1", "Won one")))
    response = console.post(
        f"/objects/{OBJECT_KEY}/kanban/move/", {"record_id": "w1", "field": "stage", "option": "opt-lead"}
    )
    assert response.status_code == 302 and response["Location"] == f"/objects/{OBJECT_KEY}/kanban/?by=stage"
    assert json.loads(patched.calls[0].request.content) == {"values": {"stage": "opt-lead"}}

    patched.mock(return_value=httpx.Response(422, json=error_body("validation_error", "Stage (stage) is locked.")))
    remote.get(RECORDS_PATH).mock(side_effect=by_filter)
    response = console.post(
        f"/objects/{OBJECT_KEY}/kanban/move/", {"record_id": "w1", "field": "stage", "option": "opt-lead"}
    )
    assert response.status_code == 200
    alert = select(parse(response.content), ".alert-error")[0].get_text(" ", strip=True)
    assert alert == "The card was not moved: Stage (stage) is locked. (request id req_records_1)"


def test_a_move_to_an_option_that_is_gone_is_refused_before_any_write(console, remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    response = console.post(
        f"/objects/{OBJECT_KEY}/kanban/move/",
        {"record_id": "w1", "field": "stage", "option": "opt-gone"},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 400
    assert response.json()["message"] == "“Stage” has no such option any more; reload the board."
    assert not [c for c in remote.calls if c.request.method == "PATCH"]


def test_the_board_keeps_the_tables_search_and_filters(console, remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    lists = remote.get(RECORDS_PATH).mock(
        return_value=httpx.Response(200, json=page([record("r1", "Acme", stage="opt-won", status="opt-open")]))
    )
    table = parse(console.get(f"/objects/{OBJECT_KEY}/records/", {"q": "acme", "f.status": "opt-open"}).content)
    board_link = next(a for a in select(table, "a") if a.get_text(strip=True) == "Kanban")
    assert board_link.get("href") == f"/objects/{OBJECT_KEY}/kanban/?q=acme&f.status=opt-open"
    read_before = len(lists.calls)

    board = parse(console.get(board_link.get("href")).content)

    # Every column's read carries the search and the filter beside its own value.
    sent = [dict(call.request.url.params) for call in list(lists.calls)[read_before:]]
    assert {(p["search"], p["filter"]) for p in sent} == {
        ("acme", json.dumps({"status": "opt-open", "stage": stage}, separators=(",", ":")))
        for stage in ("opt-lead", "opt-won", None)
    }
    assert "search “acme” and 1 filter" in select(board, "#kanban-filter")[0].get_text()
    table_link = next(a for a in select(board, "a") if a.get_text(strip=True) == "Table")
    assert table_link.get("href") == f"/objects/{OBJECT_KEY}/records/?q=acme&f.status=opt-open"
    assert {i.get("value") for i in select(board, ".kanban-move input[name=list]")} == {"q=acme&f.status=opt-open"}

    # A filter on the grouping field itself: the other columns are left out, not read.
    read_before = len(lists.calls)
    board = parse(console.get(f"/objects/{OBJECT_KEY}/kanban/", {"by": "stage", "f.stage": "opt-won"}).content)
    reads = list(lists.calls)[read_before:]
    assert [json.loads(dict(c.request.url.params)["filter"]) for c in reads] == [{"stage": "opt-won"}]
    notes = [n.get_text(strip=True) for n in select(board, ".kanban-column__note")]
    assert notes == ["Left out by the filter on stage."] * 2

    # A move without JavaScript comes back to the same board.
    remote.patch(f"{RECORDS_PATH}/r1").mock(return_value=httpx.Response(200, json=record("r1", "Acme")))
    moved = console.post(
        f"/objects/{OBJECT_KEY}/kanban/move/",
        {"record_id": "r1", "field": "stage", "option": "opt-lead", "list": "q=acme&f.status=opt-open"},
    )
    assert moved.status_code == 302
    assert moved["Location"] == f"/objects/{OBJECT_KEY}/kanban/?q=acme&f.status=opt-open&by=stage"


def test_show_more_adds_a_columns_next_cards_and_keeps_the_filter(console, remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))

    def pages(request: httpx.Request) -> httpx.Response:
        wanted = json.loads(request.url.params["filter"])
        if wanted == {"status": "opt-open", "stage": "opt-lead"}:
            if request.url.params.get("cursor") == "more":
                return httpx.Response(200, json=page([record(f"m{n}", f"More {n}") for n in range(10)]))
            return httpx.Response(200, json=page([record(f"l{n}", f"Lead {n}") for n in range(50)], next_cursor="more"))
        return httpx.Response(200, json=page([]))

    listed = remote.get(RECORDS_PATH).mock(side_effect=pages)
    board = parse(console.get(f"/objects/{OBJECT_KEY}/kanban/", {"f.status": "opt-open"}).content)
    [more] = select(board, ".kanban-more a")
    # Without JavaScript: the column's records in the table, the board's filter kept.
    assert more["href"] == f"/objects/{OBJECT_KEY}/records/?f.status=opt-open&f.stage=opt-lead"
    assert more["hx-get"] == (
        f"/objects/{OBJECT_KEY}/kanban/more/?by=stage&option=opt-lead&cursor=more&shown=50&f.status=opt-open"
    )
    assert more["hx-target"] == "#kanban-more-1"

    answer = parse(console.get(more["hx-get"], HTTP_HX_REQUEST="true").content)
    assert json.loads(listed.calls.last.request.url.params["filter"]) == {"status": "opt-open", "stage": "opt-lead"}
    assert listed.calls.last.request.url.params["cursor"] == "more"
    # The new cards go under the column's others, the count follows, and no next page is offered.
    [cards] = select(answer, "ul[hx-swap-oob]")
    assert cards["hx-swap-oob"] == "beforeend:#kanban-list-1"
    assert [a.get_text() for a in select(cards, ".kanban-card__title")] == [f"More {n}" for n in range(10)]
    assert [o.get_text() for o in select(cards, ".kanban-card")[0].select("select option")] == [
        "Move to…",
        "Won",
        "No value",
    ]
    [count] = select(answer, "#kanban-count-1")
    assert (count.get_text(), count["hx-swap-oob"], count["data-more"]) == ("60", "true", "false")
    assert select(answer, "#kanban-more-1") and not select(answer, "#kanban-more-1 a")

    # Opened without htmx (a new tab): the same records in the table.
    plain = console.get(more["hx-get"])
    assert plain.status_code == 302 and plain["Location"] == more["href"]
