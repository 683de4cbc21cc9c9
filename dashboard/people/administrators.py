"""Who the Administrators are, and the rule that one is always left: in the
console (by default role) and in each workspace (where a workspace role may
make a default Administrator less). Its own module because both a person's
default role (services.py) and their workspace roles (workspace_roles.py)
are refused by it, and each of those reads the other's rows."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser

from dashboard.people.models import Person, WorkspaceRole
from dashboard.people.roles import Role


class PeopleRefusal(Exception):
    """A change refused for a reason the person can act on; `message` says it."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


def display_name(user: Any) -> str:
    """How a refusal or an audit entry names a person: "Dana Smith (dana)", else "dana"."""
    name = user.get_full_name() if hasattr(user, "get_full_name") else ""
    return f"{name} ({user.get_username()})" if name else user.get_username()


def active_administrator_ids() -> set[int]:
    """Active accounts that are Administrators (by role, or superusers whatever their row says). Locks
    the Administrators' rows so two administrators demoting each other at once can't both succeed."""
    User = get_user_model()
    by_role = set(
        Person.objects.select_for_update()
        .filter(role=Role.ADMINISTRATOR, user__is_active=True)
        .values_list("user_id", flat=True)
    )
    superusers = set(User.objects.filter(is_superuser=True, is_active=True).values_list("pk", flat=True))
    return by_role | superusers


def refuse_if_last_administrator(user: AbstractBaseUser, doing: str) -> None:
    """PeopleRefusal when `doing` would leave nobody who can manage people, in the console or in a workspace."""
    administrators = active_administrator_ids()
    if user.pk in administrators and not administrators - {user.pk}:
        raise PeopleRefusal(
            f"{display_name(user)} is the only active Administrator: {doing} would leave nobody who can manage "
            "people. Make someone else an Administrator first."
        )
    refuse_if_last_administrator_anywhere(user, doing)  # nor the last of a workspace


def refuse_if_last_administrator_in(user: AbstractBaseUser, workspace_id: str, doing: str) -> None:
    """Nobody left who can manage people while acting in `workspace_id`:
    the Administrators there are the default ones without a lesser role in
    it, those made Administrator in it, and superusers."""
    administrators = active_administrator_ids()
    elsewhere = set(
        WorkspaceRole.objects.select_for_update()
        .filter(workspace_id=workspace_id, person__user__is_active=True)
        .values_list("person__user_id", "role")
    )
    superusers = set(get_user_model().objects.filter(is_superuser=True, is_active=True).values_list("pk", flat=True))
    lesser = {pk for pk, role in elsewhere if role != Role.ADMINISTRATOR} - superusers
    there = (administrators - lesser) | {pk for pk, role in elsewhere if role == Role.ADMINISTRATOR}
    if user.pk in there and not there - {user.pk}:
        raise PeopleRefusal(
            f"{display_name(user)} is the only active Administrator in that workspace: {doing} would leave nobody "
            "who can manage people there. Make someone else an Administrator first."
        )


def _workspaces_with_lesser_roles(user: AbstractBaseUser) -> list[str]:
    """Workspaces where someone has a role below Administrator, `user` having
    none of their own there (their default holds there)."""
    own = WorkspaceRole.objects.filter(person__user_id=user.pk).values_list("workspace_id", flat=True)
    return list(
        WorkspaceRole.objects.exclude(role=Role.ADMINISTRATOR)
        .exclude(workspace_id__in=own)
        .values_list("workspace_id", flat=True)
        .distinct()
    )


def refuse_if_last_administrator_anywhere(user: AbstractBaseUser, doing: str) -> None:
    """PeopleRefusal when `user`, a default Administrator, is the last one of
    a workspace whose other Administrators are less there."""
    for workspace_id in _workspaces_with_lesser_roles(user):
        refuse_if_last_administrator_in(user, workspace_id, doing)
