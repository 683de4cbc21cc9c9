"""The role matrix (issue #18): every address of the console that takes a
write method is either guarded by the core's one guard (`requires_write`,
`requires_permission`: they mark the view, `view_guards`) or listed below
with the reason it needs none. Then every guarded write address is tried by
each console role: refused exactly where the issue's table says, always on
the same page (403, "Not allowed", the role named), and never by the guard
where the role may. The addresses are found through Django's resolver, not
listed by hand, so a new write view cannot be forgotten.

Roles are per workspace (issue #37): each role's run is a person with that
role in workspace A, another role in workspace B and a third as their default,
and the addresses are tried half in A and half in B. Over the five runs every
address is tried as every role, each run's person in two workspaces, at the
cost of one run per role as before. The Approver's run is Dana: Approver in A,
Viewer in B."""

from __future__ import annotations

import httpx
import pytest
from django.test import Client

from dashboard.frame.permissions import ASK_FOR_WRITE, WRITE_GUARD, view_guards
from dashboard.keys.models import ApiKey
from dashboard.keys.services import api_key_activate
from dashboard.keys.testing import stored_api_key
from dashboard.people.backends import person_role_set, person_workspace_role_set
from dashboard.people.roles import (
    DECIDE_APPROVALS,
    MANAGE_PEOPLE,
    ROLE_PERMISSIONS,
    VIEW_AUDIT_TRAIL,
    VIEW_SYSTEM_STATUS,
    WRITE,
    Role,
)
from tests.html import one, parse, text_of
from tests.write_guard import WRITE_METHODS, Address, accepted_methods, console_addresses, refusal_of

pytestmark = pytest.mark.django_db

SECRET = "svc_sk_matrix0123456789abcdefghijklmnopqrstuvwxyzAB"
# Values the converters of every address accept: ids and pks no row has (a
# forged post the guard lets through acts on nothing, not even the person
# posting), then a studio, a Content App and a library list.
CANDIDATES = ["999999", "image", "images", "remove-background"]

# The issue's table, in its own words (not read from roles.py, so the table is checked too).
MAY: dict[str, frozenset[str]] = {
    Role.VIEWER: frozenset(),
    Role.MEMBER: frozenset({WRITE_GUARD}),
    Role.APPROVER: frozenset({WRITE_GUARD, DECIDE_APPROVALS}),
    Role.AUDITOR: frozenset({VIEW_AUDIT_TRAIL}),
    Role.ADMINISTRATOR: frozenset({WRITE_GUARD, DECIDE_APPROVALS, VIEW_AUDIT_TRAIL, MANAGE_PEOPLE, VIEW_SYSTEM_STATUS}),
}

