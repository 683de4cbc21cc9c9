"""The token policy Administrators set (issue #33 item 1: "an expiry, a
maximum set by Administrators"): the longest life a personal access token
may be given, never more than the operator's ceiling TOKEN_MAX_DAYS.

Lowering it shortens the tokens in force that would outlive it (each then
expires at its making plus the new maximum, or now if that has passed), in
one UPDATE, audited with how many were shortened: a maximum that let old
tokens live on would not be one."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import DateTimeField, ExpressionWrapper, F, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from dashboard.audit.services import audit_account_event
from dashboard.tokens.models import AccessToken, TokenPolicy


def token_days_ceiling() -> int:
    """The operator's ceiling (TOKEN_MAX_DAYS)."""
    return max(1, int(settings.TOKEN_MAX_DAYS))


def token_days_most() -> int:
    """The longest life a token may be given now: the Administrators' choice
    within the operator's ceiling."""
    chosen = TokenPolicy.objects.values_list("max_days", flat=True).first()
    ceiling = token_days_ceiling()
    return min(chosen, ceiling) if chosen else ceiling


def token_policy_set(*, max_days: int | None, by) -> int:
    """Set the longest life (None: the operator's ceiling); returns how many
    tokens in force were shortened to fit."""
    ceiling = token_days_ceiling()
    days = min(max(1, int(max_days)), ceiling) if max_days else None
    now = timezone.now()
    with transaction.atomic():
        policy = TokenPolicy.objects.select_for_update().first() or TokenPolicy()
        policy.max_days, policy.changed_by = days, by
        policy.save()
        longest = timedelta(days=days or ceiling)
        allowed_until = ExpressionWrapper(F("created_at") + longest, output_field=DateTimeField())
        outliving = AccessToken.objects.filter(revoked_at__isnull=True, expires_at__gt=now).filter(
            expires_at__gt=allowed_until
        )
        shortened = outliving.update(expires_at=Greatest(allowed_until, Value(now, output_field=DateTimeField())))
        audit_account_event(
            actor=by,
            subject=None,
            action="token_policy_set",
            # An audit summary is stored, append-only, for operators: English, both forms written out.
            summary=(
                f"Set the longest life of an access token to {days or ceiling} days"
                + (
                    f"; {shortened} " + ("token" if shortened == 1 else "tokens") + " shortened to fit"
                    if shortened
                    else ""
                )
            ),
            details={"max_days": days or ceiling, "shortened": shortened},
        )
    return shortened
