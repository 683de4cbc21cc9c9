"""SCIM 2.0 provisioning as Okta and Entra ID do it (dashboard/directory):
a SCIM client with a directory token creates, finds, patches and
deactivates people, and moves them between groups that give console roles.
Deactivation by the directory is the console's own: the sessions end at
once and nothing uses the person's keys any more, audited as the directory's."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.directory.models import DirectoryPerson, DirectoryToken
from dashboard.directory.tokens import directory_token_revoke
from dashboard.inbox.services import _working_keys_of
from dashboard.keys.testing import stored_api_key
from dashboard.live.models import TrackedOperation
from dashboard.live.services import operation_track, operations_poll_due
from dashboard.people.backends import forget_roles, role_of
from dashboard.people.models import Person, SignedInSession
from dashboard.people.roles import Role
from dashboard.tokens.services import TokenRefused, token_authenticate, token_create
from tests.directory.support import new_user, patch
from tests.helpers import PASSWORD
from tests.html import texts

pytestmark = pytest.mark.django_db

ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"


def test_discovery_documents_answer_in_scim_json(scim):
    status, config, response = scim.call("GET", "ServiceProviderConfig")
    assert status == 200 and response["Content-Type"] == "application/scim+json"
    assert config["patch"]["supported"] and not config["bulk"]["supported"]
    assert config["authenticationSchemes"][0]["type"] == "oauthbearertoken"

    _, types, _ = scim.call("GET", "ResourceTypes")
    assert [item["id"] for item in types["Resources"]] == ["User", "Group"]
    _, schemas, _ = scim.call("GET", "Schemas")
    assert {item["name"] for item in schemas["Resources"]} == {"User", "Group"}
    status, one, _ = scim.call("GET", "Schemas/urn:ietf:params:scim:schemas:core:2.0:User")
    assert status == 200 and "userName" in [attribute["name"] for attribute in one["attributes"]]


@pytest.mark.parametrize("token", ["", "scim_000000000000_wrong", "wsc_abc_def"])
def test_a_request_without_a_working_token_is_refused_in_scims_error_body(scim, token):
    status, body, response = scim.call("GET", "Users", token=token)

    assert status == 401 and body["schemas"] == [ERROR] and body["status"] == "401"
    assert response["Content-Type"] == "application/scim+json"
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_signed_in_session_is_not_a_directory_token(admin, scim):
    browser = Client()
    browser.force_login(admin)

    response = browser.get("/scim/v2/Users")

    assert response.status_code == 401


def test_a_revoked_token_is_refused_from_its_next_request(scim, directory_token, admin):
    assert scim.call("GET", "Users")[0] == 200

    directory_token_revoke(token=directory_token.row, by=admin)

    assert scim.call("GET", "Users")[0] == 401
    assert AuditEntry.objects.filter(action="directory_token_revoked", user=admin).exists()


def test_the_directory_creates_a_person_and_finds_them_by_username(scim, directory_token):
    status, made, response = scim.call("POST", "Users", new_user())

    assert status == 201 and response["Location"].endswith(f"/scim/v2/Users/{made['id']}")
    assert made["userName"] == "dana@example.com" and made["active"] is True and made["externalId"] == "00u-dana"
    dana = get_user_model().objects.get(pk=made["id"])
    assert (dana.first_name, dana.last_name, dana.email) == ("Dana", "Scully", "dana@example.com")
    assert not dana.has_usable_password()
    assert Person.objects.get(user=dana).role == Role.MEMBER
    assert DirectoryPerson.objects.get(user=dana).external_id == "00u-dana"
    entry = AuditEntry.objects.get(action="provisioned")
    assert entry.subject == dana and entry.user is None and entry.actor_shown == "Okta (directory)"
    # Okta's match before it creates: a filter on userName (case-insensitive, as RFC 7643 says of it).
    status, found, _ = scim.call("GET", "Users", filter='userName eq "DANA@example.com"')
    assert status == 200 and found["totalResults"] == 1 and found["Resources"][0]["id"] == made["id"]
    assert scim.call("GET", "Users", filter='userName eq "nobody@example.com"')[1]["totalResults"] == 0
    # Entra's match: the directory's own id.
    assert scim.call("GET", "Users", filter='externalId eq "00u-dana"')[1]["totalResults"] == 1
    assert DirectoryToken.objects.get(pk=directory_token.row.pk).last_used_at is not None


def test_a_filter_the_console_does_not_support_is_a_400_invalid_filter(scim):
    status, body, _ = scim.call("GET", "Users", filter='title co "boss"')

    assert status == 400 and body["scimType"] == "invalidFilter" and body["schemas"] == [ERROR]


def test_a_username_taken_is_a_409_uniqueness(scim, admin):
    assert scim.call("POST", "Users", new_user())[0] == 201

    status, body, _ = scim.call("POST", "Users", new_user("Dana@Example.com"))

    assert status == 409 and body["scimType"] == "uniqueness" and body["status"] == "409"
    assert get_user_model().objects.filter(username__iexact="dana@example.com").count() == 1


def test_an_unknown_person_is_a_404(scim):
    for method, body in (("GET", None), ("PATCH", patch({"op": "replace", "path": "active", "value": False}))):
        status, answer, _ = scim.call(method, "Users/999999", body)
        assert status == 404 and answer["schemas"] == [ERROR] and answer["status"] == "404"
    assert scim.call("GET", "Users/not-a-number")[0] == 404


def test_a_body_that_is_not_json_is_a_400(scim):
    response = scim.client.post(
        "/scim/v2/Users",
        data="{not json",
        content_type="application/scim+json",
        headers={"Authorization": f"Bearer {scim.token}"},
    )

    assert response.status_code == 400 and response.json()["scimType"] == "invalidSyntax"


def test_patch_in_okta_and_entra_spellings(scim):
    _, made, _ = scim.call("POST", "Users", new_user())
    path = f"Users/{made['id']}"

    # Entra: "Replace", paths into name and the work email.
    status, changed, _ = scim.call(
        "PATCH",
        path,
        patch(
            {"op": "Replace", "path": "name.givenName", "value": "Dana K."},
            {"op": "Replace", "path": 'emails[type eq "work"].value', "value": "dana.k@example.com"},
            {
                "op": "Add",
                "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department",
                "value": "X",
            },
        ),
    )
    assert status == 200 and changed["name"]["givenName"] == "Dana K."
    assert changed["emails"][0]["value"] == "dana.k@example.com"
    # Okta: no path, an object of attributes.
    status, changed, _ = scim.call("PATCH", path, patch({"op": "replace", "value": {"name": {"familyName": "Katz"}}}))
    assert status == 200 and changed["name"]["familyName"] == "Katz"
    update = AuditEntry.objects.filter(action="directory_updated").order_by("id").last()
    assert update.actor_shown == "Okta (directory)" and update.details["changed"] == ["family_name"]


@pytest.mark.parametrize(
    "off, on",
    [
        ({"op": "Replace", "path": "active", "value": "False"}, {"op": "Replace", "path": "active", "value": "True"}),
        ({"op": "replace", "value": {"active": False}}, {"op": "replace", "value": {"active": True}}),
    ],
    ids=["entra-strings", "okta-object"],
)
def test_active_false_and_back_in_both_spellings(scim, off, on):
    _, made, _ = scim.call("POST", "Users", new_user())
    dana = get_user_model().objects.get(pk=made["id"])

    status, answer, _ = scim.call("PATCH", f"Users/{dana.pk}", patch(off))
    dana.refresh_from_db()
    assert status == 200 and answer["active"] is False and not dana.is_active

    status, answer, _ = scim.call("PATCH", f"Users/{dana.pk}", patch(on))
    dana.refresh_from_db()
    assert status == 200 and answer["active"] is True and dana.is_active
    assert [entry.action for entry in AuditEntry.objects.filter(subject=dana).order_by("id")][-2:] == [
        "deactivated",
        "reactivated",
    ]


def test_a_value_that_is_no_boolean_is_a_400(scim):
    _, made, _ = scim.call("POST", "Users", new_user())

    status, body, _ = scim.call(
        "PATCH", f"Users/{made['id']}", patch({"op": "replace", "path": "active", "value": "nope"})
    )

    assert status == 400 and body["scimType"] == "invalidValue"
    assert get_user_model().objects.get(pk=made["id"]).is_active


def test_put_replaces_the_person(scim):
    _, made, _ = scim.call("POST", "Users", new_user())

    status, answer, _ = scim.call(
        "PUT", f"Users/{made['id']}", new_user(name={"givenName": "Dee", "familyName": "S"}, active=False)
    )

    assert status == 200 and answer["name"]["givenName"] == "Dee" and answer["active"] is False
    # A PUT that leaves active out keeps it as it is.
    without = {key: value for key, value in new_user().items() if key != "active"}
    assert scim.call("PUT", f"Users/{made['id']}", without)[1]["active"] is False


def _bobs_tab(client_class=Client) -> Client:
    tab = client_class()
    assert tab.post(reverse("login"), {"username": "bob", "password": PASSWORD}).status_code == 302
    return tab


@pytest.fixture
def bob(django_user_model):
    user = django_user_model.objects.create_user(username="bob", email="bob@example.com", password=PASSWORD)
    Person.objects.create(user=user, role=Role.MEMBER)
    return user


def test_active_false_ends_sessions_and_stops_every_use_of_the_persons_keys(scim, bob, remote):
    """What tests/people/test_deactivation.py asserts of the console's own deactivation."""
    page_tab, htmx_tab = _bobs_tab(), _bobs_tab()
    key = stored_api_key(user=bob, secret="svc_sk_live_bobsecret0101", workspace_id="ws-1")
    op = operation_track(owner_key=key, kind="studio.turn", remote_id="turn-1", snapshot={"status": "building"})
    made = token_create(user=bob, workspace_id="ws-1", name="Script", scopes=["read"], days=7, allowed_from=[])
    assert _working_keys_of("ws-1") == [key] and SignedInSession.objects.filter(user=bob).count() == 2
    found = scim.call("GET", "Users", filter='userName eq "bob"')[1]["Resources"][0]

    status, answer, _ = scim.call(
        "PATCH", f"Users/{found['id']}", patch({"op": "Replace", "path": "active", "value": "False"})
    )

    assert status == 200 and answer["active"] is False
    # The open tab lands on the login page, which says why; an htmx request gets HX-Redirect.
    page = page_tab.get(reverse("home"))
    assert page.status_code == 302 and urlsplit(page["Location"]).path == reverse("login")
    assert any(
        "deactivated your account" in message
        for message in texts(page_tab.get(page["Location"]).content, "#messages .alert")
    )
    assert urlsplit(htmx_tab.get(reverse("inbox:index"), HTTP_HX_REQUEST="true")["HX-Redirect"]).path == reverse(
        "login"
    )
    assert not SignedInSession.objects.filter(user=bob).exists()
    # The inbox refresh picks no key of his; the poller stops following his work and calls nothing.
    assert _working_keys_of("ws-1") == []
    op.refresh_from_db()
    assert (
        op.is_final
        and op.status == TrackedOperation.STATUS_STOPPED
        and "bob's account was deactivated" in op.last_error
    )
    assert operations_poll_due().polled == 0 and remote.calls.call_count == 0
    # His personal access token does nothing.
    with pytest.raises(TokenRefused, match="deactivated"):
        token_authenticate(presented=made.token, address="127.0.0.1")
    entry = AuditEntry.objects.get(action="deactivated")
    assert entry.subject == bob and entry.user is None and entry.actor_shown == "Okta (directory)"
    assert entry.details["sessions_ended"] == 2 and entry.details["tracked_work_stopped"] == 1
    assert entry.summary == "bob deactivated by Okta (directory)"