# Write addresses without a console guard, each with why it needs none.
UNGUARDED = {
    "login": "signing in: nobody is signed in yet",
    "login_code": "the second step of signing in: nobody is signed in yet",
    "login_two_factor_setup": "a second factor set up while signing in: nobody is signed in yet",
    "login_passkey_options": "a passkey challenge while signing in: nobody is signed in yet",
    "login_code_passkey": "the second step of signing in, with a passkey: nobody is signed in yet",
    "login_passkey": "signing in with a passkey: nobody is signed in yet (the policy decides which roles may)",
    "login_passkey_setup": "a passkey registered while signing in: nobody is signed in yet",
    "own_passkey_options": "a challenge for one's own passkey: personal, whatever the role",
    "own_passkey_add": "a person's own passkey is theirs, whatever their role",
    "own_passkey_remove": "a person's own passkey (a fresh factor first; the sign-in policy decides whether the last may go)",
    "step_up_passkey": "a person confirms it is them with their own passkey (marks their own session; approving still asks the role)",
    "logout": "signing out is always allowed",
    "password_reset": "a forgotten password: nobody is signed in",
    "password_reset_confirm": "a forgotten password, from the emailed link: nobody is signed in",
    "two_factor_enable": "a person's own second factor is theirs, whatever their role",
    "recovery_codes_new": "a person's own recovery codes",
    "two_factor_turn_off": "a person's own second factor (the sign-in policy decides whether it may go)",
    "people:accept": "an invitee accepting: the signed link is the credential, nobody is signed in yet",
    "people:accept_sso": "an invitee accepting through single sign-on: the link is the credential",
    "keys:add": "a person's own API keys are personal: every role keeps theirs (the key's own role still narrows)",
    "keys:activate": "which of one's own keys acts is personal",
    "keys:check": "checking one's own key asks the service who it is; it changes nothing there",
    "keys:delete": "a person's own key is theirs to remove",
    "inbox:refresh": "reads the service again (every role reads); nothing is written there",
    "inbox:dismiss": "a person's own inbox: nobody else's changes, no remote write",
    "objects:records_columns": "the columns a person sees are theirs; a shared view's change only for an owner who may write",
    "objects:presence": "a person's own page beating (every role may be on a record), no remote write",
    "objects:presence_leave": "a person's own page left: only their own presence ends, no remote write",
    "objects:view_save": "a private view is personal; sharing it is a write, refused by its form (test_saved_view_roles)",
    "objects:view_default": "which view opens first is a person's own preference",
    "objects:view_delete": "a person's own view: withdrawing what one published is always allowed",
    "objects:job_cancel": "stops a person's own job: stopping writes needs no right to make them",
    "objects:comment_delete": "withdrawing one's own comment is always allowed; another's only by an Administrator (MANAGE_PEOPLE, checked by the view: test_comments)",
    "objects:record_watch": "which records a person watches is their own choice: it writes nothing others see",
    "own_name": "one's own display name: personal, every role keeps theirs",
    "own_language": "the language one reads the console in: a personal preference, not a workspace write",
    "own_password": "one's own password, the current one first: personal, every role keeps theirs",
    "own_sessions_sign_out": "signs out one's own other sessions: only takes access away from oneself",
    "people:theme": "light, dark or the device's: a personal preference of how pages look, not a workspace write",
    "reach:preferences": "one's own notification preferences (what reaches them, quiet hours, away): personal",
    "reach:webhook_add": "one's own chat webhook receives only their own notifications: personal",
    "reach:webhook_remove": "one's own webhook (a workspace's only for an Administrator, checked by the view)",
    "studio:selection_update": "one's own selection of images, kept in one's session: nothing written in the workspace",
    "studio:selection_add_all": "one's own selection of images (read with one's key), in one's session: no workspace write",
    "studio:selection_clear": "empties one's own selection, kept in one's session: nothing written in the workspace",
    "studio:library_zip": "a download of images the person may read, built for them alone: nothing written in the workspace",
    "reach:retry": "sends one's own failed notification again: no workspace write",
    "reach:push_subscribe": "one's own browser receives only their own notifications by push: personal",
    "reach:push_unsubscribe": "turns off push on one of one's own devices (the view finds only theirs): personal",
    "agents:run_follow": "following a run is what reaches the person (their toasts and inbox): personal, nothing is sent",
    "reach:webhook_resume": "one's own webhook called again (a workspace's only for an Administrator, checked by the view)",
    "reach:decide": "a message's decision: the token is for one Approver and the decision flow checks the role and key",
    "reach:slack_interactivity": "Slack's button clicks: signed by Slack, bound to the token's person and their role",
    "tokens:new": "one's own access token: at each use never more than the person's role allows (dashboard/tokens/scopes.py)",
    "tokens:revoke": "revoking a token only takes power away (someone else's only for an Administrator, checked by the view)",
    "agents:run_view_new": "a private view of runs is personal; sharing it is a write, refused by its form (test_run_views)",
    "agents:run_view_default": "which view of runs opens first is a person's own preference",
    "agents:run_view_remove": "a person's own view of runs (someone else's is refused by the view)",
    "mcp": "the MCP endpoint: a token's request; each tool asks its scope and the role now, and writes pass the "
    "write guard or wait for an Approver (dashboard/assistants, tests/assistants)",
}
# Whole namespaces, and views of a module, with rules of their own.
UNGUARDED_NAMESPACES = {
    "admin": "Django's admin: staff only, under Django's own permissions",
    # One view per address, every method: each operation refuses itself (tests/tokens).
    "console_api": "the console's API: each operation asks the token's scope and the role now (require_scope, require_write)",
    # A directory token, never a session (tests/directory): what it may do is the directory's, audited as such.
    "scim": "SCIM for a company directory: a directory token an Administrator made, no person's role (dashboard/directory)",
}
UNGUARDED_MODULES = {"mozilla_django_oidc.views": "single sign-on (when configured): nobody is signed in yet"}

# What a forged form carries: enough for most writes to go ahead (the guard
# must stop them before anything is read or sent).
FORGED = {"name": "Forged", "message": "Email every contact now", "decision": "reject", "agent_id": "agent-1"}


