"""Reads about people (the console's own database only): the People page's
rows, one person's page, invitations by their link's token, and the
development mail."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils import timezone

from dashboard.accounts.passkeys import passkey_user_ids
from dashboard.accounts.two_factor import two_factor_enabled_ids
from dashboard.keys.models import ApiKey
from dashboard.people.devices import device_of
from dashboard.people.models import DevelopmentMail, Invitation, Person, SignedInSession, WorkspaceRole, token_hash
from dashboard.people.roles import DEFAULT_ROLE, Role


def person_of(*, user: Any) -> Person:
    """The person's row, made on first need (an account from before roles, or
    one `createsuperuser` made)."""
    person, _ = Person.objects.get_or_create(user_id=user.pk, defaults={"role": DEFAULT_ROLE})
    return person


@dataclass(frozen=True)
class PersonRow:
    user: Any
    role: str
    status: str  # "active" or "deactivated"
    keys: int  # how many API keys they stored (never the keys)
    second_factor: str  # "", "app", "passkey" or "app and passkey" (dashboard/accounts/two_factor.py, passkeys.py)
    tokens: int = 0  # personal access tokens not revoked (dashboard/tokens), Administrators revoke them there
    # Their roles per workspace, where they differ from the default: (role label, workspace label), by workspace.
    workspace_roles: tuple[tuple[str, str], ...] = ()

    @property
    def role_label(self) -> str:
        return str(Role(self.role).label) if self.role in Role.values else self.role


def _search(query: str) -> Q:
    words = query.split()
    condition = Q()
    for word in words[:5]:
        condition &= (
            Q(username__icontains=word)
            | Q(email__icontains=word)
            | Q(first_name__icontains=word)
            | Q(last_name__icontains=word)
        )
    return condition


def people_page(*, query: str, after: str, limit: int) -> tuple[list[PersonRow], str | None]:
    """One page of accounts, by username (keyset: `after` is the last username
    of the page before), with their role, status, stored keys, tokens and second
    factor: a fixed number of queries whatever the page's length. Returns the
    rows and the cursor of the next page (None at the end)."""
    users = (
        get_user_model()
        .objects.filter(_search(query))
        .select_related("person")
        # Every row's workspace roles in one query for the page (not one per person).
        .prefetch_related(Prefetch("person__workspace_roles", queryset=WorkspaceRole.objects.order_by("workspace_id")))
        # Two counts over two relations: distinct, or each multiplies the other.
        .annotate(
            key_count=Count("api_keys", distinct=True),
            token_count=Count("access_tokens", filter=Q(access_tokens__revoked_at__isnull=True), distinct=True),
        )
        .order_by("username")
    )
    if after:
        users = users.filter(username__gt=after)
    found = list(users[: limit + 1])
    more = len(found) > limit
    found = found[:limit]
    # One query for the page's second factors, not one per row.
    apps = two_factor_enabled_ids(user.pk for user in found)
    passkeys = passkey_user_ids([user.pk for user in found])
    named = _workspace_labels(found)
    rows = []
    for user in found:
        person = getattr(user, "person", None)
        rows.append(
            PersonRow(
                user=user,
                # The default role (the row read here saves role_of's query), and
                # beside it the roles per workspace (a superuser has none that apply).
                role=Role.ADMINISTRATOR if user.is_superuser else (person.role if person else DEFAULT_ROLE),
                status="active" if user.is_active else "deactivated",
                keys=user.key_count,
                second_factor=second_factors(app=user.pk in apps, passkey=user.pk in passkeys),
                tokens=user.token_count,
                workspace_roles=()
                if user.is_superuser or person is None
                else tuple(
                    sorted(
                        (
                            (str(Role(row.role).label), named.get(row.workspace_id, row.workspace_id))
                            for row in person.workspace_roles.all()
                            if row.role in Role.values
                        ),
                        key=lambda pair: pair[1].lower(),
                    )
                ),
            )
        )
    return rows, (found[-1].username if more and found else None)


def _workspace_labels(users: list[Any]) -> dict[str, str]:
    """{workspace id: its label} for the workspaces the page's rows have a
    role in, in one query, and none when no row has one."""
    ids = {
        row.workspace_id
        for user in users
        if getattr(user, "person", None) is not None
        for row in user.person.workspace_roles.all()
    }
    if not ids:
        return {}
    rows = (
        ApiKey.objects.filter(workspace_id__in=ids)
        .exclude(workspace_name="")
        .order_by("workspace_id", "-checked_at")
        .values_list("workspace_id", "workspace_name")
    )
    names: dict[str, str] = {}
    for workspace_id, name in rows:
        names.setdefault(workspace_id, name)
    return {workspace_id: names.get(workspace_id) or workspace_id for workspace_id in ids}


def second_factors(*, app: bool, passkey: bool) -> str:
    """A person's second factors in words, "" when none."""
    return " and ".join(name for name, on in (("app", app), ("passkey", passkey)) if on)


