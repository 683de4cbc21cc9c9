"""Where settings come from besides the process environment.

* First-run secrets: outside production a fresh machine gets a `.env` with
  generated secrets (`ensure_env_file`). Production reads every secret from
  the environment and refuses to start without them.
* `*_FILE` secrets (`SecretFileEnv`): any setting NAME may instead be given as
  NAME_FILE, the path of a file holding the value (Docker and Kubernetes
  secrets mounted as files, so a secret is never in `docker inspect`, a pod
  spec or `/proc/<pid>/environ`). The file wins over NAME when both are set.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import environ
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured
from environ.fileaware_mapping import FileAwareMapping


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


class _SecretFiles(FileAwareMapping):
    """django-environ's NAME_FILE lookup, with the file's final line break
    dropped (`echo secret > file` and `kubectl create secret --from-file`
    both end with one, which would become part of a password) and a missing
    or unreadable file named in words (the path only, never a value)."""

    def __getitem__(self, key: str) -> str:
        path = self.env.get(f"{key}_FILE")
        if not path:
            return self.env[key]
        if key not in self.files_cache:
            try:
                value = Path(path).read_text(encoding="utf-8")
            except OSError as exc:
                raise ImproperlyConfigured(
                    f"{key}_FILE names {path}, which cannot be read ({exc.strerror or type(exc).__name__})"
                ) from None
            self.files_cache[key] = value.rstrip("\r\n")
        return self.files_cache[key]


class SecretFileEnv(environ.Env):
    """`environ.Env` whose every NAME may come from the file NAME_FILE names."""

    ENVIRON = _SecretFiles()