def write_addresses() -> list[Address]:
    return [address for address in console_addresses(CANDIDATES) if accepted_methods(address.view) & WRITE_METHODS]


def needs(address: Address) -> frozenset[str]:
    return view_guards(address.view)


def guarded_writes() -> list[Address]:
    return [address for address in write_addresses() if needs(address)]


def _exempt(address: Address) -> bool:
    return (
        address.name in UNGUARDED
        or bool(set(address.namespaces) & set(UNGUARDED_NAMESPACES))
        or address.module in UNGUARDED_MODULES
    )


def test_every_write_address_carries_a_guard_or_a_reason():
    forgotten = [
        address.name or address.route for address in write_addresses() if not needs(address) and not _exempt(address)
    ]
    # Each one: guard it (requires_write / requires_permission) or give UNGUARDED its reason.
    assert forgotten == []
    assert [address.name for address in guarded_writes() if not address.url] == []  # every one is tried below


def test_the_enumeration_finds_the_known_writes_and_every_reason_is_still_needed():
    names = {address.name for address in write_addresses()}
    guarded = {address.name for address in guarded_writes()}
    # Proof the enumeration reads methods and guards at all (an Objects form
    # address takes GET and POST; a Content App's page guards only its POST).
    assert {"agents:approval_decide", "objects:record_new", "studio:app", "objects:kanban_move"} <= guarded
    assert "objects:records" not in names and "audit:index" not in names  # pages that only read
    # A reason for an address that is gone, or is guarded now, is stale.
    assert set(UNGUARDED) <= names - guarded
    # Every guard names something a role may be given.
    known = set().union(*MAY.values())
    assert {need for address in guarded_writes() for need in needs(address)} <= known


def test_the_role_table_is_the_issues():
    for role, may in MAY.items():
        granted = {WRITE_GUARD if permission == WRITE else permission for permission in ROLE_PERMISSIONS[role]}
        assert granted == may, role


@pytest.fixture
def service(fake_service_settings, never_sleep, remote):
    """Every call to the service answered: a read with "not found" (none of
    the forged ids exist, and a page stops there in words, not a 500), a
    write with success (one the guard let through goes ahead)."""
    missing = {"error": {"type": "not_found", "message": "No such thing."}, "request_id": "req_matrix"}
    remote.route(method="GET").mock(return_value=httpx.Response(404, json=missing))
    return remote.route().mock(return_value=httpx.Response(200, json={"id": "agent-1", "status": "completed"}))


WORKSPACE_A, WORKSPACE_B = "ws-a", "ws-b"
# Each run's role in workspace B: every role once (a permutation), so B is
# tried as every role too; the Approver's partner is the Viewer (Dana).
IN_B: dict[str, str] = {
    Role.APPROVER: Role.VIEWER,
    Role.VIEWER: Role.MEMBER,
    Role.MEMBER: Role.AUDITOR,
    Role.AUDITOR: Role.ADMINISTRATOR,
    Role.ADMINISTRATOR: Role.APPROVER,
}


def default_beside(*roles: str) -> str:
    """A default role none of `roles` is: a check that read the default instead
    of the workspace's role would be caught."""
    return next(role for role in (Role.ADMINISTRATOR, Role.VIEWER, Role.AUDITOR) if role not in roles)


def signed_in(
    django_user_model, role: str, *, member_role: str = "admin", in_b: str | None = None, default: str | None = None
) -> Client:
    """A person whose role in workspace A (their active key) is `role`, in
    workspace B `in_b` (a second key), and `default` elsewhere; None: `role`
    is the default and there is one workspace."""
    user = django_user_model.objects.create_user(username=f"{role}-{member_role}", password="x" * 20)
    person_role_set(user=user, role=default or role)
    if default is not None:
        person_workspace_role_set(user=user, workspace_id=WORKSPACE_A, role=role)
    if in_b is not None:
        person_workspace_role_set(user=user, workspace_id=WORKSPACE_B, role=in_b)
        stored_api_key(user=user, secret=SECRET, workspace_id=WORKSPACE_B, key_id=f"key-b-{role}")
    stored_api_key(
        user=user, secret=SECRET, member_role=member_role, key_id=f"key-{role}-{member_role}", workspace_id=WORKSPACE_A
    )
    client = Client()
    client.force_login(user)
    client.user = user  # type: ignore[attr-defined]
    return client


