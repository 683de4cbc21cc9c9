"""Roles per workspace (issue #37 item 5): a person's role in one workspace,
set on the People page or by the identity provider's map, audited like a role
change, never leaving a workspace without an Administrator who can manage
people there (the rule: administrators.py, which a default-role change in
`services.py` asks too)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import translation

from dashboard.audit.services import audit_account_event
from dashboard.keys.models import ApiKey
from dashboard.people.administrators import PeopleRefusal, display_name, refuse_if_last_administrator_in
from dashboard.people.language import role_words
from dashboard.people.models import Invitation, Person, WorkspaceRole
from dashboard.people.roles import Role


def person_workspace_role_set(
    *,
    user: AbstractBaseUser,
    workspace_id: str,
    role: str | None,
    by: AbstractBaseUser | None,
    why: str = "",
    details: dict[str, Any] | None = None,
    actor_name: str = "",
) -> WorkspaceRole | None:
    """Give `user` the role `role` in one workspace (None: their default role
    there again), audited like a role change; from their next request. The
    last Administrator who can manage people in that workspace is refused
    (PeopleRefusal), as the default role's change is."""
    if role is not None and role not in Role.values:
        raise PeopleRefusal("Choose one of the roles listed.")
    if not workspace_id:
        raise PeopleRefusal("Choose a workspace.")
    if getattr(user, "is_superuser", False):
        raise PeopleRefusal(
            f"{display_name(user)} is a superuser (made with createsuperuser), so an Administrator in every workspace."
        )
    with transaction.atomic():
        person, _ = Person.objects.select_for_update().get_or_create(user_id=user.pk)
        row = WorkspaceRole.objects.filter(person=person, workspace_id=workspace_id).first()
        before = row.role if row is not None else ""
        if (role or "") == before:
            return row
        before_there = before or person.role
        after_there = role or person.role
        if before_there == Role.ADMINISTRATOR and after_there != Role.ADMINISTRATOR:
            refuse_if_last_administrator_in(user, workspace_id, "that change")
        if role is None:
            row.delete()  # type: ignore[union-attr]
            row = None
        else:
            row, _ = WorkspaceRole.objects.update_or_create(
                person=person, workspace_id=workspace_id, defaults={"role": role}
            )
        named = workspace_name_of(workspace_id)
        audit_account_event(
            actor=by,
            subject=user,
            action="workspace_role_changed",
            summary=f"Role of {display_name(user)} in {named} changed from {_role_words(before, person.role)} "
            f"to {_role_words(role or '', person.role)}{why}",
            details={"workspace_id": workspace_id, "from": before, "to": role or "", **(details or {})},
            actor_name=actor_name,
        )
    return row


def _role_words(role: str, default: str) -> str:
    return str(Role(role).label) if role else f"their default ({Role(default).label})"


def workspace_name_of(workspace_id: str) -> str:
    """A workspace as people name it: its name from a stored key, else its id."""
    name = (
        ApiKey.objects.filter(workspace_id=workspace_id)
        .exclude(workspace_name="")
        .values_list("workspace_name", flat=True)
        .first()
    )
    return f"{name} ({workspace_id})" if name else workspace_id


def person_workspace_roles_from_identity_provider(
    *, user: AbstractBaseUser, roles: dict[str, str | None], groups: list[str], directory: str = ""
) -> None:
    """Set `user`'s role in each workspace the identity provider's map names
    (None: their default there again), as `person_role_from_identity_provider`
    does the default: audited as the provider's, the last Administrator of a
    workspace kept (said in the trail)."""
    if getattr(user, "is_superuser", False):
        return
    details = {"groups": groups[:50], "by": "directory" if directory else "identity_provider"}
    actor = None if directory else user
    why = " by the directory's groups (SCIM)" if directory else " by the identity provider's groups, at sign-in"
    for workspace_id, role in roles.items():
        try:
            person_workspace_role_set(
                user=user,
                workspace_id=workspace_id,
                role=role,
                by=actor,
                why=why,
                details=details,
                actor_name=directory,
            )
        except PeopleRefusal as refusal:
            audit_account_event(
                actor=actor,
                subject=user,
                action="role_kept",
                summary=f"{display_name(user)} keeps their role in {workspace_name_of(workspace_id)}: {refusal.message}",
                details={"workspace_id": workspace_id, "to": role or "", **details},
                actor_name=directory,
            )


# --- an invitation's roles per workspace (made when it is accepted: services._accept) ---


def checked_workspace_roles(workspace_roles: list[dict[str, str]] | None) -> list[dict[str, str]]:
    """An invitation's roles per workspace, each a role of the console, one per workspace."""
    checked: dict[str, dict[str, str]] = {}
    for entry in workspace_roles or []:
        if entry.get("role") not in Role.values or not entry.get("workspace_id"):
            raise PeopleRefusal("Choose one of the roles listed for each workspace.")
        checked[entry["workspace_id"]] = {
            "workspace_id": entry["workspace_id"],
            "role": entry["role"],
            "name": entry.get("name", ""),
        }
    return list(checked.values())


def invitation_roles_words(invitation: Invitation) -> str:
    """ "Viewer; Approver in Marketing": the default role, then those per
    workspace, in the console's language (the audit trail's kept words)."""
    with translation.override(settings.LANGUAGE_CODE):
        return "; ".join([role_words(invitation.role), *invitation.workspace_role_words()])
