"""/scim/v2/: the SCIM 2.0 service a company directory provisions people
through (Okta, Entra ID; docs/operations.md). Every request carries a
directory token (Authorization: Bearer scim_…), never a session or a
cookie; answers and errors are application/scim+json (RFC 7644 §3.12).

One view per address, every method: each parses, calls a service or a
selector, and answers the resource."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from dashboard.directory import protocol, selectors, services
from dashboard.directory.models import DirectoryToken
from dashboard.directory.protocol import ScimError
from dashboard.directory.tokens import directory_token_authenticate
from dashboard.tokens.middleware import client_address

logger = logging.getLogger("dashboard.directory")

Handler = Callable[..., HttpResponse]


def scim(*methods: str) -> Callable[[Handler], Handler]:
    """A SCIM address: the directory's token checked, the methods it answers,
    and every refusal in SCIM's error body."""

    def decorate(view: Handler) -> Handler:
        @login_not_required
        @csrf_exempt
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                scheme, _, presented = str(request.headers.get("Authorization") or "").partition(" ")
                token = (
                    directory_token_authenticate(presented=presented.strip(), address=client_address(request))
                    if scheme.lower() == "bearer" and presented.strip()
                    else None
                )
                if token is None:
                    raise ScimError(401, "Send a directory token: Authorization: Bearer scim_… (People → Directory).")
                if request.method not in methods:
                    raise ScimError(405, f"{request.method} is not supported here; {', '.join(methods)} are.")
                return view(request, token, *args, **kwargs)
            except ScimError as error:
                return protocol.error_answer(error)

        return wrapped

    return decorate


def _base(request: HttpRequest) -> str:
    return request.build_absolute_uri("/scim/v2/")


def _listed(request: HttpRequest, rows: Any, render: Callable[[Any], dict[str, Any]]) -> HttpResponse:
    start, count = protocol.paging(request.GET)
    total = rows.count()
    page = list(rows[start - 1 : start - 1 + count]) if count else []
    return protocol.list_answer([render(row) for row in page], total=total, start=start)


@scim("GET")
def service_provider_config(request: HttpRequest, token: DirectoryToken) -> HttpResponse:
    return protocol.answer(protocol.service_provider_config(_base(request)))


@scim("GET")
def resource_types(request: HttpRequest, token: DirectoryToken) -> HttpResponse:
    found = protocol.resource_types(_base(request))
    return protocol.list_answer(found, total=len(found), start=1)


@scim("GET")
def resource_type(request: HttpRequest, token: DirectoryToken, name: str) -> HttpResponse:
    found = next((item for item in protocol.resource_types(_base(request)) if item["id"] == name), None)
    if found is None:
        raise ScimError(404, f"No resource type {name}.")
    return protocol.answer(found)


@scim("GET")
def schemas(request: HttpRequest, token: DirectoryToken) -> HttpResponse:
    found = protocol.schemas(_base(request))
    return protocol.list_answer(found, total=len(found), start=1)


@scim("GET")
def schema(request: HttpRequest, token: DirectoryToken, schema_id: str) -> HttpResponse:
    found = next((item for item in protocol.schemas(_base(request)) if item["id"] == schema_id), None)
    if found is None:
        raise ScimError(404, f"No schema {schema_id}.")
    return protocol.answer(found)


@scim("GET", "POST")
def users(request: HttpRequest, token: DirectoryToken) -> HttpResponse:
    base = _base(request)
    if request.method == "GET":
        rows = selectors.people_filtered(str(request.GET.get("filter") or ""))
        return _listed(request, rows, lambda user: selectors.user_resource(user, base))
    user = services.person_provision(state=services.state_of_resource(protocol.body_of(request.body)), token=token)
    user = selectors.people().get(pk=user.pk)
    return protocol.answer(selectors.user_resource(user, base), status=201, location=f"{base}Users/{user.pk}")


@scim("GET", "PUT", "PATCH", "DELETE")
def user(request: HttpRequest, token: DirectoryToken, scim_id: str) -> HttpResponse:
    base = _base(request)
    person = selectors.person_found(scim_id)
    if person is None:
        raise ScimError(404, f"No person with id {scim_id}.")
    if request.method == "DELETE":
        services.person_deprovision(user=person, token=token)
        return HttpResponse(status=204)
    if request.method == "PUT":
        state = services.state_of_resource(protocol.body_of(request.body), active=bool(person.is_active))
        services.person_update(user=person, state=state, token=token)
    elif request.method == "PATCH":
        state = services.state_patched(services.state_of_person(person), protocol.body_of(request.body))
        services.person_update(user=person, state=state, token=token)
    return protocol.answer(selectors.user_resource(selectors.people().get(pk=person.pk), base))


@scim("GET", "POST")
def groups(request: HttpRequest, token: DirectoryToken) -> HttpResponse:
    base = _base(request)
    if request.method == "GET":
        rows = selectors.groups_filtered(str(request.GET.get("filter") or ""))
        # Okta and Entra ask for a group without its members when they only match it by name.
        members = "members" not in str(request.GET.get("excludedAttributes") or "")
        return _listed(request, rows, lambda group: selectors.group_resource(group, base, members=members))
    group = services.group_create(body=protocol.body_of(request.body), token=token)
    found = selectors.groups().get(pk=group.pk)
    return protocol.answer(selectors.group_resource(found, base), status=201, location=f"{base}Groups/{group.pk}")


@scim("GET", "PUT", "PATCH", "DELETE")
def group(request: HttpRequest, token: DirectoryToken, scim_id: str) -> HttpResponse:
    base = _base(request)
    found = selectors.group_found(scim_id)
    if found is None:
        raise ScimError(404, f"No group with id {scim_id}.")
    if request.method == "DELETE":
        services.group_delete(group=found, token=token)
        return HttpResponse(status=204)
    if request.method == "PUT":
        services.group_replace(group=found, body=protocol.body_of(request.body), token=token)
    elif request.method == "PATCH":
        services.group_patch(group=found, body=protocol.body_of(request.body), token=token)
    return protocol.answer(selectors.group_resource(selectors.groups().get(pk=found.pk), base))
