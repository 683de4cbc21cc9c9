"""Saved views and the roles (issue #18): a private view is a person's own
preference, so a Viewer keeps saving theirs; sharing one publishes it to the
workspace, a write: refused on the form's field (nothing saved, nothing
typed lost) to whoever may not write, by console role or workspace role."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from dashboard.frame.permissions import ASK_FOR_WRITE
from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role
from objects.models import SavedView
from objects.records import SHARE_NEEDS_WRITE
from tests.html import one, select, text_of
from tests.objects.records_fixtures import ACME, DEALS, OBJECT_KEY, page
from tests.objects.support import WORKSPACE_ID

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
SAVE_URL = reverse("objects:view_save", args=[OBJECT_KEY])
RECORDS_URL = reverse("objects:records", args=[OBJECT_KEY])
VIEWER_REFUSAL = f"Your console role (Viewer) can only read. {ASK_FOR_WRITE}"


@pytest.fixture
def table(remote):
    remote.get(f"/v1/objects/{OBJECT_KEY}").mock(return_value=httpx.Response(200, json=DEALS))
    remote.get(f"/v1/objects/{OBJECT_KEY}/records").mock(return_value=httpx.Response(200, json=page([ACME])))


@pytest.fixture
def viewer(console, user):
    person_role_set(user=user, role=Role.VIEWER)
    return console


def test_a_viewer_saves_a_private_view(viewer, table, user):
    response = viewer.post(SAVE_URL, {"name": "Mine", "query": "sort=seats"})

    assert response.status_code == 302
    view = SavedView.objects.get()
    assert (view.owner, view.name, view.shared) == (user, "Mine", False)


def test_a_viewer_who_shares_is_refused_on_the_field_and_nothing_is_saved(viewer, table):
    response = viewer.post(SAVE_URL, {"name": "For everyone", "query": "sort=seats", "shared": "on"})

    assert response.status_code == 200
    assert text_of(one(response.content, "#id_shared_error")) == VIEWER_REFUSAL
    assert one(response.content, "input[name=name]")["value"] == "For everyone"  # nothing typed lost
    assert not SavedView.objects.exists()


def test_a_member_whose_key_only_reads_is_told_about_the_workspace_role(user, logged_in_client, table):
    from dashboard.keys.testing import stored_api_key

    stored_api_key(user=user, secret="svc_sk_" + "v" * 44, workspace_id=WORKSPACE_ID, member_role="viewer")

    response = logged_in_client.post(SAVE_URL, {"name": "For everyone", "query": "", "shared": "on"})

    assert text_of(one(response.content, "#id_shared_error")) == (
        f"Your role in this workspace (viewer) can only read. {SHARE_NEEDS_WRITE}"
    )
    assert not SavedView.objects.exists()


def test_a_member_shares_a_view(console, table):
    assert console.post(SAVE_URL, {"name": "Team", "query": "", "shared": "on"}).status_code == 302
    assert SavedView.objects.get().shared


def test_the_records_page_offers_a_viewer_no_share_box_and_says_why(viewer, console, table, user):
    html = viewer.get(RECORDS_URL, {"view": "all"}).content
    assert select(html, "form.view-save input[name=shared]") == []
    assert "sharing one with the workspace needs a role that writes" in text_of(one(html, "form.view-save p.muted"))

    person_role_set(user=user, role=Role.MEMBER)
    assert select(console.get(RECORDS_URL, {"view": "all"}).content, "form.view-save input[name=shared]")


def test_columns_of_ones_own_shared_view_stay_as_published_once_one_may_only_read(viewer, table, user):
    shared = SavedView.objects.create(
        owner=user, workspace_id=WORKSPACE_ID, object_key=OBJECT_KEY, name="Team", shared=True
    )

    response = viewer.post(f"{RECORDS_URL}columns/", {"shown": ["name"], "query": f"view={shared.pk}"}, **HTMX)

    assert response.status_code == 200
    shared.refresh_from_db()
    assert shared.hidden_fields == []  # what the workspace sees is unchanged; the columns became the viewer's own
