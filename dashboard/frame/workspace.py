"""`request.workspace`: the workspace a request acts in.

It is the user's active stored key and what the last `GET /v1/me` check
stored with it (workspace id, name and time zone, member role). Nothing is
read until a view or template asks, and then in one query; no remote call.
Every area reads its client, workspace id and time zone from here.

Access follows the key: the workspace id and the client are given only while
the person's active key works (not refused by the service, still readable).
For a refused key they raise `KeyRefusedError`, so every read of the
console's own tables by workspace id, and every remote call, fails in one
place; `dashboard.frame.remote_errors` turns it into the refusal page. The
frame (header count, toasts) reads `working_id` instead, which never raises.
The key gate (`dashboard.frame.key_gate`) stops, before the view, every page
that does not say it works without a key while the active key is refused
(reads keyed by the person rather than the workspace: their own runs, chats,
jobs), and asks the service again about a key whose last check is a minute old.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import tzinfo
from functools import cached_property
from typing import TYPE_CHECKING

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import PermissionsMixin
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django_htmx.middleware import HtmxDetails

from dashboard.keys.errors import KeyDecryptionError, KeyRefusedError, NoActiveKeyError
from dashboard.keys.models import ApiKey, zone_named
from dashboard.people.backends import acting_in, may_in, role_label
from dashboard.people.roles import WRITE

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from dashboard.api import ServiceClient


# Member roles that may only read (`member.role` from /v1/me).
READ_ONLY_ROLES = frozenset({"viewer", "readonly", "read_only", "read-only", "reader", "guest"})


class Workspace:
    """The active key of one user and the workspace it belongs to."""

    def __init__(self, user: AbstractBaseUser | AnonymousUser, *, workspace_id: str = "") -> None:
        self.user = user
        # A personal access token acts in its own workspace, whichever key the person has active.
        self.pinned_id = workspace_id

    def __repr__(self) -> str:
        return f"<Workspace {self.id or 'none'}>"

    def __bool__(self) -> bool:
        return self.key is not None

    @cached_property
    def key(self) -> ApiKey | None:
        """The stored key every page acts as (one query), or None."""
        if not self.user.is_authenticated:
            return None
        if self.pinned_id:
            return (
                ApiKey.objects.filter(user_id=self.user.pk, workspace_id=self.pinned_id).order_by("-is_active").first()
            )
        return ApiKey.objects.filter(user_id=self.user.pk, is_active=True).first()

    @property
    def refused(self) -> bool:
        """Whether the service refused the active key (no query beyond `key`)."""
        return self.key is not None and self.key.is_refused

    def require_key(self) -> ApiKey:
        """The active key, when it works. NoActiveKeyError (the errors
        middleware sends the person to add one) when there is none,
        KeyRefusedError (the refusal page) when the service refused it,
        KeyDecryptionError when it can't be read."""
        key = self.key
        if key is None:
            raise NoActiveKeyError()
        if key.is_refused:
            raise KeyRefusedError(request_id=key.refused_request_id)
        if not key.is_readable:
            raise KeyDecryptionError()
        return key

    @cached_property
    def client(self) -> ServiceClient:
        """A transport client acting as the active key (see `require_key`)."""
        return self.require_key().client()

    @property
    def id(self) -> str:
        """The workspace whose console data this person may read: "" without a
        key; raises like `require_key` when the key does not work."""
        return self.require_key().workspace_id if self.key else ""

    @property
    def working_id(self) -> str:
        """The workspace id while the active key works, else "": for the frame
        (header count, toasts), which must never break a page."""
        key = self.key
        return key.workspace_id if key is not None and key.is_working else ""

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
    def acting_id(self) -> str:
        """The workspace whose console role this request acts with: the active
        key's workspace, refused or not (a role is about the workspace, not
        whether its key works), "" without a key (the default role)."""
        return self.key.workspace_id if self.key else ""

    @cached_property
    def console_role(self) -> str:
        """The person's console role as they read it ("Viewer"): one query, once per request."""
        return role_label(self.user, self.acting_id)

    @cached_property
    def console_may_write(self) -> bool:
        """Whether the console role writes (Member, Approver, Administrator;
        not Viewer or Auditor): the console's own word, whatever the key.
        Read once per request, so a role change counts from the next one."""
        user = self.user
        # Asked of this workspace: a Workspace made outside a request (a task) says which.
        return isinstance(user, PermissionsMixin) and may_in(user, WRITE, self.acting_id)

    @property
    def key_may_write(self) -> bool:
        """Whether the service's role for the active key writes: read-only
        roles (the contract leaves role names open; `viewer` is the usual one)
        narrow even an Administrator to reading. Without a key there is no
        role yet: a write form sends the person to add a key first."""
        return self.member_role.strip().lower() not in READ_ONLY_ROLES

    @property
    def can_write(self) -> bool:
        """Whether this person may change anything here: both the console role
        and the key's role must write. Templates hide every write button
        behind it and `requires_write` refuses with it, so the buttons shown
        and the posts accepted always agree, and no area relies on the
        service's 403 alone."""
        return self.console_may_write and self.key_may_write


class WorkspaceMiddleware:
    """Sets `request.workspace` (lazy: a request that never asks costs nothing).
    Sits after AuthenticationMiddleware; the key gate (`dashboard.frame.key_gate`)
    follows it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        token = getattr(request, "access_token", None)
        workspace = Workspace(request.user, workspace_id=token.workspace_id if token else "")
        request.workspace = workspace  # type: ignore[attr-defined]
        # Every role check of this request (guards, pages, buttons, navigation)
        # follows the workspace it acts in, read when first asked.
        acting_in(request.user, lambda: workspace.acting_id)
        return self.get_response(request)


class ConsoleRequest(HttpRequest):
    """A request as the console's views see it (for type checking): every
    page needs a login (LoginRequiredMiddleware), WorkspaceMiddleware set
    `workspace` and django-htmx's middleware set `htmx`."""

    user: AbstractBaseUser  # type: ignore[assignment]
    workspace: Workspace
    htmx: HtmxDetails
