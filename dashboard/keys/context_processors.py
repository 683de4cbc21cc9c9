"""Template context for the layout's workspace switcher and navigation.

No remote call: the switcher shows what the last /v1/me check stored.
Lazy, so partial (htmx) renders that never touch it make no query either.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

# URL namespace -> the header nav section it belongs to.
_SECTION_BY_NAMESPACE = {"studio": "studio", "agents": "agents", "objects": "objects"}


def nav_section_for(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return ""
    if match.url_name == "account":
        return "account"
    namespace = match.namespaces[0] if match.namespaces else ""
    if namespace == "agents" and "approval" in (match.url_name or ""):
        return "approvals"
    return _SECTION_BY_NAMESPACE.get(namespace, "")


def workspace(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"workspace_keys": [], "active_key": None, "nav_section": ""}

    from dashboard.keys.selectors import api_key_list

    keys = SimpleLazyObject(lambda: list(api_key_list(user=user)))
    active = SimpleLazyObject(lambda: next((key for key in keys if key.is_active), None))
    return {
        "workspace_keys": keys,
        "active_key": active,
        "nav_section": nav_section_for(request),
    }
