"""`request.workspace`: the workspace a request acts in.

It is the user's active stored key and what the last `GET /v1/me` check
stored with it (workspace id, name and time zone, member role). Nothing is
read until a view or template asks, and then in one query; no remote call.
Every area reads its client, workspace id and time zone from here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import tzinfo
from functools import cached_property
from typing import TYPE_CHECKING

from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django_htmx.middleware import HtmxDetails

from dashboard.keys.errors import NoActiveKeyError
from dashboard.keys.models import ApiKey, zone_named

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from dashboard.api import ServiceClient


# Member roles that may only read (`member.role` from /v1/me).
READ_ONLY_ROLES = frozenset({"viewer", "readonly", "read_only", "read-only", "reader", "guest"})


class Workspace:
    """The active key of one user and the workspace it belongs to."""

    def __init__(self, user: AbstractBaseUser | AnonymousUser) -> None:
        self.user = user

    def __repr__(self) -> str:
        return f"<Workspace {self.id or 'none'}>"

    def __bool__(self) -> bool:
        return self.key is not None

    @cached_property
    def key(self) -> ApiKey | None:
        """The stored key every page acts as (one query), or None."""
        if not self.user.is_authenticated:
            return None
        return ApiKey.objects.filter(user_id=self.user.pk, is_active=True).first()

    def require_key(self) -> ApiKey:
        """The active key; NoActiveKeyError (the errors middleware sends the
        person to add one) when there is none."""
        if self.key is None:
            raise NoActiveKeyError()
        return self.key

    @cached_property
    def client(self) -> ServiceClient:
        """A transport client acting as the active key. Raises
        NoActiveKeyError, or KeyDecryptionError when the key can't be read."""
        return self.require_key().client()

    @property
    def id(self) -> str:
        return self.key.workspace_id if self.key else ""

    @property
    def name(self) -> str:
        return self.key.workspace_name if self.key else ""

    @property
    def timezone_name(self) -> str:
        return (self.key.workspace_timezone if self.key else "") or "UTC"

    @cached_property
    def zone(self) -> tzinfo:
        """The workspace's time zone: every time on a page is shown in it."""
        return zone_named(self.timezone_name)

    @property
    def member_id(self) -> str:
        return self.key.member_id if self.key else ""

    @property
    def member_role(self) -> str:
        return self.key.member_role if self.key else ""

    @property
    def can_write(self) -> bool:
        """Whether the member may change anything: read-only roles (the
        contract leaves role names open; `viewer` is the usual one) never see
        a write button. Without a key there is no role yet: a write form sends
        the person to add a key first."""
        return self.member_role.strip().lower() not in READ_ONLY_ROLES


class WorkspaceMiddleware:
    """Sets `request.workspace` (lazy: a request that never asks costs nothing).
    Sits after AuthenticationMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.workspace = Workspace(request.user)  # type: ignore[attr-defined]
        return self.get_response(request)


class ConsoleRequest(HttpRequest):
    """A request as the console's views see it (for type checking): every
    page needs a login (LoginRequiredMiddleware), WorkspaceMiddleware set
    `workspace` and django-htmx's middleware set `htmx`."""

    user: AbstractBaseUser  # type: ignore[assignment]
    workspace: Workspace
    htmx: HtmxDetails
