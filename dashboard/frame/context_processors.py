"""Template context of the frame every page shares: the header's
navigation (from the area registry), workspace switcher and theme (the
person's light/dark choice, on `<html data-theme>` so the first paint is
already right).

No remote call: the switcher shows what the last /v1/me check stored. Lazy,
so partial renders that never touch it make no query either.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse
from django.utils import translation
from django.utils.functional import SimpleLazyObject

from dashboard.frame.areas import nav_links
from dashboard.keys.selectors import api_key_list
from dashboard.people.backends import theme_of
from dashboard.people.language import catalog_version, is_language
from dashboard.people.models import Theme


def javascript_catalog_url() -> str:
    """static/js's strings for the page's language; "" in English (the scripts' own words)."""
    language = translation.get_language() or settings.LANGUAGE_CODE
    if language == settings.LANGUAGE_CODE or not is_language(language):
        return ""
    return reverse("javascript_catalog", args=[language, catalog_version(language)])


def console(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    catalog = SimpleLazyObject(javascript_catalog_url)
    if user is None or not user.is_authenticated:
        return {
            "workspace_keys": [],
            "active_key": None,
            "nav_links": [],
            "theme": Theme.SYSTEM.value,
            "javascript_catalog": catalog,
        }
    workspace = getattr(request, "workspace", None)
    keys = SimpleLazyObject(lambda: list(api_key_list(user=user)))
    return {
        "workspace_keys": keys,
        "active_key": SimpleLazyObject(
            lambda: workspace.key if workspace is not None else next((key for key in keys if key.is_active), None)
        ),
        "nav_links": SimpleLazyObject(lambda: nav_links(getattr(request, "resolver_match", None), user)),
        # Read with the role (one query for both); a partial never renders it.
        "theme": SimpleLazyObject(lambda: theme_of(user)),
        "theme_label": SimpleLazyObject(lambda: Theme(theme_of(user)).label),
        "theme_choices": Theme.choices,
        "javascript_catalog": catalog,
    }
