"""What the console keeps of a company directory that provisions people
over SCIM 2.0 (Okta, Entra ID; docs/operations.md): its bearer tokens, the
directory's id for each person it manages, and its groups.

A person's SCIM id is their account's primary key; the directory's own id
(`externalId`) is kept beside it. A group is the directory's: its name
(`displayName`) gives a console role through the same mapping the OIDC
sign-in uses (OIDC_ROLE_MAP, dashboard/accounts/oidc_roles.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class DirectoryToken(models.Model):
    """A bearer token an Administrator made for one directory (`name`: "Okta").
    Shown once, never stored: the row keeps its id part and the SHA-256 of
    the whole (a random 32-byte secret needs no slow hash)."""

    name = models.CharField(max_length=100, help_text="The directory that uses it, as the audit trail names it.")
    token_id = models.CharField(max_length=16, unique=True, help_text="The token's public part, after scim_.")
    secret_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_used_at = models.DateTimeField(null=True, blank=True)
    last_used_from = models.CharField(max_length=64, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.shown_prefix}…)"

    @property
    def shown_prefix(self) -> str:
        return f"scim_{self.token_id}"

    @property
    def actor_name(self) -> str:
        """How the audit trail names what this directory did."""
        return f"{self.name} (directory)"[:150]


class DirectoryPerson(models.Model):
    """The directory's id of a person it provisions (or matched by userName)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="directory_link")
    external_id = models.CharField(max_length=255, blank=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user} ({self.external_id})"


class DirectoryGroup(models.Model):
    """A group the directory pushed, with its members."""

    display_name = models.CharField(max_length=255, unique=True)
    external_id = models.CharField(max_length=255, blank=True, db_index=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="directory_groups", blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["display_name", "id"]

    def __str__(self) -> str:
        return self.display_name
