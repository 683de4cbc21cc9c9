"""Shared by the tests of ops."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from cryptography.fernet import Fernet

from tests.helpers import PROJECT_DIR


def production_env(**overrides: str) -> dict[str, str]:
    # Only what a container would have: the test run's own variables (e.g.
    # DJANGO_ALLOW_ASYNC_UNSAFE for browser tests) must not leak into the check.
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env.update(
        CONSOLE_ENV="production",
        SECRET_KEY="deploy-check-" + Fernet.generate_key().decode() + Fernet.generate_key().decode(),
        KEY_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        ALLOWED_HOSTS="console.example.com",
    )
    env.update(overrides)
    return env


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
