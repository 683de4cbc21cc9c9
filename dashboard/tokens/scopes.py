"""What a token may do: the scopes a person grants it, narrowed at every use
by what the person's role allows at that moment (a demotion narrows every
token at once; a deactivated person's tokens do nothing)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise  # a text or a lazy translation

from django.utils.translation import gettext_lazy as _

from dashboard.people.roles import DECIDE_APPROVALS, VIEW_AUDIT_TRAIL, WRITE

READ = "read"
WRITE_STUDIO = "write:studio"
WRITE_AGENTS = "write:agents"
WRITE_OBJECTS = "write:objects"
DECIDE = "decide"
AUDIT = "audit"
# One's own notification preferences (personal: every role keeps theirs).
NOTIFICATIONS = "notifications"

SCOPES: dict[str, StrOrPromise] = {
    READ: _("Read every area (what the person can read)"),
    WRITE_STUDIO: _("Write in Studio (turns, Content Apps)"),
    WRITE_AGENTS: _("Write in Agents (chats, runs, activation)"),
    WRITE_OBJECTS: _("Write in Objects (records, imports)"),
    DECIDE: _("Decide approvals"),
    AUDIT: _("Read the audit trail"),
    NOTIFICATIONS: _("Read and change your own notification preferences"),
}

# The permission a role must hold for each scope to count ("" : holding a working key is enough).
NEEDS: dict[str, str] = {
    READ: "",
    WRITE_STUDIO: WRITE,
    WRITE_AGENTS: WRITE,
    WRITE_OBJECTS: WRITE,
    DECIDE: DECIDE_APPROVALS,
    AUDIT: VIEW_AUDIT_TRAIL,
    NOTIFICATIONS: "",
}


def scopes_allowed(user, workspace_id: str | None = None) -> list[str]:
    """The scopes the person's role in `workspace_id` allows now (None: the
    workspace the request acts in; what the form offers)."""
    if not user.is_active:
        return []
    return [scope for scope, permission in NEEDS.items() if not permission or user.has_perm(permission, workspace_id)]


def scopes_in_force(*, user, granted: list[str], workspace_id: str | None = None) -> frozenset[str]:
    """The token's scopes that count at this use: granted and allowed now, by
    the role in the token's workspace (`workspace_id`)."""
    return frozenset(granted) & frozenset(scopes_allowed(user, workspace_id))


def scope_refusal(*, user, granted: list[str], needed: str, workspace_id: str | None = None) -> str:
    """Why a use needing `needed` is refused, in words ("" when it may go on)."""
    if needed in scopes_in_force(user=user, granted=granted, workspace_id=workspace_id):
        return ""
    if needed not in granted:
        return f"This token was not given the scope “{needed}” ({SCOPES.get(needed, needed)})."
    return f"Your role no longer allows “{needed}” ({SCOPES.get(needed, needed)}): the token is narrowed with it."
