from __future__ import annotations

import hashlib
from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from dashboard.people.roles import DEFAULT_ROLE, Role


class Theme(models.TextChoices):
    """How the console looks to a person. "System" follows the device's
    light or dark setting (prefers-color-scheme); the other two hold
    whatever the device says."""

    SYSTEM = "system", _("System")
    LIGHT = "light", _("Light")
    DARK = "dark", _("Dark")


class Person(models.Model):
    """The console's word about one account: its role. One row per user,
    made on first need (`selectors.person_of`); a superuser is an
    Administrator whatever the row says."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="person")
    role = models.CharField(max_length=16, choices=Role.choices, default=DEFAULT_ROLE)
    # A personal preference, not a workspace's: every role may set its own
    # (dashboard/people/views_theme.py); read with the role in one query.
    theme = models.CharField(max_length=8, choices=Theme.choices, default=Theme.SYSTEM)
    # An Administrator's choice to hide Home's getting-started checklist (shown again from Home).
    getting_started_hidden = models.BooleanField(default=False)
    # The person's language (settings.LANGUAGES); blank: the browser's
    # (Accept-Language). Chosen on their account page; kept in the session at
    # sign-in, so a page reads no row for it (dashboard/people/language.py).
    language = models.CharField(max_length=8, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # Permissions every role table entry names that Django does not make itself.
        permissions = [
            ("write_workspace", "Can write to the workspace"),
            ("manage_people", "Can manage people"),
            ("view_system_status", "Can view the system status"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.get_role_display()})"


def token_hash(token: str) -> str:
    """What an invitation stores of its link's token: a database read gives no working link."""
    return hashlib.sha256(token.encode()).hexdigest()


class Invitation(models.Model):
    """An administrator's invitation of one email address, with a role.

    The link carries a random token; only its SHA-256 is stored
    (`token_hash`), so a database read gives no working link. It works once
    (`accepted_at`), until `expires_at`, and not after `revoked_at`. Re-sending
    replaces the hash: the link sent before stops working at once.
    """

    email = models.EmailField(max_length=254)
    role = models.CharField(max_length=16, choices=Role.choices, default=DEFAULT_ROLE)
    # Roles in workspaces besides the default, made when the invitation is
    # accepted: [{"workspace_id": ..., "role": ..., "name": the workspace's
    # name when invited}], by workspace name (`workspace_role_words`).
    workspace_roles = models.JSONField(default=list, blank=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True, help_text="When the latest link was sent.")
    send_count = models.PositiveSmallIntegerField(default=0)
    token_hash = models.CharField(max_length=64, unique=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["email"], name="people_invitation_email")]

    def __str__(self) -> str:
        return f"{self.email} ({self.get_role_display()})"

    def workspace_role_words(self) -> list[str]:
        """Its roles in workspaces as a person reads them: ["Approver in Marketing", ...]."""
        return [
            gettext("%(role)s in %(workspace)s")
            % {"role": Role(entry["role"]).label, "workspace": entry.get("name") or entry["workspace_id"]}
            for entry in self.workspace_roles
            if entry.get("role") in Role.values
        ]

    def is_expired(self, now: datetime) -> bool:
        return self.expires_at <= now

    def is_pending(self, now: datetime) -> bool:
        """Still usable: not accepted, not revoked, not expired."""
        return self.accepted_at is None and self.revoked_at is None and not self.is_expired(now)


class SignedInSession(models.Model):
    """One session a person logged in with (recorded at login): deactivating
    them ends exactly these, without reading every session of the console.
    A row whose session is already gone is harmless; a person's rows older
    than the absolute session limit are dropped at their next login."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    session_key = models.CharField(max_length=40, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # What the person's own sessions list shows: the browser that signed in,
    # from where, and the last request (written at most once a minute, with the session's idle clock).
    user_agent = models.CharField(max_length=300, blank=True)
    address = models.CharField(max_length=64, blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"session of {self.user_id}"


class DevelopmentMail(models.Model):
    """A message the console "sent" on a machine without EMAIL_URL (`make run`):
    kept here (and written to the log) so the invitee's link can be found on
    the Mail (development) page. Never used in production."""

    created_at = models.DateTimeField(auto_now_add=True)
    sender = models.CharField(max_length=254)
    recipients = models.CharField(max_length=1000)
    subject = models.CharField(max_length=300)
    body = models.TextField()

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return self.subject


class WorkspaceRole(models.Model):
    """A person's role in one workspace, where it differs from their default
    (`Person.role`): Dana may approve in Marketing and only read in Finance.
    The workspace is the service's id (as `ApiKey.workspace_id`); a workspace
    without a row here gets the default. Read with the Person row in one
    query (`backends.role_of`)."""

    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="workspace_roles")
    workspace_id = models.CharField(max_length=64)
    role = models.CharField(max_length=16, choices=Role.choices)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["workspace_id"]
        constraints = [
            models.UniqueConstraint(fields=["person", "workspace_id"], name="people_workspace_role_once"),
        ]

    def __str__(self) -> str:
        return f"{self.person.user} in {self.workspace_id} ({self.get_role_display()})"
