"""Reads of personal access tokens: one's own, and everyone's for Administrators."""

from __future__ import annotations

from django.db.models import QuerySet

from dashboard.tokens.models import AccessToken


def tokens_of(*, user) -> QuerySet[AccessToken]:
    return AccessToken.objects.filter(user=user).order_by("-created_at", "-id")


def tokens_in_force() -> QuerySet[AccessToken]:
    """Every token not revoked (expired ones too: an Administrator sees what lingers)."""
    return AccessToken.objects.filter(revoked_at__isnull=True).select_related("user").order_by("user__username", "-id")
