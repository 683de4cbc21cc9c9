"""Reads for SCIM: a person or a group as its SCIM resource, and the lists
a directory asks for (all, or the one a filter names)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, QuerySet

from dashboard.directory import protocol
from dashboard.directory.models import DirectoryGroup, DirectoryPerson, DirectoryToken

# The attributes a filter may name (lower-cased, RFC 7643 §2.1) and the field each reads.
USER_FILTERS = {"username": "username__iexact", "externalid": "directory_link__external_id", "id": "pk"}
GROUP_FILTERS = {"displayname": "display_name__iexact", "externalid": "external_id", "id": "pk"}


def database_id(value: str) -> int | None:
    return int(value) if value.isdigit() and len(value) < 19 else None


def people() -> QuerySet[Any]:
    return (
        get_user_model()
        .objects.select_related("directory_link")
        .prefetch_related(Prefetch("directory_groups", queryset=DirectoryGroup.objects.only("id", "display_name")))
        .order_by("pk")
    )


def person_found(scim_id: str) -> Any | None:
    pk = database_id(scim_id)
    return people().filter(pk=pk).first() if pk is not None else None


def people_filtered(text: str) -> QuerySet[Any]:
    found = protocol.filter_read(text, USER_FILTERS)
    if found is None:
        return people()
    field, value = found
    if field == "pk":
        return people().filter(pk=database_id(value) or 0)
    return people().filter(**{field: value})


def external_id_of(user: Any) -> str:
    try:
        return user.directory_link.external_id
    except DirectoryPerson.DoesNotExist:
        return ""


def user_resource(user: Any, base: str) -> dict[str, Any]:
    given, family = user.first_name, user.last_name
    resource: dict[str, Any] = {
        "schemas": [protocol.USER],
        "id": str(user.pk),
        "userName": user.get_username(),
        "name": {"givenName": given, "familyName": family, "formatted": f"{given} {family}".strip()},
        "displayName": f"{given} {family}".strip() or user.get_username(),
        "emails": [{"value": user.email, "type": "work", "primary": True}] if user.email else [],
        "active": bool(user.is_active),
        "groups": [{"value": str(group.pk), "display": group.display_name} for group in user.directory_groups.all()],
        "meta": {
            "resourceType": "User",
            "created": user.date_joined.isoformat(),
            "location": f"{base}Users/{user.pk}",
        },
    }
    if external_id := external_id_of(user):
        resource["externalId"] = external_id
    return resource


def groups() -> QuerySet[DirectoryGroup]:
    return DirectoryGroup.objects.prefetch_related(
        Prefetch("members", queryset=get_user_model().objects.only("id", "username").order_by("pk"))
    ).order_by("pk")


def group_found(scim_id: str) -> DirectoryGroup | None:
    pk = database_id(scim_id)
    return groups().filter(pk=pk).first() if pk is not None else None


def groups_filtered(text: str) -> QuerySet[DirectoryGroup]:
    found = protocol.filter_read(text, GROUP_FILTERS)
    if found is None:
        return groups()
    field, value = found
    if field == "pk":
        return groups().filter(pk=database_id(value) or 0)
    return groups().filter(**{field: value})


def group_resource(group: DirectoryGroup, base: str, *, members: bool = True) -> dict[str, Any]:
    resource: dict[str, Any] = {
        "schemas": [protocol.GROUP],
        "id": str(group.pk),
        "displayName": group.display_name,
        "meta": {
            "resourceType": "Group",
            "created": group.created_at.isoformat(),
            "lastModified": group.updated_at.isoformat(),
            "location": f"{base}Groups/{group.pk}",
        },
    }
    if members:
        resource["members"] = [
            {"value": str(user.pk), "display": user.get_username(), "$ref": f"{base}Users/{user.pk}"}
            for user in group.members.all()
        ]
    if group.external_id:
        resource["externalId"] = group.external_id
    return resource


def directory_tokens() -> QuerySet[DirectoryToken]:
    return DirectoryToken.objects.select_related("created_by").order_by("-created_at", "-id")