def act_in(client: Client, workspace_id: str) -> None:
    """Make the person's key of `workspace_id` the active one, as the keys page does."""
    user = client.user  # type: ignore[attr-defined]
    api_key_activate(user=user, pk=ApiKey.objects.get(user=user, workspace_id=workspace_id).pk)


def refused(response) -> str:
    """The refusal the "Not allowed" page gives ("" for any other answer)."""
    if response.status_code != 403 or "text/html" not in response.get("Content-Type", ""):
        return ""
    page = parse(response.content)
    if text_of(one(page, "h1")) != "Not allowed":
        return ""
    return refusal_of(page)


def test_every_role_is_in_workspace_b_once():
    assert sorted(IN_B.values()) == sorted(MAY) and IN_B[Role.APPROVER] == Role.VIEWER


@pytest.mark.parametrize("role", list(MAY))
def test_each_role_is_refused_exactly_where_the_table_says_on_one_page_naming_it(role, service, django_user_model):
    in_b = IN_B[role]
    client = signed_in(django_user_model, role, in_b=in_b, default=default_beside(role, in_b))
    addresses = sorted(guarded_writes(), key=lambda address: address.url)
    assert addresses
    # The first half in A, the second in B: sorted, so an address is in the
    # same workspace in every run, and so tried as every role (IN_B is a permutation).
    half = len(addresses) // 2
    for index, address in enumerate(addresses):
        if index == half:
            act_in(client, WORKSPACE_B)
        acting = role if index < half else in_b
        label = Role(acting).label
        response = client.post(address.url, FORGED)
        missing = needs(address) - MAY[acting]
        refusal = refused(response)
        if not missing:
            assert not refusal, (address.name, acting, refusal)
        elif WRITE_GUARD in missing:
            assert refusal == f"Your console role ({label}) can only read. {ASK_FOR_WRITE}", (address.name, acting)
        else:
            assert refusal.startswith(f"Your console role is {label}. "), (address.name, acting, refusal)


def test_a_refused_role_reaches_nothing_before_the_guard(service, django_user_model, remote):
    # An Administrator by default, a Viewer in the workspace they act in.
    viewer = signed_in(django_user_model, Role.VIEWER, default=Role.ADMINISTRATOR)
    for address in guarded_writes():
        viewer.post(address.url, FORGED)
    assert remote.calls.call_count == 0


def test_the_services_role_still_narrows_an_administrator_to_reading(service, django_user_model, remote):
    """An Administrator whose key is a workspace viewer is refused every
    workspace write, told about the workspace's role; what is the console's
    own (People, a permission guard alone) stays theirs."""
    admin = signed_in(django_user_model, Role.ADMINISTRATOR, member_role="viewer")
    for address in guarded_writes():
        refusal = refused(admin.post(address.url, FORGED))
        if WRITE_GUARD in needs(address):
            assert refusal.startswith("Your role in this workspace (viewer) can only read. "), address.name
        else:
            assert not refusal, address.name
    assert remote.calls.call_count == 0


def test_a_viewer_is_not_refused_what_is_personal(service, django_user_model):
    """The reasons above hold: a Viewer's post to an address that needs no
    guard is never refused for their role (a 404 for a missing row is fine)."""
    viewer = signed_in(django_user_model, Role.VIEWER)
    personal = [
        address
        for address in write_addresses()
        if address.name in UNGUARDED and address.name not in ("login", "logout") and address.url
    ]
    assert personal
    for address in personal:
        refusal = refused(viewer.post(address.url, {"name": "Mine", "query": "", "key": "k"}))
        assert "console role" not in refusal, address.name


def test_dana_decides_at_an_address_in_workspace_a_and_is_refused_at_the_same_one_in_b(service, django_user_model):
    """Approver in A, Viewer in B, Member by default: each address that decides
    approvals lets her through in A and refuses her in B, naming her role there."""
    dana = signed_in(django_user_model, Role.APPROVER, in_b=Role.VIEWER, default=Role.MEMBER)
    deciding = [address for address in guarded_writes() if DECIDE_APPROVALS in needs(address)]
    assert len(deciding) >= 3
    assert [address.name for address in deciding if refused(dana.post(address.url, FORGED))] == []
    act_in(dana, WORKSPACE_B)
    for address in deciding:
        refusal = refused(dana.post(address.url, FORGED))
        assert refusal.startswith(("Your console role (Viewer) ", "Your console role is Viewer. ")), address.name
