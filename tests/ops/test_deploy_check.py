"""Production settings mode (`CONSOLE_ENV=production`) passes `check --deploy`."""

from __future__ import annotations

from tests.ops.support import manage, production_env


def test_production_settings_pass_the_deploy_check_without_warnings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env())

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
