"""Every address of an area, for the tests that check each write address
refuses a read-only member (`dashboard.frame.permissions.requires_write`):
found from the area's urls.py through Django's resolver, so a new write
view is checked without anyone listing it."""

from __future__ import annotations

import re
from types import ModuleType

from django.urls import URLPattern, resolve, reverse

from tests.html import one, parse, select, text_of


def area_addresses(urls: ModuleType, candidates: list[str]) -> list[tuple[str, str]]:
    """(URL name, URL) of every address in `urls`, each parameter filled with
    the first of `candidates` its converter accepts."""
    found = []
    for pattern in urls.urlpatterns:
        assert isinstance(pattern, URLPattern)
        kwargs = {
            name: next(value for value in candidates if re.fullmatch(converter.regex, value))
            for name, converter in pattern.pattern.converters.items()
        }
        name = f"{urls.app_name}:{pattern.name}"
        url = reverse(name, kwargs=kwargs)
        assert resolve(url).view_name == name
        found.append((name, url))
    return found


def refusal_of(page) -> str:
    """What the "Not allowed" box says (its first paragraph)."""
    return text_of(select(one(page, ".alert-warning[role=alert]"), "p")[0])


def refused_writes(client, addresses: list[tuple[str, str]], form: dict, refusal: str) -> set[str]:
    """The names of the addresses that take a POST, each checked to answer
    `client`'s post of `form` with the "Not allowed" page (403) saying
    `refusal`; an address that only reads answers 405 and is left out."""
    writes = set()
    for name, url in addresses:
        response = client.post(url, form)
        if response.status_code == 405:  # a page that only reads
            continue
        writes.add(name)
        assert response.status_code == 403, name
        page = parse(response.content)
        assert text_of(one(page, "h1")) == "Not allowed", name
        assert refusal_of(page) == refusal, name
    return writes
