"""The core's own palette sources (the console's database and cache only):

- pages: every area's navigation entries and home cards (the registry, as
  the header and the home page show them to this person: permission
  filtered), the home page and the inbox;
- actions of the core (add a key, two-factor sign-in);
- the person's stored API keys, by workspace name or label;
- the audit trail of a person or an area, for those who may read it.

No area is named here: the areas' pages come from what they registered.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from django.core.cache import cache
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop

from dashboard.frame.areas import home_cards, nav_links
from dashboard.palette.sources import (
    KIND_PAGES,
    PaletteAction,
    PaletteResult,
    PaletteSource,
    actions_source,
    may,
    ranked,
)
from dashboard.people.roles import VIEW_AUDIT_TRAIL

if TYPE_CHECKING:
    from dashboard.frame.workspace import ConsoleRequest

# Group keys in English, translated where the groups are made (search.palette_search).
KIND_KEYS = gettext_noop("API keys")
KIND_AUDIT = gettext_noop("Audit trail")
# The trail's people and areas, read once a minute per workspace: the trail
# grows with every write, and a keystroke must not scan it.
AUDIT_CHOICES_SECONDS = 60


def pages_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    user = request.user
    candidates: list[tuple[PaletteResult, str]] = [
        # Found by their words in the person's language, and by these English ones.
        (
            PaletteResult(gettext("Home"), gettext("What needs you, and every area"), reverse("home"), KIND_PAGES),
            "start overview",
        ),
        (
            PaletteResult(
                gettext("Inbox"), gettext("Everything waiting for a person"), reverse("inbox:index"), KIND_PAGES
            ),
            "needs you approvals questions waiting failed",
        ),
    ]
    descriptions = {card.url: card.description for card in home_cards(user)}
    for link in nav_links(None, user):
        candidates.append((PaletteResult(link.label, descriptions.get(link.url, ""), link.url, KIND_PAGES), ""))
    for card in home_cards(user):
        # A card whose page a navigation entry already names is found there (same address).
        candidates.append((PaletteResult(card.title, card.description, card.url, KIND_PAGES), ""))
    unique = {result.url: (result, more) for result, more in reversed(candidates)}
    ordered = [unique[url] for url in dict.fromkeys(result.url for result, _ in candidates)]
    return ranked(query, ordered, limit=limit)


def keys_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    if not query:
        return []
    from dashboard.keys.models import ApiKey

    url = reverse("keys:list")
    candidates = []
    for key in ApiKey.objects.filter(user_id=request.user.pk).order_by("-is_active", "workspace_name", "pk"):
        # The label and the role are the person's and the service's words, not translated.
        if key.is_active:
            subtitle = gettext("Key “%(label)s”, active") % {"label": key.label}
        else:
            subtitle = gettext("Key “%(label)s”, stored") % {"label": key.label}
        if key.member_role:
            subtitle = gettext("%(key)s, role %(role)s") % {"key": subtitle, "role": key.member_role}
        candidates.append((PaletteResult(key.workspace_name or key.label, subtitle, url, KIND_KEYS), "workspace key"))
    return ranked(query, candidates, limit=limit)


def _audit_choices(workspace_id: str) -> tuple[list[str], list[str]]:
    from dashboard.audit.selectors import audit_choices

    cache_key = "palette:audit:" + hashlib.sha256(workspace_id.encode("utf-8", "surrogatepass")).hexdigest()
    choices = cache.get(cache_key)
    if choices is None:
        choices = audit_choices(workspace_id=workspace_id)
        cache.set(cache_key, choices, AUDIT_CHOICES_SECONDS)
    return choices


def audit_found(request: ConsoleRequest, query: str, limit: int) -> list[PaletteResult]:
    if not query or not may(request.user, VIEW_AUDIT_TRAIL):
        return []
    from urllib.parse import urlencode

    people, area_names = _audit_choices(request.workspace.id)
    url = reverse("audit:index")
    candidates = [
        (
            PaletteResult(
                gettext("Writes by %(name)s") % {"name": name},
                gettext("The audit trail, filtered"),
                f"{url}?{urlencode({'person': name})}",
                KIND_AUDIT,
            ),
            "audit person",
        )
        for name in people
    ]
    candidates += [
        (
            PaletteResult(
                gettext("Writes in %(area)s") % {"area": gettext(name.capitalize())},
                gettext("The audit trail, filtered"),
                f"{url}?{urlencode({'area': name})}",
                KIND_AUDIT,
            ),
            "audit area",
        )
        for name in area_names
    ]
    return ranked(query, candidates, limit=limit)


CORE_SOURCES: tuple[PaletteSource, ...] = (
    # Labels in English (the log's words), translated where a page shows them
    # (search._not_searched, sources.actions_source).
    PaletteSource(label=gettext_noop("Pages"), search=pages_found, needs_key=False),
    actions_source(
        gettext_noop("Actions"),
        PaletteAction(gettext_noop("Add an API key"), "keys:add", "new key store workspace"),
        PaletteAction(gettext_noop("Two-factor sign-in"), "two_factor", "security totp recovery codes account"),
    ),
    PaletteSource(label=gettext_noop("API keys"), search=keys_found, needs_key=False),
    PaletteSource(label=gettext_noop("The audit trail"), search=audit_found),
)
