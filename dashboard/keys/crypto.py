"""Encryption at rest for stored API keys.

MultiFernet over settings.KEY_ENCRYPTION_KEYS (newest first): encrypts with
the newest key, decrypts with any of them, so a new key can be put in front
and old rows re-encrypted later (`manage.py rotate_key_encryption`).
The keys are their own secrets, never derived from SECRET_KEY.
Settings are read at call time so a changed key list takes effect at once.
"""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from dashboard.keys.errors import KeyDecryptionError


def _multi_fernet() -> MultiFernet:
    keys = [key.strip() for key in settings.KEY_ENCRYPTION_KEYS if key and key.strip()]
    if not keys:
        raise ImproperlyConfigured("KEY_ENCRYPTION_KEYS is empty: set at least one Fernet key.")
    try:
        return MultiFernet([Fernet(key) for key in keys])
    except ValueError as exc:  # a malformed Fernet key
        raise ImproperlyConfigured("KEY_ENCRYPTION_KEYS holds a value that is not a Fernet key.") from exc


def encrypt_secret(secret: str) -> str:
    return _multi_fernet().encrypt(secret.encode()).decode()


def decrypt_secret(token: str) -> str:
    try:
        return _multi_fernet().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise KeyDecryptionError() from exc


def reencrypt_secret(token: str) -> str:
    """The same secret, encrypted under the newest key."""
    try:
        return _multi_fernet().rotate(token.encode()).decode()
    except InvalidToken as exc:
        raise KeyDecryptionError() from exc