def test_delete_deactivates_and_keeps_the_account(scim, bob):
    tab = _bobs_tab()

    status, _, response = scim.call("DELETE", f"Users/{bob.pk}")

    assert status == 204 and not response.content
    bob.refresh_from_db()
    assert not bob.is_active and tab.get(reverse("home")).status_code == 302
    assert scim.call("GET", f"Users/{bob.pk}")[1]["active"] is False
    assert AuditEntry.objects.get(action="deactivated").actor_shown == "Okta (directory)"


def test_the_only_administrator_is_not_deactivated_by_the_directory(scim, admin):
    status, body, _ = scim.call(
        "PATCH", f"Users/{admin.pk}", patch({"op": "replace", "path": "active", "value": False})
    )

    admin.refresh_from_db()
    assert status == 400 and "only active Administrator" in body["detail"] and admin.is_active


# --- groups ------------------------------------------------------------------------


@pytest.fixture
def role_map(settings):
    settings.OIDC_ROLE_MAP = "console-approvers=approver,console-auditors=auditor"
    settings.OIDC_ROLE_DEFAULT = "member"


def test_group_membership_gives_the_mapped_role_and_taking_it_away_takes_the_role(scim, bob, role_map):
    status, group, response = scim.call(
        "POST", "Groups", {"displayName": "console-approvers", "members": [{"value": str(bob.pk)}]}
    )
    assert status == 201 and response["Location"].endswith(f"/Groups/{group['id']}")
    assert group["members"][0]["value"] == str(bob.pk)
    assert Person.objects.get(user=bob).role == Role.APPROVER
    change = AuditEntry.objects.get(action="role_changed")
    assert change.actor_shown == "Okta (directory)" and change.details["groups"] == ["console-approvers"]

    # Okta: remove one member by a path filter.
    status, _, _ = scim.call(
        "PATCH", f"Groups/{group['id']}", patch({"op": "remove", "path": f'members[value eq "{bob.pk}"]'})
    )
    assert status == 200 and Person.objects.get(user=bob).role == Role.MEMBER

    # Entra: add and remove with a value list, "Add"/"Remove" capitalised.
    scim.call(
        "PATCH", f"Groups/{group['id']}", patch({"op": "Add", "path": "members", "value": [{"value": str(bob.pk)}]})
    )
    assert Person.objects.get(user=bob).role == Role.APPROVER
    scim.call(
        "PATCH", f"Groups/{group['id']}", patch({"op": "Remove", "path": "members", "value": [{"value": str(bob.pk)}]})
    )
    assert Person.objects.get(user=bob).role == Role.MEMBER
    assert scim.call("GET", f"Users/{bob.pk}")[1]["groups"] == []
    assert AuditEntry.objects.filter(action="directory_group_members").count() == 3


