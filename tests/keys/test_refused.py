"""A 401 marks the stored key refused at once (the transport's refused-key
hook), the person then sees the refusal page instead of any workspace data,
and a successful check of the key clears it. The end-to-end version against
a real sandbox (a revoked key, teammates' inbox) is tests/inbox/test_refused_key.py."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from dashboard.api import ServiceClient, errors
from dashboard.frame.workspace import Workspace
from dashboard.keys.errors import KeyRefusedError
from dashboard.keys.models import ApiKey
from dashboard.live.services import operation_track
from tests.html import one, parse, select
from tests.keys.support import DEMO_SECRET, error_body, me_body

HTMX = {"HTTP_HX_REQUEST": "true"}


def refuse(remote, path: str = "/v1/me", request_id: str = "req_revoked"):
    return remote.get(path).mock(
        return_value=httpx.Response(401, json=error_body("authentication", "This API key was revoked.", request_id))
    )


@pytest.fixture
def key(add_key, user):
    return add_key(user)


def test_a_401_to_any_call_with_a_stored_key_marks_it_refused_once(remote, key):
    refuse(remote, request_id="req_first")
    client = key.client()

    with pytest.raises(errors.AuthenticationError):
        client.get("/v1/me")
    key.refresh_from_db()
    assert key.refused_at is not None and key.refused_request_id == "req_first"
    first = key.refused_at

    refuse(remote, request_id="req_second")
    with pytest.raises(errors.AuthenticationError):
        client.get("/v1/me")
    key.refresh_from_db()
    # The first refusal is the one the page names.
    assert (key.refused_at, key.refused_request_id) == (first, "req_first")


def test_only_a_401_to_a_stored_key_marks_anything(remote, key):
    remote.get("/v1/agents").mock(return_value=httpx.Response(403, json=error_body("permission", "No.", "req_403")))
    refuse(remote)

    with pytest.raises(errors.PermissionDeniedError):
        key.client().get("/v1/agents")
    with pytest.raises(errors.AuthenticationError):
        ServiceClient(api_key=DEMO_SECRET).get("/v1/me")  # a typed key, not a stored one

    key.refresh_from_db()
    assert key.refused_at is None


def test_the_workspace_gives_no_id_and_no_client_for_a_refused_key(key, user):
    ApiKey.objects.filter(pk=key.pk).update(refused_at="2026-11-24T10:00:00Z", refused_request_id="req_x")
    workspace = Workspace(user)

    assert workspace.refused and workspace.working_id == ""
    with pytest.raises(KeyRefusedError) as raised:
        workspace.id  # noqa: B018 - the property is the check
    assert raised.value.request_id == "req_x"
    with pytest.raises(KeyRefusedError):
        workspace.client  # noqa: B018
    # What the frame shows of the key itself stays.
    assert workspace.name == key.workspace_name


def test_after_a_refusal_pages_show_the_refusal_and_none_of_the_workspace_data(remote, key, user, logged_in_client):
    turn = operation_track(
        owner_key=key,
        kind="studio.turn",
        remote_id="turn-1",
        title="Secret spring launch plan",
        snapshot={"id": "turn-1", "status": "completed", "conversation_id": "c-1"},
        context={"studio": "website"},
    )
    page = logged_in_client.get(reverse("studio:index")).content.decode()
    assert "Secret spring launch plan" in page  # shown while the key works
    refuse(remote, request_id="req_revoked")

    account = logged_in_client.get(reverse("account"))  # GET /v1/me: 401

    assert account.status_code == 401
    calls = remote.calls.call_count
    for url in (
        reverse("studio:index"),
        reverse("studio:turn", args=[turn.pk]),
        reverse("live:detail", args=[turn.pk]),
    ):
        response = logged_in_client.get(url)
        html = parse(response.content.decode())
        assert response.status_code == 401, url
        box = one(html, "[data-remote-error]")
        assert box.get("data-error-kind") == "authentication" and box.get("data-request-id") == "req_revoked"
        assert one(box, f'a[href="{reverse("keys:list")}"]') is not None
        assert "Secret spring launch plan" not in response.content.decode()
        assert select(html, "#inbox-header") == []  # no count, no toasts in the frame
    assert remote.calls.call_count == calls  # nothing more asked with the refused key

    # A poll answers quietly: the box into #messages, and polling stops (286).
    poll = logged_in_client.get(reverse("studio:conversation_live", args=[turn.pk]) + "?v=old", **HTMX)
    assert poll.status_code == 286 and poll["HX-Retarget"] == "#messages"
    assert "Secret spring launch plan" not in poll.content.decode()
    header = logged_in_client.get(reverse("inbox:header") + "?v=old", **HTMX)
    assert header.status_code == 286 and "data-inbox-count" not in header.content.decode()

    # The key settings still work, and say which key was refused.
    keys_page = logged_in_client.get(reverse("keys:list"))
    assert keys_page.status_code == 200
    assert "Refused by the service" in keys_page.content.decode()


def test_a_successful_check_clears_the_refusal_and_a_refused_check_marks_it(remote, key, user, logged_in_client):
    refuse(remote, request_id="req_check")
    logged_in_client.post(reverse("keys:check", args=[key.pk]))
    key.refresh_from_db()
    assert key.refused_request_id == "req_check"
    assert logged_in_client.get(reverse("studio:index")).status_code == 401

    remote.get("/v1/me").mock(return_value=httpx.Response(200, json=me_body()))
    logged_in_client.post(reverse("keys:check", args=[key.pk]))

    key.refresh_from_db()
    assert key.refused_at is None and key.refused_request_id == ""
    assert logged_in_client.get(reverse("studio:index")).status_code == 200


def test_adding_the_key_again_clears_the_refusal(remote, add_key, key, user):
    ApiKey.objects.filter(pk=key.pk).update(refused_at="2026-11-24T10:00:00Z")

    again = add_key(user)

    assert again.pk == key.pk and again.refused_at is None
