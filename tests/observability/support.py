"""Helpers of the observability tests (fixtures are in conftest.py)."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

from tests.helpers import PROJECT_DIR

# What a production process needs to start (the values exist only for these tests).
PRODUCTION = {
    "CONSOLE_ENV": "production",
    "SECRET_KEY": "only-for-this-test-" + "x" * 40,
    "KEY_ENCRYPTION_KEYS": "5l3Ir2xqvrKUW1J6k0Gm5s0J8u6Fd8d0L0T8zv0kZ7Q=",
    "ALLOWED_HOSTS": "console.example.com",
}
# Settings of the observability that the test process may have in its environment.
OWN_VARIABLES = ("LOG_FORMAT", "CONSOLE_ENV", "SENTRY_", "OTEL_")


@dataclass
class LogLines:
    """What the console's handler (filters and JSON formatter of settings.LOGGING) wrote."""

    stream: io.StringIO = field(default_factory=io.StringIO)

    def lines(self) -> list[str]:
        return [line for line in self.stream.getvalue().splitlines() if line]

    def records(self) -> list[dict[str, Any]]:
        """Every line parsed: each one must be a JSON object of its own."""
        return [json.loads(line) for line in self.lines()]

    def of(self, logger: str) -> list[dict[str, Any]]:
        return [record for record in self.records() if record["logger"] == logger]


@dataclass
class AccessLog:
    """The sandbox's access log: one record per request it answered."""

    records: list[logging.LogRecord] = field(default_factory=list)

    def request_ids(self) -> list[str]:
        return [record.request_id for record in self.records]  # type: ignore[attr-defined]


class KeepRecords(logging.Handler):
    def __init__(self, log: AccessLog) -> None:
        super().__init__(logging.INFO)
        self.log = log

    def emit(self, record: logging.LogRecord) -> None:
        self.log.records.append(record)


def agent_named(handle, name: str) -> str:
    """The id of the sandbox's agent called `name`."""
    from dashboard.api import ServiceClient

    agents = ServiceClient(api_key=handle.demo_key, base_url=handle.base_url).get("/v1/agents", params={"limit": 100})
    return next(agent["id"] for agent in agents["data"] if agent["name"] == name)


def printed_by_a_fresh_process(expression: str, **env: str) -> str:
    """What `expression` is in a new process that has set Django up with
    `env` (what settings and `DashboardConfig.ready()` did at start)."""
    base = {key: value for key, value in os.environ.items() if not key.startswith(OWN_VARIABLES)}
    code = f"import django; django.setup(); from django.conf import settings; print({expression})"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=PROJECT_DIR,
        env={**base, "DJANGO_SETTINGS_MODULE": "dashboard.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]
