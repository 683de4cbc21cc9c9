"""The sign-in policy: which console roles must use two-factor sign-in.

It is asked when a person signs in with their password: one of a required
role without a second factor sets one up before any page of the console.
A choice made now reaches people already signed in at their next sign-in
(sessions last SESSION_MAX_HOURS at most): checking it on every request
would cost every page, poll included, two queries for a rule that changes
a few times a year.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from dashboard.accounts.models import RequiredTwoFactorRole
from dashboard.accounts.two_factor import two_factor_enabled_ids
from dashboard.audit.services import audit_account_event
from dashboard.people.roles import DEFAULT_ROLE, Role


@dataclass(frozen=True)
class RoleSignIn:
    role: str
    label: str
    required: bool
    people: int
    without_two_factor: int


def sign_in_policy_roles() -> list[RoleSignIn]:
    """Each role: required or not, how many active people have it and how many
    of them have no second factor yet (those a requirement will stop at their
    next sign-in). Roles as `role_of` reads them: a superuser is an
    Administrator, an account without a Person row has the default role."""
    rows = get_user_model()._default_manager.filter(is_active=True).values_list("pk", "is_superuser", "person__role")
    role_by_user = {pk: (Role.ADMINISTRATOR if superuser else (role or DEFAULT_ROLE)) for pk, superuser, role in rows}
    enabled = two_factor_enabled_ids(role_by_user)
    people = Counter(role_by_user.values())
    without = Counter(role for pk, role in role_by_user.items() if pk not in enabled)
    required = set(RequiredTwoFactorRole.objects.values_list("role", flat=True))
    return [
        RoleSignIn(
            role=role.value,
            label=role.label,
            required=role.value in required,
            people=people[role.value],
            without_two_factor=without[role.value],
        )
        for role in Role
    ]


def sign_in_policy_set(*, roles: list[str], by: Any) -> bool:
    """Make exactly `roles` require two-factor sign-in; audited. False when nothing changed."""
    wanted = {role for role in roles if role in Role.values}
    with transaction.atomic():
        current = set(RequiredTwoFactorRole.objects.select_for_update().values_list("role", flat=True))
        if wanted == current:
            return False
        RequiredTwoFactorRole.objects.filter(role__in=current - wanted).delete()
        RequiredTwoFactorRole.objects.bulk_create(
            [RequiredTwoFactorRole(role=role, chosen_by=by) for role in sorted(wanted - current)]
        )
        labels = [Role(role).label for role in Role.values if role in wanted]
        audit_account_event(
            actor=by,
            subject=None,
            action="sign_in_policy.changed",
            summary=(
                f"Two-factor sign-in required for: {', '.join(labels)}"
                if labels
                else "Two-factor sign-in required for no role"
            ),
            details={
                "required": sorted(wanted),
                "added": sorted(wanted - current),
                "removed": sorted(current - wanted),
            },
        )
    return True
