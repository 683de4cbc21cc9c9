"""Find duplicates and the merge pages against a mocked service (respx): bad
input said in place, nothing written; a remote error never a traceback."""

from __future__ import annotations

import httpx
import pytest

from objects.models import ObjectJob
from tests.html import one, parse, select, text_of
from tests.objects.records_fixtures import ACME, DEALS, OBJECT_KEY, OTHER_ID, RECORD_ID

pytestmark = pytest.mark.django_db

RECORDS = f"/v1/objects/{OBJECT_KEY}/records"


@pytest.fixture
def definition(remote):
    return remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))


def _record(record_id: str, **values) -> dict:
    return {**ACME, "id": record_id, "values": {**ACME["values"], **values}}


def test_candidates_by_email_group_case_aside_and_offer_compare(console, definition, remote):
    records = [_record("r1", email="Ann@X.io"), _record("r2", email="ann@x.IO"), _record("r3", email="a.nn@x.io")]
    remote.get(RECORDS).mock(return_value=httpx.Response(200, json={"data": records}))
    page = parse(console.get(f"/objects/{OBJECT_KEY}/duplicates/?field=email").content)
    groups = select(page, ".duplicates-group")
    assert len(groups) == 1
    assert one(groups[0], "a.btn")["href"] == f"/objects/{OBJECT_KEY}/merge/?ids=r1&ids=r2"
    assert "found among 3 records read" in text_of(one(page, "#duplicates-list [role=status]"))


def test_an_unknown_field_is_said_in_place(console, definition, remote):
    response = console.get(f"/objects/{OBJECT_KEY}/duplicates/?field=nope")
    assert response.status_code == 422
    assert "Choose a field" in text_of(one(parse(response.content), ".alert-error[role=alert]"))
    assert not any(call.request.url.path == RECORDS for call in remote.calls)


def test_comparing_fewer_than_two_records_is_said(console, definition, remote):
    remote.get(f"{RECORDS}/{RECORD_ID}").mock(return_value=httpx.Response(200, json=ACME))
    remote.get(f"{RECORDS}/{OTHER_ID}").mock(
        return_value=httpx.Response(404, json={"error": {"type": "not_found", "message": "No such record."}})
    )
    response = console.get(f"/objects/{OBJECT_KEY}/merge/?ids={RECORD_ID}&ids={OTHER_ID}")
    assert response.status_code == 422
    assert "at least two records" in text_of(one(parse(response.content), ".alert-error[role=alert]"))


def test_an_expired_merge_form_writes_nothing_and_says_so(console, definition, remote):
    remote.get(f"{RECORDS}/{RECORD_ID}").mock(return_value=httpx.Response(200, json=ACME))
    remote.get(f"{RECORDS}/{OTHER_ID}").mock(return_value=httpx.Response(200, json=_record(OTHER_ID)))
    response = console.post(
        f"/objects/{OBJECT_KEY}/merge/run/", {"ids": [RECORD_ID, OTHER_ID], "idempotency_key": "not-a-key"}
    )
    assert response.status_code == 422
    assert "The form expired" in text_of(one(parse(response.content), ".alert-error[role=alert]"))
    assert not ObjectJob.objects.exists()
    assert all(call.request.method == "GET" for call in remote.calls)


def test_a_failing_service_is_no_traceback(console, definition, remote):
    remote.get(RECORDS).mock(
        return_value=httpx.Response(503, json={"error": {"type": "unavailable", "message": "Down."}})
    )
    response = console.get(f"/objects/{OBJECT_KEY}/duplicates/?field=name")
    assert response.status_code != 500
    assert "Traceback" not in response.content.decode()


def test_a_slow_service_stops_the_reading_not_the_page(console, definition, remote, settings):
    settings.OBJECTS_DUPLICATES_PAGE_BUDGET = 5
    page_one = {"data": [_record("r1", name="Acme"), _record("r2", name="ACME.")], "next_cursor": "c2"}
    remote.get(RECORDS).mock(side_effect=[httpx.Response(200, json=page_one), httpx.ReadTimeout("slow")])
    page = parse(console.get(f"/objects/{OBJECT_KEY}/duplicates/?field=name").content)
    said = text_of(one(page, "#duplicates-list [role=status]"))
    assert "found among the first 2 records read (the rest were not read)" in said
    assert len(select(page, ".duplicates-group")) == 1
