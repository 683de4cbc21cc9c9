"""Cursor paging to the end: no duplicates, no gaps, also under inserts and sorts."""

from __future__ import annotations

import pytest

from tests.sandbox.support import all_pages, make_object


def test_objects_page_to_the_end(api):
    everything = all_pages(api, "/v1/objects", {"limit": 100})
    small = all_pages(api, "/v1/objects", {"limit": 2})
    assert [o["id"] for o in small] == [o["id"] for o in everything]
    first = api.get("/v1/objects").json()
    assert len(first["data"]) <= 25


@pytest.mark.parametrize(
    "sort", ["-updated_at", "created_at", "name", "-amount", "stage", "-close_date", "priority", "renewal"]
)
def test_records_page_to_the_end_under_each_sort(fresh_api, sort):
    everything = all_pages(fresh_api, "/v1/objects/deals/records", {"limit": 100, "sort": sort})
    paged = all_pages(fresh_api, "/v1/objects/deals/records", {"limit": 7, "sort": sort})
    ids = [r["id"] for r in paged]
    assert len(ids) == len(set(ids)) == len(everything) == 90
    assert ids == [r["id"] for r in everything]


def test_inserts_while_paging_cause_no_duplicates_or_gaps(api):
    obj = make_object(api, fields=[{"label": "Name"}, {"label": "Rank", "type": "number"}])
    path = f"/v1/objects/{obj['key']}/records"
    original = {api.post(path, json={"values": {"name": f"R{i}", "rank": i % 4}}).json()["id"] for i in range(23)}
    for sort in ("-updated_at", "created_at", "rank", "-rank"):

        def insert(page_number, sort=sort):
            api.post(path, json={"values": {"name": f"new during {sort} {page_number}", "rank": page_number % 4}})

        seen = [r["id"] for r in all_pages(api, path, {"limit": 5, "sort": sort}, between=insert)]
        assert len(seen) == len(set(seen)), sort
        assert original <= set(seen), sort


def test_the_last_page_has_no_next_cursor(fresh_api):
    body = fresh_api.get("/v1/objects/deals/records", params={"limit": 100}).json()
    assert body["next_cursor"] is None
    assert fresh_api.get("/v1/objects/deals/records", params={"limit": 1}).json()["next_cursor"]


def test_a_record_changed_between_two_lists_is_read_anew(api):
    # The list keeps decoded records between reads (sandbox/storage.py,
    # `shared=True`): a change made between two lists must show in the second.
    obj = make_object(api, fields=[{"label": "Name"}])
    path = f"/v1/objects/{obj['key']}/records"
    record = api.post(path, json={"values": {"name": "Before"}}).json()
    assert [r["values"]["name"] for r in all_pages(api, path, {"limit": 100})] == ["Before"]
    api.patch(f"{path}/{record['id']}", json={"values": {"name": "After"}})
    api.delete(f"{path}/{api.post(path, json={'values': {'name': 'Gone'}}).json()['id']}")
    assert [r["values"]["name"] for r in all_pages(api, path, {"limit": 100})] == ["After"]
