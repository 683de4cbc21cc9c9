"""`user.has_perm()` from the console role (`roles.py`).

Listed in AUTHENTICATION_BACKENDS after ModelBackend: Django asks every
backend, so a permission a role grants holds wherever it is checked
(views, templates, the area registry's nav entries). A deactivated account
(`is_active` false) has none. The role is read once per request and kept on
the user object."""

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
        from dashboard.people.models import Person

        cached = Person.objects.filter(user_id=user.pk).values_list("role", flat=True).first() or ""
        if not cached:
            from dashboard.people.roles import DEFAULT_ROLE

            cached = DEFAULT_ROLE
        user._console_role = cached
    return cached


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
