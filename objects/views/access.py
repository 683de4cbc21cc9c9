"""An object's access policy (objects/access.py): which records each role
or person sees, which fields are hidden from or read-only for a role. Set by
Administrators only; kept for the workspace (scoped to `request.workspace.id`)
and enforced by the console on every read of the object's records; the
service key itself still reads everything."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from dashboard.frame.permissions import requires_permission, requires_write
from dashboard.frame.workspace import ConsoleRequest
from dashboard.people.roles import MANAGE_PEOPLE, Role
from dashboard.web.htmx import client_redirect, is_partial, render_region
from objects import access, services
from objects.access import RULE_OPERATORS, RuleRow
from objects.access_reads import access_policy, policy_fields
from objects.fields import FieldDef
from objects.records import READ_ONLY, object_definition

ADMINISTRATORS_ONLY = "An object's access policy is set by Administrators: ask one of them."
ROLES = [(value, label) for value, label in Role.choices if value != Role.ADMINISTRATOR]
BLANK_ROWS = 3


def _context(
    request: ConsoleRequest,
    object_key: str,
    *,
    policy: access.Policy | None = None,
    problems: dict[int, str] | None = None,
) -> dict:
    workspace = request.workspace
    # Every field, hidden ones too: an Administrator sees them all.
    fields: list[FieldDef] = policy_fields(workspace=workspace, object_key=object_key)
    definition = object_definition(workspace=workspace, object_key=object_key)
    policy = policy if policy is not None else access_policy(workspace_id=workspace.id, object_key=object_key)
    rows = access.rule_rows(policy)
    rows += [RuleRow()] * min(BLANK_ROWS, access.MAX_FORM_RULES - len(rows))
    by_key = {f.key: f for f in policy.fields}
    return {
        "object_key": object_key,
        "plural_name": definition.get("plural_name") or object_key,
        "enforced": gettext(access.ENFORCED_BY_CONSOLE),
        "roles": ROLES,
        "operators": RULE_OPERATORS,
        "fields": fields,
        "rows": [(n, row, (problems or {}).get(n, "")) for n, row in enumerate(rows)],
        "field_rows": [
            (
                f,
                by_key[f.key].hidden if f.key in by_key else frozenset(),
                by_key[f.key].read_only if f.key in by_key else frozenset(),
            )
            for f in fields
        ],
        "problems": problems or {},
    }


@require_GET
@requires_permission(MANAGE_PEOPLE, ADMINISTRATORS_ONLY)
def access_page(request: ConsoleRequest, object_key: str) -> HttpResponse:
    return render_region(request, "objects/access.html", "access-form", _context(request, object_key))


@require_POST
@requires_write(READ_ONLY)
@requires_permission(MANAGE_PEOPLE, ADMINISTRATORS_ONLY)
def access_save(request: ConsoleRequest, object_key: str) -> HttpResponseBase:
    """Saves the policy, or shows the form again with what is incomplete marked (nothing typed is lost)."""
    workspace = request.workspace
    fields = policy_fields(workspace=workspace, object_key=object_key)
    policy, problems = access.policy_from_form(request.POST, fields=fields, roles=Role.values)
    if problems:
        # The rows as typed (the complete ones and the incomplete alike), and a few blank ones after.
        typed = [access.rule_row_from_data(request.POST, n) for n in range(access.MAX_FORM_RULES)]
        last = max((n for n, row in enumerate(typed) if row != RuleRow()), default=-1)
        context = _context(request, object_key, policy=policy, problems=problems)
        context["rows"] = [(n, row, problems.get(n, "")) for n, row in enumerate(typed[: last + 1 + BLANK_ROWS])]
        status = 200 if is_partial(request) else 422
        return render_region(request, "objects/access.html", "access-form", context, status=status)
    services.access_policy_save(
        workspace=workspace, object_key=object_key, policy=policy, user=request.user, path=request.path
    )
    messages.success(request, "The access policy was saved: it applies from the next page anyone opens.")
    return client_redirect(request, reverse("objects:access", args=[object_key]))
