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
