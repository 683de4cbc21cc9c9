"""Roles per workspace (issue #37 item 5): a person's role may differ per
workspace, their default holding everywhere else. The role is read with the
default in one query; the People page sets, changes and removes a role in a
workspace the console knows, audited, never leaving a workspace without an
Administrator; the navigation, the palette and the inbox follow the workspace
the person acts in (the guards are the role matrix's, tests/people/test_role_matrix.py)."""

from __future__ import annotations

import httpx
import pytest
from django.urls import reverse

from dashboard.assistants.models import AssistantRequest
from dashboard.audit.models import AuditEntry
from dashboard.keys.models import ApiKey
from dashboard.keys.services import api_key_activate
from dashboard.keys.testing import stored_api_key
from dashboard.people.backends import person_role_set, person_workspace_role_set, role_of
from dashboard.people.models import WorkspaceRole
from dashboard.people.roles import DECIDE_APPROVALS, WRITE, Role
from tests.html import one, parse, select, text_of

pytestmark = pytest.mark.django_db

SECRET = "svc_sk_wsroles0123456789abcdefghijklmnopqrstuvwxyzAB"
HTMX = {"HTTP_HX_REQUEST": "true"}
A, B = "ws-a", "ws-b"


def dana_of(django_user_model, *, default: str = Role.MEMBER):
    """Dana: Approver in Marketing (A), Viewer in Finance (B), `default` elsewhere,
    holding a key of each (Marketing's active)."""
    dana = django_user_model.objects.create_user(username="dana", email="dana@example.com", password="x" * 20)
    person_role_set(user=dana, role=default)
    person_workspace_role_set(user=dana, workspace_id=A, role=Role.APPROVER)
    person_workspace_role_set(user=dana, workspace_id=B, role=Role.VIEWER)
    stored_api_key(user=dana, secret=SECRET, workspace_id=B, workspace_name="Finance", key_id="key-b")
    stored_api_key(user=dana, secret=SECRET, workspace_id=A, workspace_name="Marketing", key_id="key-a")
    return dana


def act_in(user, workspace_id: str) -> None:
    api_key_activate(user=user, pk=ApiKey.objects.get(user=user, workspace_id=workspace_id).pk)


def test_the_role_in_each_workspace_is_read_with_the_default_in_one_query(django_user_model, django_assert_num_queries):
    dana = dana_of(django_user_model)
    fresh = django_user_model.objects.get(pk=dana.pk)
    with django_assert_num_queries(1):
        assert [role_of(fresh, A), role_of(fresh, B), role_of(fresh, "ws-elsewhere")] == [
            "approver",
            "viewer",
            "member",
        ]
        # Nobody said which workspace (outside a request): the default.
        assert role_of(fresh) == "member"
        # has_perm names the workspace: an id, or anything with a workspace_id (an approval, a token).
        assert fresh.has_perm(DECIDE_APPROVALS, A) and not fresh.has_perm(DECIDE_APPROVALS, B)
        assert not fresh.has_perm(WRITE, ApiKey(workspace_id=B)) and fresh.has_perm(WRITE, "ws-elsewhere")
    assert not fresh.has_perm(DECIDE_APPROVALS)  # (Django's ModelBackend reads its own tables here)


def test_an_administrator_sets_changes_and_removes_a_role_in_a_workspace_audited(
    admin_client, admin, django_user_model
):
    meg = django_user_model.objects.create_user(username="meg")
    person_role_set(user=meg, role=Role.MEMBER)
    # The workspaces the console knows: those someone stored a key of.
    stored_api_key(user=admin, secret=SECRET, workspace_id=A, workspace_name="Marketing", key_id="key-a")
    stored_api_key(user=admin, secret=SECRET, workspace_id=B, workspace_name="Finance", key_id="key-b")
    page = parse(admin_client.get(reverse("people:person", args=[meg.pk])).content)
    section = one(page, "section[aria-labelledby=workspace-roles-heading]")
    # By name; an id only where two share a name (test_two_workspaces_of_one_name_are_told_apart_by_id).
    assert [text_of(o) for o in select(section, "select[name=workspace_id] option")] == ["Finance", "Marketing"]
    assert text_of(select(section, "select[name=role] option")[0]) == "Their default (Member)"
    address = reverse("people:workspace_role", args=[meg.pk])

    for role in ("approver", "viewer"):
        admin_client.post(address, {"workspace_id": A, "role": role}, **HTMX)
        assert WorkspaceRole.objects.get(person__user=meg, workspace_id=A).role == role
    page = parse(admin_client.get(reverse("people:person", args=[meg.pk])).content)
    rows = select(page, "section[aria-labelledby=workspace-roles-heading] tbody tr")
    assert [[text_of(cell) for cell in select(row, "th, td")][:2] for row in rows] == [["Marketing", "Viewer"]]
    assert text_of(one(rows[0], "button")) == "Remove the role in Marketing"

    admin_client.post(address, {"workspace_id": A, "role": ""}, **HTMX)  # the row's Remove
    assert not WorkspaceRole.objects.filter(person__user=meg).exists()
    summaries = list(
        AuditEntry.objects.filter(action="workspace_role_changed", subject_id=meg.pk)
        .order_by("pk")
        .values_list("summary", flat=True)
    )
    assert summaries == [
        "Role of meg in Marketing (ws-a) changed from their default (Member) to Approver",
        "Role of meg in Marketing (ws-a) changed from Approver to Viewer",
        "Role of meg in Marketing (ws-a) changed from Viewer to their default (Member)",
    ]

    # A workspace the console does not know: said in place, nothing set.
    answer = admin_client.post(address, {"workspace_id": "ws-unknown", "role": "approver"}, **HTMX)
    assert answer.status_code == 200 and not WorkspaceRole.objects.exists()
    assert "Select a valid choice" in text_of(one(answer.content, "#id_workspace_role_workspace_id_error"))


