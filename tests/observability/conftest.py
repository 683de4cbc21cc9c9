"""Fixtures of the observability tests: the console's log lines as its
handler writes them (JSON, parsed back), a sandbox of this folder's own and
its access log (the `sandbox.access` logger), and a client logged in with a
demo key of it. Helpers are in tests/observability/support.py."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from dashboard.logging import JsonFormatter, RedactApiKeys, RequestContext
from tests.agents.support import store_demo_key
from tests.helpers import running_sandbox
from tests.observability.support import AccessLog, KeepRecords, LogLines


@pytest.fixture
def json_logs() -> Iterator[LogLines]:
    """The root logger also writes to a buffer, as LOG_FORMAT=json would; the console's loggers at DEBUG."""
    from dashboard.celery import app

    # Celery's first import of the tasks modules (the outbox asks for it in a
    # process that has not loaded them yet) sets Django up again, and Django's
    # logging setup replaces the root's handlers: done before ours is added.
    app.loader.import_default_modules()
    captured = LogLines()
    handler = logging.StreamHandler(captured.stream)
    handler.addFilter(RequestContext())
    handler.addFilter(RedactApiKeys())
    handler.setFormatter(JsonFormatter())
    root, console = logging.getLogger(), logging.getLogger("dashboard")
    levels = root.level, console.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    console.setLevel(logging.DEBUG)
    try:
        yield captured
    finally:
        root.removeHandler(handler)
        root.setLevel(levels[0])
        console.setLevel(levels[1])


@pytest.fixture(scope="module")
def own_sandbox():
    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def sandbox_access() -> Iterator[AccessLog]:
    log = AccessLog()
    handler = KeepRecords(log)
    logger = logging.getLogger("sandbox.access")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield log
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


@pytest.fixture
def sandbox_client(own_sandbox, settings, user, client):
    """The test client logged in as `user`, whose active key is a demo key of the sandbox."""
    settings.SERVICE_BASE_URL = own_sandbox.base_url
    settings.SERVICE_MAX_RETRIES = 0
    store_demo_key(user, own_sandbox)
    client.force_login(user)
    return client