def test_a_group_mapped_in_a_workspace_gives_the_role_there_only(scim, bob, role_map, settings):
    settings.OIDC_ROLE_MAP += ",marketing-approvers=approver@ws-marketing"
    _, group, _ = scim.call(
        "POST", "Groups", {"displayName": "marketing-approvers", "members": [{"value": str(bob.pk)}]}
    )
    assert Person.objects.get(user=bob).role == Role.MEMBER
    assert role_of(bob, "ws-marketing") == Role.APPROVER
    change = AuditEntry.objects.get(action="workspace_role_changed")
    assert change.actor_shown == "Okta (directory)" and change.details["workspace_id"] == "ws-marketing"

    assert scim.call("DELETE", f"Groups/{group['id']}")[0] == 204
    forget_roles(bob)
    assert role_of(bob, "ws-marketing") == Role.MEMBER


def test_the_strongest_group_wins_and_deleting_a_group_takes_its_role(scim, bob, role_map):
    _, auditors, _ = scim.call(
        "POST", "Groups", {"displayName": "console-auditors", "members": [{"value": str(bob.pk)}]}
    )
    _, approvers, _ = scim.call(
        "POST", "Groups", {"displayName": "console-approvers", "members": [{"value": str(bob.pk)}]}
    )
    assert Person.objects.get(user=bob).role == Role.APPROVER

    assert scim.call("DELETE", f"Groups/{approvers['id']}")[0] == 204

    assert Person.objects.get(user=bob).role == Role.AUDITOR
    assert scim.call("GET", f"Groups/{approvers['id']}")[0] == 404
    assert [item["id"] for item in scim.call("GET", "Groups")[1]["Resources"]] == [auditors["id"]]


