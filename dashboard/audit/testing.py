"""Test support: make a user an Approver (decides approvals) or an Auditor
(reads the audit trail).

Deciding approvals is the console role's word now (`dashboard/people/roles.py`),
not the Approvers group's (retired by migration 0004): this gives the person
the Approver role (their Person row), which also survives the flush between
transactional (browser) tests as long as the user is made after it."""

from __future__ import annotations

from typing import Any

from dashboard.people.backends import person_role_set
from dashboard.people.roles import Role


def make_approver(user: Any) -> Any:
    person_role_set(user=user, role=Role.APPROVER)
    return user


def make_administrator(user: Any) -> Any:
    """Decides approvals and reads the audit trail (and everything else)."""
    person_role_set(user=user, role=Role.ADMINISTRATOR)
    return user


def make_auditor(user: Any) -> Any:
    person_role_set(user=user, role=Role.AUDITOR)
    return user
