"""Saved views of the runs list (issue #35, item 4; agents/run_views.py):
a status, an agent and a search saved under a name, private or shared with
the workspace, one default the Runs page opens with, and nothing a view keeps
that the page would not take from its address."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from django.http import QueryDict
from django.test import Client
from django.urls import reverse

from agents.models import RunView, RunViewDefault
from agents.run_views import run_view_query, run_view_save
from dashboard.keys.testing import stored_api_key
from tests.agents.support import AGENT_ID
from tests.html import one, select, text_of, texts
from tests.live.support import store_key


@pytest.fixture
def runs_service(remote, api_key):
    remote.get("/v1/agents").mock(
        return_value=httpx.Response(
            200, json={"data": [{"id": AGENT_ID, "name": "Welcome emails", "status": "active"}], "next_cursor": None}
        )
    )
    remote.get(f"/v1/agents/{AGENT_ID}/runs").mock(
        return_value=httpx.Response(200, json={"data": [], "next_cursor": None})
    )
    return remote


def test_a_view_keeps_only_what_the_runs_page_reads():
    asked = QueryDict(f"status=failed&agent={AGENT_ID}&thread=nonsense&q=  refund   email &cursor=abc&evil=1")
    assert run_view_query(asked) == f"status=failed&agent={AGENT_ID}&q=refund+email"
    assert run_view_query(QueryDict("status=exploded&thread=11111111-1111-4111-8111-111111111111")) == ""


def test_the_list_is_saved_as_a_view_opened_by_its_address_and_made_the_default(
    runs_service, api_key, user, logged_in_client
):
    page = logged_in_client.get(reverse("agents:runs"), {"status": "failed", "agent": AGENT_ID}).content
    form = one(page, "form[data-run-view-save]")
    assert one(form, "input[name=query]")["value"] == f"status=failed&agent={AGENT_ID}"

    saved = logged_in_client.post(
        reverse("agents:run_view_new"),
        {"name": "  Failed   welcomes ", "query": f"status=failed&agent={AGENT_ID}", "make_default": "on"},
    )
    view = RunView.objects.get()
    assert (view.name, view.query, view.shared, view.workspace_id) == (
        "Failed welcomes",
        f"status=failed&agent={AGENT_ID}",
        False,
        api_key.workspace_id,
    )
    assert saved.status_code == 302
    address = urlsplit(saved["Location"])
    assert parse_qs(address.query) == {"status": ["failed"], "agent": [AGENT_ID], "view": [str(view.pk)]}

    # Runs with no query opens the default; "Every run" escapes it.
    opened = logged_in_client.get(reverse("agents:runs"))
    assert opened.status_code == 302 and opened["Location"] == saved["Location"]
    shown = logged_in_client.get(saved["Location"]).content
    current = one(shown, ".run-views__list a[aria-current=page]")
    assert text_of(current).startswith("Failed welcomes") and "default" in text_of(current)
    every = logged_in_client.get(reverse("agents:runs"), {"view": "none"})
    assert every.status_code == 200
    assert text_of(one(every.content, ".run-views__list a[aria-current=page]")) == "Every run"

    # Default toggled off again; the same name replaces the view.
    logged_in_client.post(reverse("agents:run_view_default", args=[view.pk]))
    assert not RunViewDefault.objects.exists()
    logged_in_client.post(reverse("agents:run_view_new"), {"name": "Failed welcomes", "query": "status=waiting"})
    assert list(RunView.objects.values_list("name", "query")) == [("Failed welcomes", "status=waiting")]


def test_shared_views_reach_the_workspace_only_and_only_their_owner_deletes_them(
    runs_service, api_key, user, other_user, django_user_model
):
    mine = run_view_save(
        user=user, workspace_id=api_key.workspace_id, name="Mine", query={"status": "failed"}, shared=False
    )
    team = run_view_save(user=user, workspace_id=api_key.workspace_id, name="Team", query={"q": "refund"}, shared=True)
    teammate = django_user_model.objects.create_user(username="carol", password="a long passphrase here")
    stored_api_key(user=teammate, secret="svc_sk_teammate_0123456789abcdef", workspace_id=api_key.workspace_id)
    carol = Client()
    carol.force_login(teammate)
    page = carol.get(reverse("agents:runs"), {"view": "none"}).content
    assert [name.split(" ·")[0] for name in texts(page, ".run-views__list a")] == ["Every run", "Team"]
    assert "shared by alice" in text_of(select(page, ".run-views__list a")[1])
    # A teammate may make the shared view their default, not delete it, and never open the private one.
    carol.post(reverse("agents:run_view_default", args=[team.pk]))
    assert RunViewDefault.objects.get(user=teammate).view == team
    carol.post(reverse("agents:run_view_remove", args=[team.pk]))
    assert RunView.objects.filter(pk=team.pk).exists()
    assert carol.post(reverse("agents:run_view_default", args=[mine.pk])).status_code == 404

    store_key(other_user, "svc_sk_other_0123456789abcdefgh", "Globex Research")
    other = Client()
    other.force_login(other_user)
    assert texts(other.get(reverse("agents:runs"), {"view": "none"}).content, ".run-views__list a") == ["Every run"]
    assert other.post(reverse("agents:run_view_default", args=[team.pk])).status_code == 404


def test_a_viewer_keeps_private_views_but_may_not_share_one(runs_service, api_key, logged_in_client):
    api_key.member_role = "viewer"
    api_key.save()
    refused = logged_in_client.post(
        reverse("agents:run_view_new"), {"name": "Ours", "query": "status=failed", "shared": "on"}
    )
    assert refused.status_code == 200 and not RunView.objects.exists()
    assert "needs a role that writes" in text_of(one(refused.content, "#id_shared_error"))
    assert one(refused.content, "input[name=name]")["value"] == "Ours"
    kept = logged_in_client.post(reverse("agents:run_view_new"), {"name": "Mine", "query": "status=failed"})
    assert kept.status_code == 302 and RunView.objects.get().shared is False
