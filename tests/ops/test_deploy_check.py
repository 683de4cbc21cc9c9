"""Production settings mode (`CONSOLE_ENV=production`) passes `check --deploy`."""

from __future__ import annotations

import os
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


def test_production_settings_pass_the_deploy_check_without_warnings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env())

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