def test_renaming_a_group_to_a_mapped_name_gives_its_role(scim, bob, role_map):
    _, group, _ = scim.call("POST", "Groups", {"displayName": "Finance", "members": [{"value": str(bob.pk)}]})
    assert Person.objects.get(user=bob).role == Role.MEMBER

    status, answer, _ = scim.call(
        "PATCH",
        f"Groups/{group['id']}",
        patch({"op": "replace", "value": {"id": group["id"], "displayName": "console-approvers"}}),
    )

    assert status == 200 and answer["displayName"] == "console-approvers"
    assert Person.objects.get(user=bob).role == Role.APPROVER


def test_groups_are_found_by_name_and_a_taken_name_is_a_409(scim):
    assert scim.call("POST", "Groups", {"displayName": "Sales"})[0] == 201

    status, body, _ = scim.call("POST", "Groups", {"displayName": "sales"})
    assert status == 409 and body["scimType"] == "uniqueness"
    found = scim.call("GET", "Groups", filter='displayName eq "Sales"', excludedAttributes="members")[1]
    assert found["totalResults"] == 1 and "members" not in found["Resources"][0]


def test_a_member_who_is_nobody_is_a_400(scim):
    status, body, _ = scim.call("POST", "Groups", {"displayName": "Sales", "members": [{"value": "999999"}]})

    assert status == 400 and body["scimType"] == "invalidValue"


def test_without_a_role_map_groups_change_no_role(scim, bob):
    scim.call("POST", "Groups", {"displayName": "console-approvers", "members": [{"value": str(bob.pk)}]})

    assert Person.objects.get(user=bob).role == Role.MEMBER
    assert not AuditEntry.objects.filter(action="role_changed").exists()


def test_list_pages_by_start_index_and_count(scim):
    for number in range(3):
        scim.call("POST", "Users", new_user(f"p{number}@example.com", externalId=f"x{number}"))

    page = scim.call("GET", "Users", startIndex="2", count="1")[1]

    assert page["totalResults"] == 4 and page["startIndex"] == 2 and page["itemsPerPage"] == 1
    assert page["Resources"][0]["userName"] == "p0@example.com"  # after ada, in the order made


def test_a_nul_character_is_a_400_not_a_500(scim):
    status, body, _ = scim.call("POST", "Users", new_user("nul\x00@example.com"))
    assert status == 400 and body["scimType"] == "invalidValue"

    for text in ('userName eq "a\x00b"', 'userName eq "a\\u0000b"', 'userName eq "a\\qb"'):
        status, body, _ = scim.call("GET", "Users", filter=text)
        assert status == 400 and body["scimType"] == "invalidFilter"


def test_paging_past_the_end_is_an_empty_page(scim):
    page = scim.call("GET", "Users", startIndex="99999999999999999999999", count="-3")[1]

    assert page["Resources"] == [] and page["totalResults"] == 1

    assert scim.call("GET", "Users", startIndex="two")[0] == 400
