"""The sign-in policy: which console roles must use two-factor sign-in,
which must register a passkey, and which may sign in with a passkey alone.

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
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import transaction

from dashboard.accounts.models import PasskeyRoleRule, RequiredTwoFactorRole
from dashboard.accounts.passkeys import passkey_user_ids
from dashboard.accounts.two_factor import two_factor_enabled_ids
from dashboard.audit.services import audit_account_event
from dashboard.people.roles import DEFAULT_ROLE, Role

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise  # a text or a lazy translation


@dataclass(frozen=True)
class RoleSignIn:
    role: str
    label: StrOrPromise
    required: bool
    people: int
    without_two_factor: int
    passkey_required: bool = False
    passwordless: bool = False
    without_passkey: int = 0


def sign_in_policy_roles() -> list[RoleSignIn]:
    """Each role: required or not, how many active people have it and how many
    of them have no second factor yet (those a requirement will stop at their
    next sign-in). Roles as `role_of` reads them: a superuser is an
    Administrator, an account without a Person row has the default role."""
    rows = get_user_model()._default_manager.filter(is_active=True).values_list("pk", "is_superuser", "person__role")
    role_by_user = {pk: (Role.ADMINISTRATOR if superuser else (role or DEFAULT_ROLE)) for pk, superuser, role in rows}
    enabled = two_factor_enabled_ids(role_by_user)
    with_passkey = passkey_user_ids(list(role_by_user))
    people = Counter(role_by_user.values())
    without = Counter(role for pk, role in role_by_user.items() if pk not in enabled and pk not in with_passkey)
    without_passkey = Counter(role for pk, role in role_by_user.items() if pk not in with_passkey)
    required = set(RequiredTwoFactorRole.objects.values_list("role", flat=True))
    rules = set(PasskeyRoleRule.objects.values_list("role", "rule"))
    return [
        RoleSignIn(
            role=role.value,
            label=role.label,
            required=role.value in required,
            people=people[role.value],
            without_two_factor=without[role.value],
            passkey_required=(role.value, PasskeyRoleRule.REQUIRED) in rules,
            passwordless=(role.value, PasskeyRoleRule.PASSWORDLESS) in rules,
            without_passkey=without_passkey[role.value],
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
        labels = [str(Role(role).label) for role in Role.values if role in wanted]
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


def passkey_policy_set(*, rule: str, roles: list[str], by: Any) -> bool:
    """Make exactly `roles` carry the passkey `rule` (PasskeyRoleRule.REQUIRED
    or PASSWORDLESS); audited. False when nothing changed."""
    wanted = {role for role in roles if role in Role.values}
    with transaction.atomic():
        rows = PasskeyRoleRule.objects.select_for_update().filter(rule=rule)
        current = set(rows.values_list("role", flat=True))
        if wanted == current:
            return False
        rows.filter(role__in=current - wanted).delete()
        PasskeyRoleRule.objects.bulk_create(
            [PasskeyRoleRule(role=role, rule=rule, chosen_by=by) for role in sorted(wanted - current)]
        )
        labels = ", ".join(str(Role(role).label) for role in Role.values if role in wanted) or "no role"
        words = "Passkey required for" if rule == PasskeyRoleRule.REQUIRED else "Passkey sign-in without a password for"
        audit_account_event(
            actor=by,
            subject=None,
            action="sign_in_policy.changed",
            summary=f"{words}: {labels}",
            details={
                "passkey_rule": rule,
                "roles": sorted(wanted),
                "added": sorted(wanted - current),
                "removed": sorted(current - wanted),
            },
        )
    return True
