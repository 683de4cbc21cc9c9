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
