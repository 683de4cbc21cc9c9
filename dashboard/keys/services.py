"""Writes of stored API keys. Every remote check goes through ServiceClient."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from dashboard.accounts.throttle import throttle_hit
from dashboard.api.hooks import KeyRefusal
from dashboard.keys.crypto import encrypt_secret
from dashboard.keys.errors import KeyCheckThrottledError
from dashboard.keys.models import ApiKey
from dashboard.keys.selectors import AccountIdentity, account_identity_fetch, api_key_get
from dashboard.keys.signals import api_key_removed, api_key_stored


def _lock_keys_of(user: AbstractBaseUser) -> None:
    """Serialise key writes of one user (inside a transaction): two tabs
    adding a first key, or switching at once, must not both make one active."""
    if user.pk is not None:
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()


def _safe_prefix(reported: str, secret: str) -> str:
    """The prefix /v1/me reports, unless showing it beside the last 4 would
    reveal most of the secret (then only `svc_sk_` and 2 characters)."""
    if reported and secret.startswith(reported) and len(reported) + 4 <= len(secret) // 2:
        return reported
    return secret[: len("svc_sk_") + 2]


def api_key_identity_apply(key: ApiKey, identity: AccountIdentity, secret: str) -> None:
    """What /v1/me answered, on the row (not saved): the workspace, the member,
    the key's own names, when; and the refusal cleared."""
    key.workspace_id = identity.workspace_id
    key.workspace_name = identity.workspace_name
    key.workspace_timezone = identity.workspace_timezone
    key.member_id = identity.member_id
    key.member_role = identity.member_role
    key.key_id = identity.key_id
    key.key_name = identity.key_name
    key.key_created_at = identity.key_created_at
    key.prefix = _safe_prefix(identity.key_prefix, secret)
    key.last4 = secret[-4:]
    key.last_verified_at = key.checked_at = timezone.now()
    # /v1/me just accepted this secret: whatever refused it before no longer does.
    key.refused_at = None
    key.refused_request_id = ""


def key_check_throttle(*, user: AbstractBaseUser, address: str | None) -> None:
    """Count one key check (a `GET /v1/me` with a key someone typed or stored)
    for the user and for the address it came from; raise KeyCheckThrottledError
    past KEY_CHECKS_PER_USER or KEY_CHECKS_PER_ADDRESS in the window. Without
    it, the key form is an oracle for trying guessed keys against the service."""
    window = settings.KEY_CHECK_WINDOW_MINUTES * 60
    waits = [
        throttle_hit(
            scope="key-check-user", ident=str(user.pk), limit=settings.KEY_CHECKS_PER_USER, window_seconds=window
        )
    ]
    if address:
        waits.append(
            throttle_hit(
                scope="key-check-address", ident=address, limit=settings.KEY_CHECKS_PER_ADDRESS, window_seconds=window
            )
        )
    over = [wait for wait in waits if wait is not None]
    if over:
        raise KeyCheckThrottledError(retry_after=max(over))


def api_key_add(*, user: AbstractBaseUser, label: str, secret: str, address: str | None = None) -> ApiKey:
    """Check `secret` with `GET /v1/me`, then store it encrypted.

    Nothing is stored when the check fails: the transport's ApiError
    (AuthenticationError for a refused key) propagates to the caller, and
    KeyCheckThrottledError when the user or `address` checked too many keys
    lately (no remote call is made then).
    Adding a key the user already stored (same remote key id) updates that
    row, which is how an unreadable key is repaired. The first key becomes
    the active one. An empty `label` is the workspace's name /v1/me answered.
    """
    from dashboard.api import ServiceClient

    key_check_throttle(user=user, address=address)
    identity = account_identity_fetch(client=ServiceClient(api_key=secret))

    with transaction.atomic():
        _lock_keys_of(user)
        key = ApiKey.objects.filter(user_id=user.pk, key_id=identity.key_id).first() if identity.key_id else None
        if key is None:
            key = ApiKey(user_id=user.pk)
        key.label = (label or key.label or identity.workspace_name or identity.key_name or "API key")[:100]
        key.encrypted_secret = encrypt_secret(secret)
        api_key_identity_apply(key, identity, secret)
        if not ApiKey.objects.filter(user_id=user.pk, is_active=True).exclude(pk=key.pk).exists():
            key.is_active = True
        key.save()
        api_key_stored.send(sender=ApiKey, key=key, user=user)
    return key


def api_key_check(*, user: AbstractBaseUser, pk: int | str, address: str | None = None) -> ApiKey:
    """Run `GET /v1/me` again for one of the user's keys and store the answer.

    Raises KeyDecryptionError for an unreadable key, KeyCheckThrottledError
    past the key-check allowance, and ApiError subclasses for a refused key or
    a failed call; the row is then left as it was.
    """
    key = api_key_get(user=user, pk=pk)
    secret = key.secret()
    from dashboard.api import ServiceClient

    key_check_throttle(user=user, address=address)
    # As the stored key: a 401 here marks it refused like any other call's.
    identity = account_identity_fetch(client=ServiceClient(api_key=secret, stored_key_id=key.pk))
    api_key_identity_apply(key, identity, secret)
    key.save()
    return key


def api_key_refused(refusal: KeyRefusal) -> None:
    """The transport's refused-key hook: the service answered 401 to a call
    made with this stored key. One UPDATE, at once (a web request or a worker,
    any area); the first refusal's request id is kept. A savepoint, so a
    failure here never breaks the caller's transaction."""
    with transaction.atomic():
        ApiKey.objects.filter(pk=refusal.stored_key_id, refused_at__isnull=True).update(
            refused_at=timezone.now(), refused_request_id=(refusal.request_id or "")[:200]
        )


def api_key_activate(*, user: AbstractBaseUser, pk: int | str) -> ApiKey:
    """Make one of the user's keys the active one (404 for anyone else's)."""
    with transaction.atomic():
        _lock_keys_of(user)
        key = api_key_get(user=user, pk=pk)
        # Clear first: at most one active key per user (a database constraint).
        ApiKey.objects.filter(user_id=user.pk, is_active=True).exclude(pk=key.pk).update(is_active=False)
        if not key.is_active:
            key.is_active = True
            key.save(update_fields=["is_active"])
    return key


def api_key_delete(*, user: AbstractBaseUser, pk: int | str) -> ApiKey:
    """Delete one of the user's keys. If it was active, the next one (by
    workspace name) becomes active so the console keeps working."""
    with transaction.atomic():
        _lock_keys_of(user)
        key = api_key_get(user=user, pk=pk)
        was_active = key.is_active
        api_key_removed.send(sender=ApiKey, key=key, user=user)
        key.delete()
        if was_active:
            successor = ApiKey.objects.filter(user_id=user.pk).order_by("workspace_name", "label", "pk").first()
            if successor is not None:
                successor.is_active = True
                successor.save(update_fields=["is_active"])
    return key


def api_key_reencrypt_all() -> tuple[int, list[ApiKey]]:
    """Re-encrypt every stored key under the newest encryption key.

    Returns (how many were re-encrypted, the keys that could not be read).
    """
    from dashboard.keys.crypto import reencrypt_secret
    from dashboard.keys.errors import KeyDecryptionError

    done = 0
    unreadable: list[ApiKey] = []
    for key in ApiKey.objects.order_by("pk").iterator():
        try:
            key.encrypted_secret = reencrypt_secret(key.encrypted_secret)
        except KeyDecryptionError:
            unreadable.append(key)
            continue
        key.save(update_fields=["encrypted_secret"])
        done += 1
    return done, unreadable
