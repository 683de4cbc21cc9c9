"""Every address of an area, or of the whole console, for the tests that
check each write address refuses a person who may not write
(`dashboard.frame.permissions.requires_write`) or lacks a role's permission
(`requires_permission`): found through Django's resolver, so a new write
view is checked without anyone listing it."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from django.urls import NoReverseMatch, URLPattern, URLResolver, get_resolver, resolve, reverse

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


# Methods that change something: a view accepting any of them is a write address.
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
ALL_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", *WRITE_METHODS})


@dataclass(frozen=True)
class Address:
    """One URL pattern of the console: its name ("ns:name", "" when unnamed),
    its route, its view and an address of it with every parameter filled."""

    name: str
    route: str
    view: Callable[..., Any]
    url: str
    namespaces: tuple[str, ...]

    @property
    def module(self) -> str:
        return getattr(self.view, "__module__", "")


def accepted_methods(view: Callable[..., Any]) -> frozenset[str]:
    """The HTTP methods `view` answers. Read from Django's own wrappers: a
    class-based view's handlers, or the list `require_http_methods` (and
    `require_POST`, `require_GET`...) closes over, anywhere in the
    `__wrapped__` chain. A view that declares none answers every method, so
    it counts as a write address: an undecorated view cannot slip through."""
    view_class = getattr(view, "view_class", None)
    if view_class is not None:
        return frozenset(m.upper() for m in view_class.http_method_names if hasattr(view_class, m))
    current: Any = view
    while current is not None:
        try:
            closure = inspect.getclosurevars(current).nonlocals
        except TypeError:  # not a Python function (a callable object)
            closure = {}
        if "request_method_list" in closure:
            return frozenset(m.upper() for m in closure["request_method_list"])
        current = getattr(current, "__wrapped__", None)
    return ALL_METHODS


def _walk(patterns: list[Any], route: str = "", namespaces: tuple[str, ...] = ()) -> Iterator[Any]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = (*namespaces, pattern.namespace) if pattern.namespace else namespaces
            yield from _walk(pattern.url_patterns, route + str(pattern.pattern), inner)
        else:
            yield pattern, route + str(pattern.pattern), namespaces


def _filled(pattern: URLPattern, candidates: list[str]) -> dict[str, str] | None:
    kwargs = {}
    for name, converter in pattern.pattern.converters.items():
        for value in candidates:
            if re.fullmatch(converter.regex, value):
                try:
                    converter.to_python(value)
                except ValueError:
                    continue
                kwargs[name] = value
                break
        else:
            return None
    return kwargs


def console_addresses(candidates: list[str]) -> list[Address]:
    """Every URL pattern of the console (the root URLconf, every include),
    each address filled with the first of `candidates` its converters
    accept ("" for an unnamed pattern or one no candidate fills)."""
    found = []
    for pattern, route, namespaces in _walk(get_resolver().url_patterns):
        name = ":".join((*namespaces, pattern.name)) if pattern.name else ""
        kwargs = _filled(pattern, candidates) if name else None
        url = ""
        if kwargs is not None:
            try:
                url = reverse(name, kwargs=kwargs)
            except NoReverseMatch:  # a regex route's groups (the admin's app list)
                url = ""
        found.append(Address(name=name, route=route, view=pattern.callback, url=url, namespaces=namespaces))
    return found