def test_the_only_administrator_of_a_workspace_keeps_it_there(admin_client, admin, django_user_model):
    stored_api_key(user=admin, secret=SECRET, workspace_id=A, workspace_name="Marketing", key_id="key-a")
    address = reverse("people:workspace_role", args=[admin.pk])

    refused = admin_client.post(address, {"workspace_id": A, "role": "viewer"}, **HTMX)
    assert "the only active Administrator in that workspace" in text_of(one(refused.content, ".alert-error"))
    assert not WorkspaceRole.objects.exists()

    # Someone else made Administrator there only: now she may step down there.
    other = django_user_model.objects.create_user(username="olga")
    person_role_set(user=other, role=Role.VIEWER)
    person_workspace_role_set(user=other, workspace_id=A, role=Role.ADMINISTRATOR)
    admin_client.post(address, {"workspace_id": A, "role": "viewer"}, **HTMX)
    assert WorkspaceRole.objects.get(person__user=admin, workspace_id=A).role == "viewer"


@pytest.fixture
def service(fake_service_settings, never_sleep, remote):
    missing = {"error": {"type": "not_found", "message": "No such thing."}, "request_id": "req_wsroles"}
    return remote.route().mock(return_value=httpx.Response(404, json=missing))


def test_the_navigation_palette_and_inbox_follow_the_workspace_acted_in(service, client, django_user_model):
    dana = dana_of(django_user_model, default=Role.ADMINISTRATOR)
    bob = django_user_model.objects.create_user(username="bob")
    for workspace_id, summary in ((A, "Archive the March leads"), (B, "Pay the April invoices")):
        AssistantRequest.objects.create(
            user=bob,
            token_name="Bot",
            workspace_id=workspace_id,
            tool="t",
            summary=summary,
            reason="r",
            idempotency_key=f"idem-{workspace_id}",
        )
    client.force_login(dana)

    def seen() -> tuple[list[str], list[str], list[str]]:
        nav = [text_of(a) for a in select(client.get(reverse("home")).content, "nav.main-nav a")]
        palette = parse(client.get(reverse("palette"), {"q": "assistant requests"}, **HTMX).content)
        pages = [text_of(o) for o in select(palette, "[role=option] .palette-option__title")]
        inbox = [text_of(a) for a in select(client.get(reverse("inbox:index")).content, "a.inbox-item__title")]
        return nav, pages, inbox

    nav, pages, inbox = seen()  # Marketing: Approver
    assert "Assistant requests" in nav and "Assistant requests" in pages
    assert inbox == ["Archive the March leads"]
    assert "People" not in nav  # an Administrator by default, not in Marketing

    act_in(dana, B)  # Finance: Viewer
    nav, pages, inbox = seen()
    assert "Assistant requests" not in nav and "Assistant requests" not in pages
    assert inbox == []
    assert client.get(reverse("assistants:requests")).status_code == 403


def test_the_default_role_change_keeps_an_administrator_in_every_workspace(admin_client, admin, django_user_model):
    """Bob is an Administrator by default but only reads in Marketing: Ada,
    the other default Administrator, can't step down, or Marketing would
    have nobody to manage people."""
    bob = django_user_model.objects.create_user(username="bob")
    person_role_set(user=bob, role=Role.ADMINISTRATOR)
    person_workspace_role_set(user=bob, workspace_id=A, role=Role.VIEWER)

    answer = admin_client.post(reverse("people:role", args=[admin.pk]), {"role": "member", "confirm": "on"}, **HTMX)

    assert "the only active Administrator in that workspace" in text_of(one(answer.content, ".alert-error"))
    assert role_of(django_user_model.objects.get(pk=admin.pk), "") == Role.ADMINISTRATOR


def test_two_workspaces_of_one_name_are_told_apart_by_id(admin, django_user_model):
    from dashboard.people.selectors import known_workspaces

    stored_api_key(user=admin, secret=SECRET, workspace_id=A, workspace_name="Sales", key_id="key-a")
    stored_api_key(user=admin, secret=SECRET, workspace_id=B, workspace_name="Sales", key_id="key-b")
    stored_api_key(user=admin, secret=SECRET, workspace_id="ws-c", workspace_name="Finance", key_id="key-c")
    assert [w.label for w in known_workspaces()] == ["Finance", f"Sales ({A})", f"Sales ({B})"]
