"""`user.has_perm()` from the console role (`roles.py`).

Listed in AUTHENTICATION_BACKENDS after ModelBackend: Django asks every
backend, so a permission a role grants holds wherever it is checked
(views, templates, the area registry's nav entries). A deactivated account
(`is_active` false) has none. The role is read once per request and kept on
the user object (`person_role_set` writes it and drops that copy)."""

from __future__ import annotations

from typing import Any

from dashboard.people.roles import Role, role_permissions


def role_of(user: Any) -> str:
    """The person's console role: Administrator for a superuser, else their
    Person row's role, else the default (no row yet: an account made before
    roles, or by `createsuperuser`'s kin)."""
    if not getattr(user, "is_authenticated", False):
        return ""
    if user.is_superuser:
        return Role.ADMINISTRATOR
    cached = getattr(user, "_console_role", None)
    if cached is None:
        cached = _read_person(user)[0]
    return cached


def _read_person(user: Any) -> tuple[str, str]:
    """The role and the theme in one query, both kept on the user object: a
    page asks for the role (navigation, guards) and its frame for the theme,
    and the second answer costs nothing."""
    from dashboard.people.models import Person, Theme
    from dashboard.people.roles import DEFAULT_ROLE

    row = Person.objects.filter(user_id=user.pk).values_list("role", "theme").first()
    role, theme = row if row is not None else ("", "")
    user._console_role = role or DEFAULT_ROLE
    user._console_theme = theme if theme in Theme.values else Theme.SYSTEM
    return user._console_role, user._console_theme


def theme_of(user: Any) -> str:
    """The person's theme ("system", "light" or "dark"); "system" for anyone
    not signed in (the login page follows the device)."""
    if not getattr(user, "is_authenticated", False):
        return "system"
    cached = getattr(user, "_console_theme", None)
    if cached is None:
        cached = _read_person(user)[1]
    return cached


def role_label(user: Any) -> str:
    """The role as a person reads it ("Viewer"), for the pages that name it."""
    role = role_of(user)
    return Role(role).label if role in Role.values else role


def person_role_set(*, user: Any, role: str) -> None:
    """Give `user` a console role (their Person row, made when missing), taking
    effect at their next request. Beside `role_of` because it drops the role
    `role_of` keeps on this user object. No audit entry and no last-administrator
    check: the People page's own change does both; this is for the console's
    own set-up (the demo account) and tests."""
    from dashboard.people.models import Person

    Person.objects.update_or_create(user_id=user.pk, defaults={"role": Role(role)})
    user._console_role = None
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
        return perm in role_permissions(role_of(user_obj))

    def has_module_perms(self, user_obj: Any, app_label: str) -> bool:
        if not getattr(user_obj, "is_active", False):
            return False
        return any(p.startswith(f"{app_label}.") for p in role_permissions(role_of(user_obj)))
