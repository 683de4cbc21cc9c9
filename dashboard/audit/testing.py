"""Test support: make a user an Approver.

The Approvers group comes from a data migration, but transactional tests
(browser tests) flush the database between tests, group included; this puts
it back the way the migration made it."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group, Permission

APPROVERS = "Approvers"


def make_approver(user: Any) -> Any:
    group, _ = Group.objects.get_or_create(name=APPROVERS)
    group.permissions.add(
        *Permission.objects.filter(
            content_type__app_label="audit", codename__in=["decide_approvals", "view_audit_trail"]
        )
    )
    user.groups.add(group)
    return user
