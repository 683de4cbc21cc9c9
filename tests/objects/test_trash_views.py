"""The trash's and the history's views against a mocked service (respx):
what a delete keeps, a refused delete keeping nothing, the trash shown only
to a key of its workspace, purge, and a later "Linked" entry no longer
blocking the undo of the edit before it."""

from __future__ import annotations

import httpx
import pytest

from objects.models import RecordChange, TrashedRecord
from tests.html import one, parse, select, text_of
from tests.objects.records_fixtures import ACME, DEALS, OBJECT_KEY, RECORD_ID, error_body

pytestmark = pytest.mark.django_db

RECORD_URL = f"/objects/{OBJECT_KEY}/records/{RECORD_ID}/"
RECORD_PATH = f"/v1/objects/{OBJECT_KEY}/records/{RECORD_ID}"
KEY = "7d0e3a52-8a4b-4f7e-9c51-0a0e3f0b6a11"
LINK = {
    "relation_key": "company",
    "direction": "outgoing",
    "source": {"object": OBJECT_KEY, "id": RECORD_ID},
    "target": {"object": "companies", "id": "c-1", "title": "Firm One"},
}


@pytest.fixture
def definition(remote):
    return remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))


def test_a_delete_keeps_values_title_and_links_then_offers_undo(console, definition, remote, user):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    remote.get(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(200, json={"data": [LINK]}))
    delete = remote.delete(RECORD_PATH).mock(return_value=httpx.Response(204))
    remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(return_value=httpx.Response(200, json={"data": []}))

    response = console.post(f"{RECORD_URL}delete/", {"idempotency_key": KEY}, follow=True)

    assert delete.calls.last.request.headers["Idempotency-Key"] == KEY
    kept = TrashedRecord.objects.get()
    assert (kept.record_id, kept.values, kept.deleted_by) == (RECORD_ID, ACME["values"], user)
    assert kept.links == [
        {
            "relation_key": "company",
            "direction": "outgoing",
            "object": "companies",
            "id": "c-1",
            "label": "",
            "metadata": {},
            "title": "Firm One",
        }
    ]
    message = one(response.content.decode(), "#messages .alert")
    assert "moved to the trash" in text_of(message)
    assert one(message, "a")["href"] == f"/objects/{OBJECT_KEY}/trash/{kept.pk}/restore/"


def test_a_refused_delete_keeps_nothing_and_names_the_cause(console, definition, remote):
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    remote.get(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(200, json={"data": []}))
    remote.delete(RECORD_PATH).mock(return_value=httpx.Response(403, json=error_body("forbidden", "Not yours.")))

    response = console.post(f"{RECORD_URL}delete/", {"idempotency_key": KEY})

    assert response.status_code in (403, 200)
    assert TrashedRecord.objects.count() == 0


def _kept(workspace_id: str, record_id: str = RECORD_ID) -> TrashedRecord:
    return TrashedRecord.objects.create(
        workspace_id=workspace_id, object_key=OBJECT_KEY, record_id=record_id, title=f"Kept {record_id}", values={}
    )


def test_the_trash_shows_only_its_workspace_and_purges(console, definition, api_key):
    mine = _kept(api_key.workspace_id)
    _kept("another-workspace", "r-other")
    url = f"/objects/{OBJECT_KEY}/trash/"

    html = parse(console.get(url).content)
    assert [text_of(th) for th in select(html, "tbody th")] == [f"Kept {RECORD_ID}"]
    # Another workspace's row cannot be purged from here.
    other = TrashedRecord.objects.get(record_id="r-other")
    response = console.post(f"{url}purge/", {"ids": [other.pk, mine.pk]}, HTTP_HX_REQUEST="true")
    assert TrashedRecord.objects.filter(pk=other.pk).exists()
    assert not TrashedRecord.objects.filter(pk=mine.pk).exists()
    assert "removed from the trash for good" in text_of(one(response.content.decode(), "#trash-list [role=status]"))
    assert "The trash is empty" in text_of(one(response.content.decode(), ".empty-state"))


def test_restoring_nothing_says_so_and_keeps_the_page(console, definition, api_key):
    _kept(api_key.workspace_id)
    response = console.post(f"/objects/{OBJECT_KEY}/trash/restore/", {"idempotency_key": KEY})
    assert response.status_code == 422
    assert "Choose the records to restore first." in text_of(one(response.content.decode(), "#trash-list [role=alert]"))


def test_a_later_link_does_not_block_undoing_the_edit_before_it(console, definition, remote, user, api_key):
    edit = RecordChange.objects.create(
        workspace_id=api_key.workspace_id,
        object_key=OBJECT_KEY,
        record_id=RECORD_ID,
        user=user,
        actor="alice",
        action="edit",
        changes=[{"field": "seats", "label": "Seats", "before": 10, "after": 1250}],
    )
    RecordChange.objects.create(
        workspace_id=api_key.workspace_id,
        object_key=OBJECT_KEY,
        record_id=RECORD_ID,
        user=user,
        actor="alice",
        action="link",
        changes=[{"relation_key": "company", "direction": "to", "object": "companies", "id": "c-1", "title": "F"}],
    )
    remote.get(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))
    remote.get(f"{RECORD_PATH}/relationships").mock(return_value=httpx.Response(200, json={"data": []}))
    update = remote.patch(RECORD_PATH).mock(return_value=httpx.Response(200, json=ACME))

    page = console.get(RECORD_URL).content.decode()
    undo_url = f"{RECORD_URL}history/{edit.pk}/undo/"
    assert [a["href"] for a in select(page, "#history a") if a["href"] == undo_url] == [undo_url]
    response = console.post(undo_url, {"idempotency_key": KEY})
    assert response.status_code == 302
    assert update.call_count == 1
