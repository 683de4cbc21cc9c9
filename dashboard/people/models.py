from __future__ import annotations

from django.conf import settings
from django.db import models

from dashboard.people.roles import DEFAULT_ROLE, Role


class Person(models.Model):
    """The console's word about one account: its role. One row per user,
    made on first need (`selectors.person_of`); a superuser is an
    Administrator whatever the row says."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="person")
    role = models.CharField(max_length=16, choices=Role.choices, default=DEFAULT_ROLE)
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
