"""Test support: make a user an Approver.

The Approvers group comes from a data migration, but transactional tests
(browser tests) flush the database between tests, group included;
`approver_add` puts it back the way the migration made it."""

from __future__ import annotations

from typing import Any

from dashboard.audit.services import approver_add


def make_approver(user: Any) -> Any:
    return approver_add(user=user)
