"""Console roles and what each may do: the one table every guard reads.

A role is the console's own word for a person (not a workspace's): it says
the same in every area. The service's role for a key (`/v1/me`, shown as
`request.workspace.member_role`) still narrows what a person may do through
that key: a Member whose key is a workspace viewer can only read.

Permissions are strings `user.has_perm()` answers (`backends.py`), so the
guards in `dashboard.frame.permissions` and the templates ask one question.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise  # a text or a lazy translation

from django.db import models
from django.utils.translation import gettext_lazy as _


class Role(models.TextChoices):
    VIEWER = "viewer", _("Viewer")
    MEMBER = "member", _("Member")
    APPROVER = "approver", _("Approver")
    AUDITOR = "auditor", _("Auditor")
    ADMINISTRATOR = "administrator", _("Administrator")


# What a role may do. The codenames of the two audit permissions predate the
# roles (they were the Approvers group's): kept, so every check stays as it was.
WRITE = "people.write_workspace"
DECIDE_APPROVALS = "audit.decide_approvals"
VIEW_AUDIT_TRAIL = "audit.view_audit_trail"
MANAGE_PEOPLE = "people.manage_people"
VIEW_SYSTEM_STATUS = "people.view_system_status"

ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    Role.VIEWER: frozenset(),
    Role.MEMBER: frozenset({WRITE}),
    Role.APPROVER: frozenset({WRITE, DECIDE_APPROVALS}),
    Role.AUDITOR: frozenset({VIEW_AUDIT_TRAIL}),
    Role.ADMINISTRATOR: frozenset({WRITE, DECIDE_APPROVALS, VIEW_AUDIT_TRAIL, MANAGE_PEOPLE, VIEW_SYSTEM_STATUS}),
}

ROLE_DESCRIPTIONS: dict[str, StrOrPromise] = {
    Role.VIEWER: _("Reads every area; changes nothing."),
    Role.MEMBER: _("Reads and writes: turns, chats, runs, records."),
    Role.APPROVER: _("A Member who also decides approvals."),
    Role.AUDITOR: _("Reads every area and the audit trail, and exports it; changes nothing."),
    Role.ADMINISTRATOR: _("Everything, and People and System status."),
}

# A new account's role when nothing else says (an invitation names one).
DEFAULT_ROLE = Role.MEMBER


def role_permissions(role: str) -> frozenset[str]:
    return ROLE_PERMISSIONS.get(role, frozenset())
