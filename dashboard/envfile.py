"""First-run secrets: a fresh machine gets a `.env` with generated secrets.

Only used outside production mode. Production reads every secret from the
environment and refuses to start without them.
"""

from __future__ import annotations

import base64
import secrets
from pathlib import Path

from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def ensure_env_file(path: Path) -> None:
    """Create `path` with fresh secrets if it does not exist yet.

    Existing files are never rewritten: the encryption keys in them protect
    stored API keys, and losing them would make those keys unreadable.
    """
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "# Generated on first run. Keep it private; it is in .gitignore.\n"
        f"SECRET_KEY={secrets.token_urlsafe(50)}\n"
        f"KEY_ENCRYPTION_KEYS={Fernet.generate_key().decode()}\n" + vapid_lines()
    )
    path.chmod(0o600)


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def vapid_keypair() -> tuple[str, str]:
    """A Web Push (VAPID) key pair: the private key as base64url of its raw
    32 bytes (what pywebpush reads), the public key as base64url of the
    uncompressed P-256 point (the browser's `applicationServerKey`)."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return _b64url(private), _b64url(public)


def vapid_lines() -> str:
    private, public = vapid_keypair()
    return f"VAPID_PRIVATE_KEY={private}\nVAPID_PUBLIC_KEY={public}\n"


def ensure_vapid_keys(path: Path) -> None:
    """A `.env` made before Web Push gets its VAPID pair appended (nothing in
    it is rewritten: the other secrets stay as they are)."""
    if not path.exists() or "VAPID_PRIVATE_KEY=" in path.read_text():
        return
    with path.open("a") as handle:
        handle.write("# Web Push (VAPID), added when the console learned push.\n" + vapid_lines())