def invitations_waiting(*, query: str, limit: int = 100) -> list[Invitation]:
    """Invitations not accepted or revoked (expired ones too, so they can be
    sent again), newest first, matching the search."""
    invitations = Invitation.objects.filter(accepted_at__isnull=True, revoked_at__isnull=True).select_related(
        "invited_by"
    )
    for word in query.split()[:5]:
        invitations = invitations.filter(email__icontains=word)
    return list(invitations.order_by("-created_at", "-id")[:limit])


def invitation_get(*, pk: int) -> Invitation | None:
    return Invitation.objects.filter(pk=pk).first()


def invitation_for_token(token: str) -> tuple[Invitation | None, str]:
    """The invitation a link names and what may be done with it: "valid",
    "expired", "used", "revoked", or "unknown" (a tampered, mistyped or
    replaced link: only its hash could match, and none does)."""
    if not token or len(token) > 100:
        return None, "unknown"
    invitation = Invitation.objects.filter(token_hash=token_hash(token)).first()
    if invitation is None:
        return None, "unknown"
    now = timezone.now()
    if invitation.accepted_at is not None:
        return invitation, "used"
    if invitation.revoked_at is not None:
        return invitation, "revoked"
    if invitation.is_expired(now):
        return invitation, "expired"
    return invitation, "valid"


def invitation_status(invitation: Invitation, now: datetime) -> str:
    if invitation.accepted_at is not None:
        return "accepted"
    if invitation.revoked_at is not None:
        return "revoked"
    return "expired" if invitation.is_expired(now) else "invited"


def person_get(*, pk: int) -> Any:
    return get_user_model().objects.filter(pk=pk).select_related("person").first()


def person_key_count(*, user: Any) -> int:
    return user.api_keys.count()


def development_mail(*, limit: int = 50) -> QuerySet[DevelopmentMail]:
    return DevelopmentMail.objects.order_by("-id")[:limit]


@dataclass(frozen=True)
class SessionRow:
    """One session a person is signed in with, as their sessions list shows it."""

    device: str
    address: str
    signed_in_at: datetime
    last_seen_at: datetime
    is_current: bool


def session_list(*, user: Any, current_session_key: str | None) -> list[SessionRow]:
    """The sessions `user` is signed in with, the one in hand first, then the
    most recently seen: one query however many there are."""
    rows = SignedInSession.objects.filter(user_id=user.pk).only(
        "session_key", "user_agent", "address", "created_at", "last_seen_at"
    )
    listed = [
        SessionRow(
            device=device_of(row.user_agent),
            address=row.address,
            signed_in_at=row.created_at,
            last_seen_at=row.last_seen_at or row.created_at,
            is_current=row.session_key == current_session_key,
        )
        for row in rows
    ]
    return sorted(listed, key=lambda row: (not row.is_current, -row.last_seen_at.timestamp()))


@dataclass(frozen=True)
class KnownWorkspace:
    id: str
    name: str
    # Another known workspace has the same name: the id tells them apart.
    name_shared: bool = False

    @property
    def label(self) -> str:
        """Its name (a long id beside it only reads as noise), its id when it has no name or shares it."""
        if not self.name:
            return self.id
        return f"{self.name} ({self.id})" if self.name_shared else self.name


def known_workspaces() -> list[KnownWorkspace]:
    """The workspaces the console knows: those someone stored a key of (the
    console has no other list of them), by name."""
    rows = ApiKey.objects.order_by("workspace_id", "-checked_at").values_list("workspace_id", "workspace_name")
    names: dict[str, str] = {}
    for workspace_id, name in rows:
        if workspace_id and not names.get(workspace_id):
            names[workspace_id] = name
    shared = {name for name in names.values() if name and list(names.values()).count(name) > 1}
    return sorted(
        (KnownWorkspace(id=i, name=n, name_shared=n in shared) for i, n in names.items()),
        key=lambda w: (w.name.lower(), w.id),
    )


@dataclass(frozen=True)
class WorkspaceRoleRow:
    workspace: KnownWorkspace
    role: str

    @property
    def role_label(self) -> str:
        return str(Role(self.role).label)


def person_workspace_roles(*, user: Any, workspaces: list[KnownWorkspace]) -> list[WorkspaceRoleRow]:
    """The person's roles per workspace (where they differ from the default), by workspace name."""
    known = {workspace.id: workspace for workspace in workspaces}
    rows = WorkspaceRole.objects.filter(person__user_id=user.pk).values_list("workspace_id", "role")
    found = [
        WorkspaceRoleRow(workspace=known.get(workspace_id) or KnownWorkspace(id=workspace_id, name=""), role=role)
        for workspace_id, role in rows
    ]
    return sorted(found, key=lambda row: (row.workspace.name.lower(), row.workspace.id))
