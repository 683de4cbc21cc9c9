from __future__ import annotations

from django.conf import settings
from django.db import models

from dashboard.people.roles import Role


class RequiredTwoFactorRole(models.Model):
    """The sign-in policy: one row per console role whose people must sign in
    with a second factor (chosen by an administrator on
    /people/sign-in-policy/). A row per role rather than one settings row
    with a list: "is my role required?" is one indexed lookup, and each
    choice keeps who made it and when."""

    role = models.CharField(max_length=16, choices=Role.choices, unique=True)
    chosen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    chosen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["role"]
        verbose_name = "role that must use two-factor sign-in"

    def __str__(self) -> str:
        return self.get_role_display()


class Passkey(models.Model):
    """A passkey (a WebAuthn credential) a person registered on their own
    account page: what the console needs to check its signatures, never a
    secret. `sign_count` is the authenticator's counter at its last use: a
    lower or equal one on a later sign-in means a cloned authenticator, refused
    (authenticators that keep no counter always send 0, and are let through)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="passkeys")
    name = models.CharField(max_length=64)
    # The credential's id as the browser sends it (base64url): looked up on every sign-in.
    credential_id = models.CharField(max_length=1400, unique=True)
    public_key = models.BinaryField()
    sign_count = models.PositiveBigIntegerField(default=0)
    transports = models.JSONField(default=list, blank=True)
    # Synced passkeys (iCloud Keychain, Google Password Manager) are "backed up"; a security key is not.
    backed_up = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return self.name


class PasskeyRoleRule(models.Model):
    """The passkey part of the sign-in policy, one row per role and rule:
    "required" (people of the role register a passkey before using the
    console) or "passwordless" (people of the role may sign in with a passkey
    alone, no password). Rows like RequiredTwoFactorRole: who chose it, when."""

    REQUIRED = "required"
    PASSWORDLESS = "passwordless"
    RULES = [(REQUIRED, "must register a passkey"), (PASSWORDLESS, "may sign in with a passkey alone")]

    role = models.CharField(max_length=16, choices=Role.choices)
    rule = models.CharField(max_length=16, choices=RULES)
    chosen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    chosen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rule", "role"]
        constraints = [models.UniqueConstraint(fields=["role", "rule"], name="passkey_role_rule_once")]

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.get_rule_display()}"
