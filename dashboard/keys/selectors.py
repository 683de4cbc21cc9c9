"""Reads of stored API keys and of the identity the remote service reports."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from dashboard.keys.errors import KeyDecryptionError, NoActiveKeyError
from dashboard.keys.models import ApiKey, zone_named
from dashboard.web.reading import as_dict

if TYPE_CHECKING:
    from dashboard.api import ServiceClient

User = AbstractBaseUser | AnonymousUser


def api_key_list(*, user: User) -> QuerySet[ApiKey]:
    """The user's own stored keys (never anyone else's)."""
    if not user.is_authenticated:
        return ApiKey.objects.none()
    return ApiKey.objects.filter(user_id=user.pk)


def api_key_get(*, user: User, pk: int | str) -> ApiKey:
    """One of the user's own keys; 404 for a key that is not theirs."""
    return get_object_or_404(api_key_list(user=user), pk=pk)


def working_workspace_ids(*, user: User) -> QuerySet[ApiKey, Any]:
    """The workspaces the user holds a key of that the service has not refused
    (a subquery: `.filter(owner_key__workspace_id__in=...)`), for reads keyed by
    the person rather than by the workspace (their own tracked work)."""
    return api_key_list(user=user).filter(refused_at__isnull=True).values("workspace_id")


def active_key_for(*, user: User) -> ApiKey | None:
    """The key every page acts as, or None (no remote call, no decryption)."""
    return api_key_list(user=user).filter(is_active=True).first()


def workspace_working_keys(*, workspace_id: str) -> list[ApiKey]:
    """The stored keys of the workspace a worker may act as (the inbox
    refresh, the agent insights): never one the service refused (one member's
    revoked key must not freeze the work of everyone), nor one of a
    deactivated person (their keys stay stored, used by nothing), the active
    ones first, the latest checked first."""
    return list(
        ApiKey.objects.filter(workspace_id=workspace_id, refused_at__isnull=True, user__is_active=True)
        .select_related("user")
        .order_by("-is_active", "-last_verified_at", "-pk")
    )


def workspace_clients(*, workspace_id: str) -> Iterator[ServiceClient]:
    """Clients acting as each working key of the workspace, in turn; a key
    that no longer decrypts is passed over. No retries: the worker's next run
    is the retry, and a worker never sleeps. A caller moves on to the next
    client when the service refuses one (401)."""
    for key in workspace_working_keys(workspace_id=workspace_id):
        try:
            yield key.client(max_retries=0)
        except KeyDecryptionError:
            continue


# ---- The identity `GET /v1/me` answers -------------------------------------


@dataclass(frozen=True)
class AccountIdentity:
    workspace_id: str
    workspace_name: str
    workspace_timezone: str
    member_id: str
    member_role: str
    key_id: str
    key_name: str
    key_prefix: str
    key_created_at: datetime | None
    key_created_at_raw: str
    raw: dict[str, Any]

    @property
    def zone(self) -> ZoneInfo | None:
        """The workspace's time zone; None when /v1/me named none we know."""
        zone = zone_named(self.workspace_timezone)
        return zone if zone.key == self.workspace_timezone else None

    @property
    def key_created_at_in_workspace(self) -> datetime | None:
        zone = self.zone
        if self.key_created_at is None or zone is None:
            return None
        return self.key_created_at.astimezone(zone)


def parse_timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None:  # the spec says UTC
        parsed = parsed.replace(tzinfo=ZoneInfo("UTC"))
    return parsed


def account_identity_from(body: dict[str, Any]) -> AccountIdentity:
    """Read a /v1/me body tolerantly: a missing part reads as empty."""
    body = body if isinstance(body, dict) else {}
    workspace = as_dict(body.get("workspace"))
    member = as_dict(body.get("member"))
    key = as_dict(body.get("key"))
    created_raw = key.get("created_at") or ""
    return AccountIdentity(
        workspace_id=str(workspace.get("id") or ""),
        workspace_name=str(workspace.get("name") or ""),
        workspace_timezone=str(workspace.get("timezone") or "UTC"),
        member_id=str(member.get("id") or ""),
        member_role=str(member.get("role") or ""),
        key_id=str(key.get("id") or ""),
        key_name=str(key.get("name") or ""),
        key_prefix=str(key.get("prefix") or ""),
        key_created_at=parse_timestamp(created_raw),
        key_created_at_raw=str(created_raw),
        raw=body,
    )


def account_identity_fetch(*, client: ServiceClient) -> AccountIdentity:
    """`GET /v1/me` for the key behind `client`. Remote errors propagate."""
    return account_identity_from(client.get("/v1/me"))


def account_identity_for(*, user: User) -> tuple[ApiKey, AccountIdentity]:
    """The active stored key and what the service says it is."""
    key = active_key_for(user=user)
    if key is None:
        raise NoActiveKeyError()
    return key, account_identity_fetch(client=key.client())
