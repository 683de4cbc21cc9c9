"""Console roles from the identity provider's claims (#37 item 1), pure.

A company says who may do what in its directory, not in the console: a
claim of the person's sign-in (`OIDC_ROLE_CLAIM`: `groups` by default; a
dotted path reaches a nested one, as Keycloak's `realm_access.roles`) names
their groups or app roles, and `OIDC_ROLE_MAP` says which console role each
gives. The role is set again at every sign-in, so a person taken out of a
group loses its role the next time they sign in.

A person in several mapped groups gets the strongest role, in the order
ROLE_STRENGTH (an Auditor reads the trail but writes nothing, so an
Approver outranks them). A person in none gets `OIDC_ROLE_DEFAULT`, or
is refused when `OIDC_ROLE_REQUIRED` is on.

A pair may name a workspace (roles per workspace, #37 item 5):
`marketing-approvers=approver@ws_123` makes the group's people Approvers in
that workspace (the service's workspace id) whatever their default. The
provider then decides the role in every workspace its map names: someone in
no group mapped there has their default role there again at their next
sign-in. Workspaces the map does not name keep what the People page set.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from dashboard.people.roles import Role

ROLE_STRENGTH = (Role.ADMINISTRATOR, Role.APPROVER, Role.AUDITOR, Role.MEMBER, Role.VIEWER)


def _pairs(text: str, setting: str) -> Iterator[tuple[str, str, str]]:
    """(group, role, workspace id or "") for each pair of a role map."""
    for raw in text.replace("\n", ",").split(","):
        pair = raw.strip()
        if not pair:
            continue
        group, sep, given = pair.rpartition("=")
        role, _, workspace_id = given.partition("@")
        group, role, workspace_id = group.strip(), role.strip().lower(), workspace_id.strip()
        if not sep or not group or ("@" in given and not workspace_id):
            raise ImproperlyConfigured(f"{setting}: “{pair}” is not group=role or group=role@workspace.")
        if role not in Role.values:
            raise ImproperlyConfigured(
                f"{setting}: “{role}” (for {group}) is not a console role; use one of {', '.join(Role.values)}."
            )
        yield group, role, workspace_id


def role_map_parse(text: str, *, setting: str = "OIDC_ROLE_MAP") -> dict[str, str]:
    """`OIDC_ROLE_MAP`'s default roles: pairs `group=role`, separated by
    commas or new lines (a group's name may hold `=`: the role is after the
    last one). Group names are compared exactly, as providers send them. A
    role the console does not have is a configuration error, said at start
    (`setting`: the name said, SAML_ROLE_MAP for SAML sign-in). Pairs naming a
    workspace are `workspace_role_map_parse`'s."""
    return {group: role for group, role, workspace_id in _pairs(text, setting) if not workspace_id}


def workspace_role_map_parse(text: str, *, setting: str = "OIDC_ROLE_MAP") -> dict[str, dict[str, str]]:
    """The same map's pairs naming a workspace: {workspace id: {group: role}}."""
    mapping: dict[str, dict[str, str]] = {}
    for group, role, workspace_id in _pairs(text, setting):
        if workspace_id:
            mapping.setdefault(workspace_id, {})[group] = role
    return mapping


def workspace_roles_from_claims(
    *, claims: Mapping[str, Any], claim: str, mapping: Mapping[str, Mapping[str, str]]
) -> dict[str, str | None]:
    """The role the claims give in each workspace the map names (None: no
    group of theirs is mapped there, their default applies there again)."""
    return {
        workspace_id: role_from_claims(claims=claims, claim=claim, mapping=groups)
        for workspace_id, groups in mapping.items()
    }


def claim_values(claims: Mapping[str, Any], path: str) -> list[str]:
    """The strings a claim holds: a list of strings, or one string (some
    providers send a single group as a string); a dotted `path` reads a
    nested claim. Anything else holds nothing."""
    value: Any = claims
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [item for item in value if isinstance(item, str)]
    return []


def role_from_claims(*, claims: Mapping[str, Any], claim: str, mapping: Mapping[str, str]) -> str | None:
    """The console role the claims give (the strongest of the mapped groups),
    or None when no group of theirs is mapped."""
    given = {mapping[group] for group in claim_values(claims, claim) if group in mapping}
    return next((role.value for role in ROLE_STRENGTH if role in given), None)
