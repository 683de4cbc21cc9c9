"""Making, using and revoking personal access tokens."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from dashboard.audit.services import audit_account_event
from dashboard.keys.models import ApiKey
from dashboard.tokens.models import AccessToken
from dashboard.tokens.policy import token_days_most
from dashboard.tokens.scopes import SCOPES, scopes_allowed

PREFIX = "wsc_"
# How often a token's "last used" is written: a script calling every second
# must not write a row every second.
LAST_USED_EVERY = timedelta(seconds=60)


class TokenRefused(Exception):
    """Why a token is refused, in words (the API's 401 body says it)."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def secret_matches(stored_hash: str, presented: str) -> bool:
    """Whether a presented bearer token is the one whose SHA-256 a row keeps
    (compared in constant time); also for the directory's tokens (dashboard/directory)."""
    return hmac.compare_digest(stored_hash, _hash(presented))


def secret_hash(token: str) -> str:
    return _hash(token)


def last_use_note(rows: QuerySet[Any], row: Any, *, now: datetime, address: str) -> None:
    """Write when and from where a token row was last used, at most once a
    minute per address (a script calling every second writes no row every second)."""
    if row.last_used_at is None or row.last_used_at < now - LAST_USED_EVERY or row.last_used_from != address:
        rows.filter(pk=row.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_EVERY) | ~Q(last_used_from=address)
        ).update(last_used_at=now, last_used_from=address[:64])


def networks_read(text: str) -> list[str]:
    """Allowed addresses as typed (one per line or comma): each an address or
    a network. Raises ValueError naming the one that is neither."""
    found = []
    for part in text.replace(",", "\n").split():
        try:
            found.append(str(ipaddress.ip_network(part.strip(), strict=False)))
        except ValueError as exc:
            raise ValueError(
                f"“{part}” is not an address or a network (for example 203.0.113.7 or 10.0.0.0/8)."
            ) from exc
    return found


@dataclass(frozen=True)
class MadeToken:
    row: AccessToken
    token: str  # shown once


def token_create(
    *,
    user,
    workspace_id: str,
    name: str,
    scopes: list[str],
    days: int,
    allowed_from: list[str],
    ask_first: bool = False,
) -> MadeToken:
    """A new token for one workspace the person holds a working key of, with
    no scope their role does not allow and no longer than the token policy allows
    (dashboard/tokens/policy.py: the Administrators' maximum within TOKEN_MAX_DAYS)."""
    key = ApiKey.objects.filter(user=user, workspace_id=workspace_id).first()
    if key is None or not key.is_working:
        raise TokenRefused("A token acts through one of your working keys: add or fix the key of that workspace first.")
    allowed = set(scopes_allowed(user, workspace_id))
    unknown = [scope for scope in scopes if scope not in SCOPES or scope not in allowed]
    if unknown or not scopes:
        raise TokenRefused("Choose at least one scope your role allows.")
    days = max(1, min(int(days), token_days_most()))
    token_id = secrets.token_hex(6)
    token = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
    row = AccessToken.objects.create(
        user=user,
        workspace_id=workspace_id,
        name=name.strip()[:100] or "Token",
        token_id=token_id,
        secret_hash=_hash(token),
        scopes=sorted(set(scopes)),
        allowed_from=allowed_from,
        ask_first=ask_first,
        expires_at=timezone.now() + timedelta(days=days),
    )
    audit_account_event(
        actor=user,
        subject=user,
        action="token_made",
        summary=f"Made the access token “{row.name}” ({row.shown_prefix}…)",
    )
    return MadeToken(row=row, token=token)


def token_revoke(*, token: AccessToken, by) -> None:
    """Revoked by its person or by an Administrator: refused from the next use on."""
    if token.revoked_at is not None:
        return
    AccessToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now(), revoked_by=by)
    audit_account_event(
        actor=by,
        subject=token.user,
        action="token_revoked",
        summary=f"Revoked the access token “{token.name}” ({token.shown_prefix}…)",
    )


def _address_allowed(token: AccessToken, address: str) -> bool:
    if not token.allowed_from:
        return True
    try:
        where = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(where in ipaddress.ip_network(network, strict=False) for network in token.allowed_from)


def token_authenticate(*, presented: str, address: str, now: datetime | None = None) -> AccessToken:
    """The token a request presents, if it may act now; else TokenRefused in
    words. Records when and from where it was last used (at most once a minute)."""
    now = now or timezone.now()
    body = presented.removeprefix(PREFIX)
    token_id = body.split("_", 1)[0] if presented.startswith(PREFIX) and "_" in body else ""
    token = AccessToken.objects.filter(token_id=token_id).select_related("user").first() if token_id else None
    if token is None or not secret_matches(token.secret_hash, presented):
        raise TokenRefused("This is not a token of this console (mistyped, or deleted).")
    if token.revoked_at is not None:
        raise TokenRefused(f"The token “{token.name}” was revoked.")
    if token.expires_at <= now:
        raise TokenRefused(f"The token “{token.name}” expired on {token.expires_at:%Y-%m-%d}.")
    if not token.user.is_active:
        raise TokenRefused("The token's person is deactivated: their tokens do nothing.")
    if not _address_allowed(token, address):
        raise TokenRefused(f"The token “{token.name}” is not allowed from {address or 'this address'}.")
    last_use_note(AccessToken.objects.all(), token, now=now, address=address)
    return token
