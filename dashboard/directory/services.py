"""Writes a directory makes over SCIM: people created, replaced, patched
and deactivated, groups and their members. Deactivation is the console's
own (people.services.person_deactivate: sessions end at once, the person's
keys stop being used by anything); a role follows the person's groups
through the OIDC sign-in's mapping (OIDC_ROLE_MAP). Every change is audited
with the directory as its actor ("Okta (directory)")."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from dashboard.accounts.oidc_roles import (
    role_from_claims,
    role_map_parse,
    workspace_role_map_parse,
    workspace_roles_from_claims,
)
from dashboard.audit.services import audit_account_event
from dashboard.directory import protocol
from dashboard.directory.models import DirectoryGroup, DirectoryPerson, DirectoryToken
from dashboard.directory.protocol import ScimError
from dashboard.directory.selectors import database_id, external_id_of
from dashboard.people.models import Person
from dashboard.people.roles import DEFAULT_ROLE
from dashboard.people.services import (
    PeopleRefusal,
    person_deactivate,
    person_reactivate,
    person_role_from_identity_provider,
)
from dashboard.people.workspace_roles import person_workspace_roles_from_identity_provider


@dataclass(frozen=True)
class PersonState:
    """What a directory may write of a person."""

    user_name: str
    external_id: str = ""
    given_name: str = ""
    family_name: str = ""
    email: str = ""
    active: bool = True


def _text(value: Any, limit: int) -> str:
    if value is None:
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ScimError(400, f"“{value}” is not a text value.", "invalidValue")
    return str(value).strip()[:limit]


def _email_of(emails: Any) -> str:
    items = [item for item in emails if isinstance(item, dict)] if isinstance(emails, list) else []
    chosen = next((item for item in items if item.get("primary") in (True, "true", "True")), items[0] if items else {})
    return _text(chosen.get("value"), 254)


def state_of_resource(body: dict[str, Any], *, active: bool = True) -> PersonState:
    """A full User resource (POST, PUT) as what the console keeps; without
    `active`, `active` (a PUT that leaves it out never reactivates anyone)."""
    user_name = _text(body.get("userName"), 150)
    if not user_name:
        raise ScimError(400, "userName is required.", "invalidValue")
    name: dict[str, Any] = body["name"] if isinstance(body.get("name"), dict) else {}
    return PersonState(
        user_name=user_name,
        external_id=_text(body.get("externalId"), 255),
        given_name=_text(name.get("givenName"), 150),
        family_name=_text(name.get("familyName"), 150),
        email=_email_of(body.get("emails")) or (user_name if "@" in user_name else ""),
        active=protocol.boolean(body["active"]) if "active" in body else active,
    )


def state_of_person(user: Any) -> PersonState:
    return PersonState(
        user_name=user.get_username(),
        external_id=external_id_of(user),
        given_name=user.first_name,
        family_name=user.last_name,
        email=user.email,
        active=bool(user.is_active),
    )


def _patched(state: PersonState, path: str, value: Any, op: str) -> PersonState:
    """One PATCH operation on one attribute; one the console keeps nothing of
    (title, phone numbers, Entra's enterprise attributes) is ignored, as the
    directories expect of an application that does not use it."""
    where = path.strip().lower()
    gone = op == "remove"
    if where == "active":
        return state if gone else replace(state, active=protocol.boolean(value))
    if where == "username":
        if gone or not _text(value, 150):
            raise ScimError(400, "userName can't be removed.", "mutability")
        return replace(state, user_name=_text(value, 150))
    if where == "externalid":
        return replace(state, external_id="" if gone else _text(value, 255))
    if where == "name.givenname":
        return replace(state, given_name="" if gone else _text(value, 150))
    if where == "name.familyname":
        return replace(state, family_name="" if gone else _text(value, 150))
    if where == "name":
        parts = value if isinstance(value, dict) else {}
        for key, part in parts.items():
            state = _patched(state, f"name.{key}", part, op)
        return replace(state, given_name="", family_name="") if gone else state
    if where == "emails":
        return replace(state, email="" if gone else _email_of(value if isinstance(value, list) else [value]))
    if where.startswith("emails[") and (where.endswith("].value") or where.endswith("]")):
        return replace(state, email="" if gone else _text(value, 254))
    return state


def state_patched(state: PersonState, body: dict[str, Any]) -> PersonState:
    for operation in protocol.operations(body):
        if operation.path:
            state = _patched(state, operation.path, operation.value, operation.op)
        elif isinstance(operation.value, dict):
            for path, value in operation.value.items():
                state = _patched(state, path, value, operation.op)
    return state


def _refuse_taken(user_name: str, *, other_than: int | None) -> None:
    taken = get_user_model().objects.filter(username__iexact=user_name)
    if other_than is not None:
        taken = taken.exclude(pk=other_than)
    if taken.exists():
        raise ScimError(409, f"A person with userName “{user_name}” already exists.", "uniqueness")


def person_provision(*, state: PersonState, token: DirectoryToken) -> Any:
    """A new console account the directory made: no password (they sign in
    with single sign-on, or set one through "Forgot password")."""
    User = get_user_model()
    with transaction.atomic():
        _refuse_taken(state.user_name, other_than=None)
        user = User(
            username=state.user_name,
            email=state.email,
            first_name=state.given_name,
            last_name=state.family_name,
            is_active=state.active,
        )
        user.set_unusable_password()
        user.save()
        Person.objects.get_or_create(user_id=user.pk, defaults={"role": settings.OIDC_ROLE_DEFAULT or DEFAULT_ROLE})
        DirectoryPerson.objects.create(user=user, external_id=state.external_id)
        audit_account_event(
            actor=None,
            subject=user,
            action="provisioned",
            summary=f"{user.get_username()} provisioned by {token.actor_name}"
            + ("" if state.active else ", deactivated"),
            details={"by": "directory", "external_id": state.external_id},
            actor_name=token.actor_name,
        )
    return user


def person_update(*, user: Any, state: PersonState, token: DirectoryToken) -> Any:
    """The person as the directory now says (PUT, PATCH): the changed fields
    audited; `active` false deactivates them as an Administrator would."""
    before = state_of_person(user)
    with transaction.atomic():
        if state.user_name != before.user_name:
            _refuse_taken(state.user_name, other_than=user.pk)
        changed = [
            name
            for name in ("user_name", "email", "given_name", "family_name", "external_id")
            if getattr(state, name) != getattr(before, name)
        ]
        if changed:
            user.username, user.email = state.user_name, state.email
            user.first_name, user.last_name = state.given_name, state.family_name
            user.save(update_fields=["username", "email", "first_name", "last_name"])
            DirectoryPerson.objects.update_or_create(user=user, defaults={"external_id": state.external_id})
            audit_account_event(
                actor=None,
                subject=user,
                action="directory_updated",
                summary=f"{user.get_username()} updated by {token.actor_name}: "
                + ", ".join(name.replace("_", " ") for name in changed),
                details={"by": "directory", "changed": changed},
                actor_name=token.actor_name,
            )
        if state.active != before.active:
            try:
                if state.active:
                    person_reactivate(user=user, by=None, directory=token.actor_name)
                else:
                    person_deactivate(user=user, by=None, directory=token.actor_name)
            except PeopleRefusal as refusal:
                raise ScimError(400, refusal.message, "mutability") from refusal
    user.refresh_from_db()
    return user


def person_deprovision(*, user: Any, token: DirectoryToken) -> None:
    """DELETE: the account is deactivated, not deleted (its audit history and
    stored keys stay for an Administrator to see, as with the console's own
    deactivation); it leaves the directory's groups."""
    person_update(user=user, state=replace(state_of_person(user), active=False), token=token)
    groups = list(user.directory_groups.all())
    if groups:
        user.directory_groups.clear()
        _roles_follow(users=[user], token=token)


# --- groups ------------------------------------------------------------------------


def _roles_follow(*, users: list[Any], token: DirectoryToken) -> None:
    """Each person's role from the directory groups they are now in, through
    OIDC_ROLE_MAP (none mapped: OIDC_ROLE_DEFAULT, or their role stays). No
    mapping: groups give no role."""
    mapping = role_map_parse(settings.OIDC_ROLE_MAP or "")
    in_workspaces = workspace_role_map_parse(settings.OIDC_ROLE_MAP or "")
    if not mapping and not in_workspaces:
        return
    for user in users:
        names = list(DirectoryGroup.objects.filter(members=user).values_list("display_name", flat=True))
        claims = {"groups": names}
        role = (role_from_claims(claims=claims, claim="groups", mapping=mapping) if mapping else None) or (
            settings.OIDC_ROLE_DEFAULT
        )
        if role:
            person_role_from_identity_provider(user=user, role=role, groups=names, directory=token.actor_name)
        if in_workspaces:
            roles = workspace_roles_from_claims(claims=claims, claim="groups", mapping=in_workspaces)
            person_workspace_roles_from_identity_provider(
                user=user, roles=roles, groups=names, directory=token.actor_name
            )


def _people_of(ids: list[str]) -> list[Any]:
    read = {database_id(value) for value in ids}
    wanted = {pk for pk in read if pk is not None}
    if len(wanted) != len(read):
        raise ScimError(400, "A member's value is a person's id here.", "invalidValue")
    found = list(get_user_model().objects.filter(pk__in=wanted))
    missing = wanted - {user.pk for user in found}
    if missing:
        raise ScimError(400, f"No person with id {sorted(missing)[0]}.", "invalidValue")
    return found


def _group_audit(group: DirectoryGroup, token: DirectoryToken, action: str, words: str, **details: Any) -> None:
    audit_account_event(
        actor=None,
        subject=None,
        action=action,
        summary=f"Group “{group.display_name}” {words} by {token.actor_name}"[:300],
        details={"by": "directory", "group": group.display_name, **details},
        actor_name=token.actor_name,
    )


def _name_free(name: Any, *, other_than: int | None) -> str:
    name = _text(name, 255)
    if not name:
        raise ScimError(400, "displayName is required.", "invalidValue")
    taken = DirectoryGroup.objects.filter(display_name__iexact=name)
    if other_than is not None:
        taken = taken.exclude(pk=other_than)
    if taken.exists():
        raise ScimError(409, f"A group named “{name}” already exists.", "uniqueness")
    return name


def group_create(*, body: dict[str, Any], token: DirectoryToken) -> DirectoryGroup:
    with transaction.atomic():
        group = DirectoryGroup.objects.create(
            display_name=_name_free(body.get("displayName"), other_than=None),
            external_id=_text(body.get("externalId"), 255),
        )
        members = _people_of(protocol.member_ids(body.get("members")))
        group.members.set(members)
        _group_audit(group, token, "directory_group_made", "made", members=len(members))
        _roles_follow(users=members, token=token)
    return group


def _members_set(group: DirectoryGroup, members: list[Any], token: DirectoryToken) -> None:
    before = set(group.members.all())
    after = set(members)
    if before == after:
        return
    group.members.set(after)
    _group_audit(
        group,
        token,
        "directory_group_members",
        f"members changed ({len(after - before)} added, {len(before - after)} removed)",
        added=[user.get_username() for user in after - before][:50],
        removed=[user.get_username() for user in before - after][:50],
    )
    _roles_follow(users=sorted(before ^ after, key=lambda user: user.pk), token=token)


def group_patch(*, group: DirectoryGroup, body: dict[str, Any], token: DirectoryToken) -> DirectoryGroup:
    """Members added, removed or replaced (Okta's and Entra's forms), the
    name replaced; each person whose groups changed gets their role again."""
    with transaction.atomic():
        group = DirectoryGroup.objects.select_for_update().get(pk=group.pk)
        members = set(group.members.all())
        renamed = ""
        for operation in protocol.operations(body):
            path = operation.path.strip()
            one = protocol.member_in_path(path)
            values = operation.value if not path and isinstance(operation.value, dict) else {path: operation.value}
            if one is not None and operation.op == "remove":
                members -= set(_people_of([one]))
                continue
            for attribute, value in values.items():
                where = attribute.lower()
                if where == "members":
                    named = set(_people_of(protocol.member_ids(value)))
                    if operation.op == "add":
                        members |= named
                    elif operation.op == "remove":
                        members = members - named if value else set()
                    else:
                        members = named
                elif where == "displayname" and operation.op != "remove":
                    renamed = _name_free(value, other_than=group.pk)
                elif where == "externalid":
                    group.external_id = "" if operation.op == "remove" else _text(value, 255)
                # id, schemas and attributes the console keeps nothing of are ignored.
        if renamed and renamed != group.display_name:
            old = group.display_name
            group.display_name = renamed
            _group_audit(group, token, "directory_group_renamed", f"renamed from “{old}”", was=old)
        group.save()
        _members_set(group, sorted(members, key=lambda user: user.pk), token)
        if renamed:
            _roles_follow(users=list(group.members.all()), token=token)
    return group


def group_replace(*, group: DirectoryGroup, body: dict[str, Any], token: DirectoryToken) -> DirectoryGroup:
    """PUT: the group as the directory now says, members and all."""
    with transaction.atomic():
        group = DirectoryGroup.objects.select_for_update().get(pk=group.pk)
        name = _name_free(body.get("displayName"), other_than=group.pk)
        renamed = name != group.display_name
        group.display_name, group.external_id = name, _text(body.get("externalId"), 255)
        group.save()
        _members_set(group, _people_of(protocol.member_ids(body.get("members"))), token)
        if renamed:
            _roles_follow(users=list(group.members.all()), token=token)
    return group


def group_delete(*, group: DirectoryGroup, token: DirectoryToken) -> None:
    with transaction.atomic():
        members = list(group.members.all())
        _group_audit(group, token, "directory_group_deleted", "deleted", members=len(members))
        group.delete()
        _roles_follow(users=members, token=token)
