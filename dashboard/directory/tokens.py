"""A directory's bearer tokens: made by an Administrator (shown once, the
SHA-256 kept, as personal access tokens are: dashboard/tokens), revoked,
and checked at every SCIM request with when and from where it was last used."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from dashboard.audit.services import audit_account_event
from dashboard.directory.models import DirectoryToken
from dashboard.tokens.services import last_use_note, secret_hash, secret_matches

PREFIX = "scim_"


@dataclass(frozen=True)
class MadeDirectoryToken:
    row: DirectoryToken
    token: str  # shown once


def directory_token_create(*, name: str, by) -> MadeDirectoryToken:
    token_id = secrets.token_hex(6)
    token = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
    row = DirectoryToken.objects.create(
        name=name.strip()[:100] or "Directory", token_id=token_id, secret_hash=secret_hash(token), created_by=by
    )
    audit_account_event(
        actor=by,
        subject=None,
        action="directory_token_made",
        summary=f"Made the directory token “{row.name}” ({row.shown_prefix}…) for SCIM provisioning",
        details={"token": row.shown_prefix},
    )
    return MadeDirectoryToken(row=row, token=token)


def directory_token_revoke(*, token: DirectoryToken, by) -> None:
    """Refused from the next request on; what the directory did stays."""
    if DirectoryToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by=by
    ):
        audit_account_event(
            actor=by,
            subject=None,
            action="directory_token_revoked",
            summary=f"Revoked the directory token “{token.name}” ({token.shown_prefix}…)",
            details={"token": token.shown_prefix},
        )


def directory_token_authenticate(*, presented: str, address: str, now: datetime | None = None) -> DirectoryToken | None:
    """The token a SCIM request presents, if in force (None: refused)."""
    now = now or timezone.now()
    body = presented.removeprefix(PREFIX)
    token_id = body.split("_", 1)[0] if presented.startswith(PREFIX) and "_" in body else ""
    token = DirectoryToken.objects.filter(token_id=token_id).first() if token_id else None
    if token is None or token.revoked_at is not None or not secret_matches(token.secret_hash, presented):
        return None
    last_use_note(DirectoryToken.objects.all(), token, now=now, address=address)
    return token
