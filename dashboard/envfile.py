"""First-run secrets: a fresh machine gets a `.env` with generated secrets.

Only used outside production mode. Production reads every secret from the
environment and refuses to start without them.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from cryptography.fernet import Fernet


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
        f"KEY_ENCRYPTION_KEYS={Fernet.generate_key().decode()}\n"
    )
    path.chmod(0o600)
