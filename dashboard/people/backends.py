"""`user.has_perm()` from the console role (`roles.py`).

Listed in AUTHENTICATION_BACKENDS after ModelBackend: Django asks every
backend, so a permission a role grants holds wherever it is checked
(views, templates, the area registry's nav entries). A deactivated account
(`is_active` false) has none. The role is read once per request and kept on
the user object (`person_role_set` writes it and drops that copy).

A person's role may differ per workspace (`WorkspaceRole`). Which workspace
a check is about: the `obj` of `has_perm(perm, obj)` when given (a workspace
id, or anything with a `workspace_id`, such as an approval), else the one the
request acts in, which `WorkspaceMiddleware` hands the user object
(`acting_in`). Work outside a request (Celery tasks, reach tokens, inbox
refreshes) passes the workspace explicitly: a user object nobody told about a
workspace gets the default role."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dashboard.people.roles import Role, role_permissions


def acting_in(user: Any, workspace_id: Callable[[], str]) -> None:
    """Tell `user` (this request's object) which workspace it acts in: asked
    only when a role is (`request.workspace`'s key, read once per request)."""
    user._console_acting = workspace_id


def acting_workspace_id(user: Any) -> str:
    """The workspace `user` acts in ("" when nobody said: the default role)."""
    acting = getattr(user, "_console_acting", None)
    return acting() if acting is not None else ""


def workspace_id_of(obj: Any) -> str | None:
    """The workspace a permission check names through `has_perm`'s `obj`: a
    workspace id, or anything with a `workspace_id` (an approval, a key)."""
    if obj is None:
        return None
    if isinstance(obj, str):
        return obj
    found = getattr(obj, "workspace_id", None)
    return found if isinstance(found, str) else None


def may_in(user: Any, perm: str, workspace_id: str) -> bool:
    """`user.has_perm(perm)` in one workspace: how code outside a request (a
    task, a message's token) names the workspace it acts for."""
    return bool(user.has_perm(perm, workspace_id))


def role_of(user: Any, workspace_id: str | None = None) -> str:
    """The person's console role in `workspace_id` (None: the workspace the
    request acts in): Administrator for a superuser, else their role in that
    workspace when one is set, else their Person row's role, else the default
    (no row yet: an account made before roles, or by `createsuperuser`'s kin)."""
    if not getattr(user, "is_authenticated", False):
        return ""
    if user.is_superuser:
        return Role.ADMINISTRATOR
    roles = workspace_roles_of(user)
    if workspace_id is None:
        workspace_id = acting_workspace_id(user)
    return (roles.get(workspace_id) if workspace_id else None) or roles[""]


def roles_held(user: Any) -> frozenset[str]:
    """Every role the person holds: their default and their roles in
    workspaces. Signing in happens in no workspace, so a sign-in rule asks
    these (a second factor required of Approvers holds for someone who
    approves in one workspace only)."""
    if not getattr(user, "is_authenticated", False):
        return frozenset()
    if user.is_superuser:
        return frozenset({Role.ADMINISTRATOR})
    return frozenset(workspace_roles_of(user).values())


def workspace_roles_of(user: Any) -> dict[str, str]:
    """{workspace id: role} with the default under "", read once per user object."""
    cached = getattr(user, "_console_roles", None)
    if cached is None:
        cached = _read_person(user)[0]
    return cached


def _read_person(user: Any) -> tuple[dict[str, str], str]:
    """The roles (default and per workspace) and the theme in one query (one
    row per workspace role), all kept on the user object: a page asks for the
    role (navigation, guards) and its frame for the theme, and the second
    answer costs nothing."""
    from dashboard.people.models import Person, Theme
    from dashboard.people.roles import DEFAULT_ROLE

    rows = list(
        Person.objects.filter(user_id=user.pk).values_list(
            "role", "theme", "workspace_roles__workspace_id", "workspace_roles__role"
        )
    )
    role, theme = rows[0][:2] if rows else ("", "")
    roles = {workspace_id: in_workspace for _, _, workspace_id, in_workspace in rows if workspace_id}
    roles[""] = role or DEFAULT_ROLE
    user._console_roles = roles
    user._console_theme = theme if theme in Theme.values else Theme.SYSTEM
    return roles, user._console_theme


def theme_of(user: Any) -> str:
    """The person's theme ("system", "light" or "dark"); "system" for anyone
    not signed in (the login page follows the device)."""
    if not getattr(user, "is_authenticated", False):
        return "system"
    cached = getattr(user, "_console_theme", None)
    if cached is None:
        cached = _read_person(user)[1]
    return cached


def role_label(user: Any, workspace_id: str | None = None) -> str:
    """The role as a person reads it ("Viewer"), for the pages that name it."""
    role = role_of(user, workspace_id)
    return str(Role(role).label) if role in Role.values else role


def person_role_set(*, user: Any, role: str) -> None:
    """Give `user` a console role (their Person row, made when missing), taking
    effect at their next request. Beside `role_of` because it drops the role
    `role_of` keeps on this user object. No audit entry and no last-administrator
    check: the People page's own change does both; this is for the console's
    own set-up (the demo account) and tests."""
    from dashboard.people.models import Person

    Person.objects.update_or_create(user_id=user.pk, defaults={"role": Role(role)})
    forget_roles(user)


def person_workspace_role_set(*, user: Any, workspace_id: str, role: str | None) -> None:
    """Give `user` a role in one workspace (None: back to their default), like
    `person_role_set`: for set-up and tests; the People page audits its own."""
    from dashboard.people.models import Person, WorkspaceRole

    person, _ = Person.objects.get_or_create(user_id=user.pk)
    if role is None:
        WorkspaceRole.objects.filter(person=person, workspace_id=workspace_id).delete()
    else:
        WorkspaceRole.objects.update_or_create(person=person, workspace_id=workspace_id, defaults={"role": Role(role)})
    forget_roles(user)


def forget_roles(user: Any) -> None:
    """Drop the roles kept on `user`: the next check reads them again."""
    user._console_roles = None
    # ModelBackend keeps the user's permissions on the object too.
    for cached in ("_perm_cache", "_user_perm_cache", "_group_perm_cache"):
        user.__dict__.pop(cached, None)


class RolePermissionBackend:
    """Answers permissions only; never authenticates anyone."""

    def authenticate(self, request: Any, **credentials: Any) -> None:
        return None

    def get_user(self, user_id: Any) -> None:
        return None

    def has_perm(self, user_obj: Any, perm: str, obj: Any = None) -> bool:
        if not getattr(user_obj, "is_active", False):
            return False
        return perm in role_permissions(role_of(user_obj, workspace_id_of(obj)))

    def has_module_perms(self, user_obj: Any, app_label: str) -> bool:
        if not getattr(user_obj, "is_active", False):
            return False
        return any(p.startswith(f"{app_label}.") for p in role_permissions(role_of(user_obj)))
