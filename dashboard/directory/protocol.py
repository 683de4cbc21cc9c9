"""The part of SCIM 2.0 (RFC 7643 resources, RFC 7644 protocol) that Okta
and Entra ID use, pure: error bodies, list answers, the one filter form
they send (`attribute eq "value"`), PATCH operations in both directories'
spellings (Entra's `"op": "Replace"` and `"value": "False"`), and the
discovery documents. Why this and not django-scim2: docs/operations.md."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django.http import HttpResponse

CONTENT_TYPE = "application/scim+json"
USER = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"
ENTERPRISE_USER = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"
PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
SERVICE_PROVIDER_CONFIG = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
RESOURCE_TYPE = "urn:ietf:params:scim:schemas:core:2.0:ResourceType"
SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema"
MAX_RESULTS = 200


class ScimError(Exception):
    """An answer in SCIM's error body (RFC 7644 §3.12): status, words, and scimType when one fits."""

    def __init__(self, status: int, detail: str, scim_type: str = "") -> None:
        self.status, self.detail, self.scim_type = status, detail, scim_type
        super().__init__(detail)


def answer(body: dict[str, Any], status: int = 200, location: str = "") -> HttpResponse:
    response = HttpResponse(json.dumps(body), status=status, content_type=CONTENT_TYPE)
    response["Cache-Control"] = "no-store"
    if location:
        response["Location"] = location
    return response


def error_answer(error: ScimError) -> HttpResponse:
    body: dict[str, Any] = {"schemas": [ERROR], "status": str(error.status), "detail": error.detail}
    if error.scim_type:
        body["scimType"] = error.scim_type
    response = answer(body, status=error.status)
    if error.status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="scim"'
    return response


def list_answer(resources: list[dict[str, Any]], *, total: int, start: int) -> HttpResponse:
    return answer(
        {
            "schemas": [LIST],
            "totalResults": total,
            "startIndex": start,
            "itemsPerPage": len(resources),
            "Resources": resources,
        }
    )


def body_of(raw: bytes) -> dict[str, Any]:
    """The request's JSON object (application/scim+json or application/json)."""
    try:
        body = json.loads(raw.decode("utf-8") or "{}")
    except (UnicodeDecodeError, ValueError) as exc:
        raise ScimError(400, "The body is not JSON.", "invalidSyntax") from exc
    if not isinstance(body, dict):
        raise ScimError(400, "The body is not a JSON object.", "invalidSyntax")
    if _holds_nul(body):
        raise ScimError(400, "The body holds a NUL character.", "invalidValue")
    return body


def _holds_nul(value: Any) -> bool:
    """PostgreSQL stores no NUL in text: such a value is refused in words, not a 500."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(key) or _holds_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_holds_nul(item) for item in value)
    return False


def paging(query: Any) -> tuple[int, int]:
    """startIndex (1-based) and count, within MAX_RESULTS."""

    def number(name: str, default: int) -> int:
        try:
            return int(str(query.get(name) or default)[:20])
        except (TypeError, ValueError) as exc:
            raise ScimError(400, f"{name} is not a number.", "invalidValue") from exc

    # Capped: an offset past a bigint would be the database's error, not an empty page.
    return min(max(1, number("startIndex", 1)), 2**31), min(max(0, number("count", MAX_RESULTS)), MAX_RESULTS)


_FILTER = re.compile(r'^\s*([A-Za-z][\w.:]*)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$', re.IGNORECASE)


def filter_read(text: str, allowed: dict[str, str]) -> tuple[str, str] | None:
    """`userName eq "dana@example.com"` as (the field it names, the value);
    None without a filter. Attribute names are compared case-insensitively
    (RFC 7643 §2.1); `allowed` maps them (lower-cased) to our field names."""
    if not text.strip():
        return None
    if "\x00" in text:
        raise ScimError(400, "The filter holds a NUL character.", "invalidFilter")
    found = _FILTER.match(text)
    if found is None or found.group(1).lower() not in allowed:
        raise ScimError(400, f'Only the filters {", ".join(sorted(allowed))} eq "…" are supported.', "invalidFilter")
    try:
        value = json.loads(f'"{found.group(2)}"')
    except ValueError as exc:
        raise ScimError(400, "The filter's value is not a JSON string.", "invalidFilter") from exc
    if "\x00" in value:
        raise ScimError(400, "The filter holds a NUL character.", "invalidFilter")
    return allowed[found.group(1).lower()], value


def boolean(value: Any) -> bool:
    """A SCIM boolean, also as Entra ID sends it in PATCH ("True", "False")."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ScimError(400, f"“{value}” is not true or false.", "invalidValue")


