"""A read-only member and every write address of Objects: one refusal
(`dashboard.frame.permissions.requires_write`), before anything is read or
typed: the "Not allowed" page naming their role (403), its message box for
htmx (200: htmx 2 swaps nothing on a 403), JSON for the board's script."""

from __future__ import annotations

import pytest
from django.urls import reverse

from objects.records import READ_ONLY
from tests.html import one, parse, select, text_of
from tests.objects.support import SECRET, WORKSPACE_ID

pytestmark = pytest.mark.django_db

OBJECT = {"object_key": "deals"}
RECORD = {**OBJECT, "record_id": "rec-1"}
REFUSAL = f"Your role in this workspace (viewer) can only read. {READ_ONLY}"

# Every address of the area that writes to the workspace (or opens a form that would).
WRITES = [
    ("GET", "objects:new", {}),
    ("POST", "objects:create", {}),
    ("GET", "objects:settings", OBJECT),
    ("POST", "objects:settings_save", OBJECT),
    ("GET", "objects:field_remove", {**OBJECT, "field_key": "notes"}),
    ("POST", "objects:field_remove_confirmed", {**OBJECT, "field_key": "notes"}),
    ("GET", "objects:record_new", OBJECT),
    ("POST", "objects:record_new", OBJECT),
    ("GET", "objects:record_edit", RECORD),
    ("POST", "objects:record_edit", RECORD),
    ("GET", "objects:record_duplicate", RECORD),
    ("POST", "objects:record_delete", RECORD),
    ("POST", "objects:record_cell", {**RECORD, "field_key": "notes"}),
    ("POST", "objects:record_undo", {**RECORD, "change_id": 1}),
    ("GET", "objects:record_put_back", {**RECORD, "change_id": 1, "field_key": "notes"}),
    ("POST", "objects:record_put_back", {**RECORD, "change_id": 1, "field_key": "notes"}),
    ("POST", "objects:record_then", {**RECORD, "change_id": 1}),
    ("POST", "objects:relationship_new", RECORD),
    ("POST", "objects:bulk", OBJECT),
    ("GET", "objects:import", OBJECT),
    ("POST", "objects:import_map", {"pk": 1}),
    ("POST", "objects:job_run", {"pk": 1}),
    ("POST", "objects:kanban_move", OBJECT),
    ("POST", "objects:merge_run", OBJECT),
    ("GET", "objects:computed", OBJECT),
    ("POST", "objects:computed_add", OBJECT),
    ("POST", "objects:computed_remove", {**OBJECT, "pk": 1}),
]


@pytest.fixture
def viewer(logged_in_client, user):
    from dashboard.keys.testing import stored_api_key

    stored_api_key(user=user, secret=SECRET, workspace_id=WORKSPACE_ID, member_role="viewer", key_id="key-viewer")
    return logged_in_client


def _send(client, method: str, name: str, kwargs: dict, **headers):
    url = reverse(name, kwargs=kwargs)
    return client.post(url, {}, **headers) if method == "POST" else client.get(url, **headers)


@pytest.mark.parametrize(("method", "name", "kwargs"), WRITES, ids=[f"{m} {n}" for m, n, _ in WRITES])
def test_every_write_address_refuses_a_read_only_member_the_same_way_before_any_call(
    viewer, remote, method, name, kwargs
):
    response = _send(viewer, method, name, kwargs)

    assert response.status_code == 403
    page = parse(response.content)
    assert text_of(one(page, "h1")) == "Not allowed"
    assert text_of(select(one(page, ".alert-warning[role=alert]"), "p")[0]) == REFUSAL
    assert not remote.calls


@pytest.mark.parametrize(("method", "name", "kwargs"), WRITES[:4], ids=[f"{m} {n}" for m, n, _ in WRITES[:4]])
def test_an_htmx_request_gets_the_refusal_as_a_message_box_it_can_swap(viewer, remote, method, name, kwargs):
    response = _send(viewer, method, name, kwargs, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    assert text_of(select(one(parse(response.content), ".alert-warning[role=alert]"), "p")[0]) == REFUSAL
    assert not remote.calls


def test_the_boards_script_gets_the_refusal_as_json(viewer, remote):
    response = viewer.post(reverse("objects:kanban_move", kwargs=OBJECT), {}, HTTP_ACCEPT="application/json")

    assert response.status_code == 403
    assert response.json() == {"ok": False, "message": REFUSAL}
    assert not remote.calls
