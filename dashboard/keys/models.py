from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.db import models
from django.db.models import Q

from dashboard.keys.crypto import decrypt_secret

if TYPE_CHECKING:
    from dashboard.api import ServiceClient


UTC = ZoneInfo("UTC")


def zone_named(name: str | None) -> ZoneInfo:
    """A workspace's time zone by its IANA name; UTC for a missing or unknown
    one. The one resolver: every time the console shows is in this zone."""
    try:
        return ZoneInfo(name) if name else UTC
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


class ApiKey(models.Model):
    """One user's stored API key for one workspace.

    The secret is kept only encrypted (`encrypted_secret`); what the pages
    show comes from the prefix the service reports and the last 4 characters.
    The workspace and member fields are what `GET /v1/me` answered at the
    last check, so the layout can show them without a remote call.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys")
    label = models.CharField(max_length=100)
    encrypted_secret = models.TextField()
    prefix = models.CharField(max_length=64)
    last4 = models.CharField(max_length=4)

    workspace_id = models.CharField(max_length=64)
    workspace_name = models.CharField(max_length=200)
    workspace_timezone = models.CharField(max_length=64, default="UTC")
    member_id = models.CharField(max_length=64)
    member_role = models.CharField(max_length=64)
    key_id = models.CharField(max_length=64)
    key_name = models.CharField(max_length=200, blank=True)
    key_created_at = models.DateTimeField(null=True, blank=True)

    last_verified_at = models.DateTimeField(null=True, blank=True)
    # When the console last asked the service about this key (`GET /v1/me`),
    # whatever it answered: a page asks again once this is KEY_RECHECK_SECONDS
    # old, beat once it is KEY_SWEEP_SECONDS old (dashboard/keys/services.py,
    # `api_key_recheck`). Set before the call, as the claim of that check, so
    # two requests of one person never both ask.
    checked_at = models.DateTimeField(null=True, blank=True)
    # Set the moment the service answers 401 to any call made with this key (a
    # page, a worker, the inbox refresh); cleared only by a successful check.
    # While set, the console shows none of the workspace's data to its owner
    # and no background work picks the key.
    refused_at = models.DateTimeField(null=True, blank=True)
    refused_request_id = models.CharField(max_length=200, blank=True)
    is_active = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "API key"
        ordering = ["workspace_name", "label", "pk"]
        constraints = [
            # One active key per user: the one every page acts as.
            models.UniqueConstraint(fields=["user"], condition=Q(is_active=True), name="keys_one_active_key_per_user"),
            # Adding the same remote key again updates the stored row.
            models.UniqueConstraint(fields=["user", "key_id"], name="keys_unique_remote_key_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.label} ({self.workspace_name}, {self.masked})"

    @property
    def zone(self) -> ZoneInfo:
        """The workspace's time zone, as the last /v1/me check stored it."""
        return zone_named(self.workspace_timezone)

    @property
    def masked(self) -> str:
        """`svc_sk_ab…wxyz`: the service's prefix and our last 4, never more."""
        return f"{self.prefix}…{self.last4}"

    @property
    def is_refused(self) -> bool:
        return self.refused_at is not None

    @property
    def is_working(self) -> bool:
        """A key the console may act as: not refused by the service and still
        readable under KEY_ENCRYPTION_KEYS."""
        return not self.is_refused and self.is_readable

    def secret(self) -> str:
        """The plaintext key, in memory only. Raises KeyDecryptionError."""
        return decrypt_secret(self.encrypted_secret)

    @cached_property
    def is_readable(self) -> bool:
        """Whether the stored secret still decrypts under KEY_ENCRYPTION_KEYS."""
        from dashboard.keys.errors import KeyDecryptionError

        try:
            self.secret()
        except KeyDecryptionError:
            return False
        return True

    def client(self, *, max_retries: int | None = None) -> ServiceClient:
        """A transport client acting as this key. Raises KeyDecryptionError."""
        from dashboard.api import ServiceClient

        return ServiceClient(
            api_key=self.secret(), max_retries=max_retries, acting_user_id=self.user_id, stored_key_id=self.pk
        )