@dataclass(frozen=True)
class Operation:
    op: str  # add, replace or remove
    path: str  # "" when the value is an object of attributes
    value: Any


def operations(body: dict[str, Any]) -> list[Operation]:
    """A PatchOp body's operations, `op` lower-cased (Entra sends "Replace")."""
    found = body.get("Operations")
    if not isinstance(found, list) or not found:
        raise ScimError(400, "A PATCH needs Operations.", "invalidSyntax")
    result = []
    for item in found:
        if not isinstance(item, dict):
            raise ScimError(400, "Each operation is an object.", "invalidSyntax")
        op = str(item.get("op") or "").lower()
        if op not in ("add", "replace", "remove"):
            raise ScimError(400, f"“{item.get('op')}” is not add, replace or remove.", "invalidSyntax")
        path = item.get("path") or ""
        if not isinstance(path, str):
            raise ScimError(400, "path is a string.", "invalidPath")
        if not path and op != "remove" and not isinstance(item.get("value"), dict):
            raise ScimError(400, "An operation without path takes an object of attributes.", "invalidValue")
        result.append(Operation(op=op, path=path, value=item.get("value")))
    return result


_MEMBER_PATH = re.compile(r'^members\[\s*value\s+eq\s+"([^"]*)"\s*\]$', re.IGNORECASE)


def member_in_path(path: str) -> str | None:
    """`members[value eq "42"]` -> "42" (Okta's and the RFC's remove of one member)."""
    found = _MEMBER_PATH.match(path.strip())
    return found.group(1) if found else None


def member_ids(value: Any) -> list[str]:
    """`[{"value": "42"}, …]` (one object alone too) -> ["42", …]."""
    items = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
    return [str(item.get("value")) for item in items if isinstance(item, dict) and item.get("value") is not None]


def service_provider_config(base: str) -> dict[str, Any]:
    return {
        "schemas": [SERVICE_PROVIDER_CONFIG],
        "documentationUri": "https://example.invalid/docs/operations.md#directory-provisioning-scim",
        "patch": {"supported": True},
        "bulk": {"supported": False, "maxOperations": 0, "maxPayloadSize": 0},
        "filter": {"supported": True, "maxResults": MAX_RESULTS},
        "changePassword": {"supported": False},
        "sort": {"supported": False},
        "etag": {"supported": False},
        "authenticationSchemes": [
            {
                "type": "oauthbearertoken",
                "name": "Bearer token",
                "description": "A directory token an Administrator makes on People → Directory provisioning.",
                "primary": True,
            }
        ],
        "meta": {"resourceType": "ServiceProviderConfig", "location": f"{base}ServiceProviderConfig"},
    }


def resource_types(base: str) -> list[dict[str, Any]]:
    return [
        {
            "schemas": [RESOURCE_TYPE],
            "id": name,
            "name": name,
            "endpoint": f"/{name}s",
            "schema": schema,
            "meta": {"resourceType": "ResourceType", "location": f"{base}ResourceTypes/{name}"},
        }
        for name, schema in (("User", USER), ("Group", GROUP))
    ]


def _attribute(name: str, kind: str = "string", **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "type": kind,
        "multiValued": False,
        "required": False,
        "caseExact": False,
        "mutability": "readWrite",
        "returned": "default",
        "uniqueness": "none",
        **more,
    }


def schemas(base: str) -> list[dict[str, Any]]:
    """What each resource holds here (the attributes the console keeps)."""
    user = [
        _attribute("userName", required=True, uniqueness="server"),
        _attribute("externalId", caseExact=True),
        _attribute(
            "name",
            "complex",
            subAttributes=[_attribute("givenName"), _attribute("familyName"), _attribute("formatted")],
        ),
        _attribute("displayName"),
        _attribute(
            "emails", "complex", multiValued=True, subAttributes=[_attribute("value"), _attribute("primary", "boolean")]
        ),
        _attribute("active", "boolean"),
        _attribute("groups", "complex", multiValued=True, mutability="readOnly"),
    ]
    group = [
        _attribute("displayName", required=True, uniqueness="server"),
        _attribute("externalId", caseExact=True),
        _attribute("members", "complex", multiValued=True, subAttributes=[_attribute("value"), _attribute("display")]),
    ]
    return [
        {
            "schemas": [SCHEMA],
            "id": schema,
            "name": name,
            "attributes": attributes,
            "meta": {"resourceType": "Schema", "location": f"{base}Schemas/{schema}"},
        }
        for schema, name, attributes in ((USER, "User", user), (GROUP, "Group", group))
    ]
