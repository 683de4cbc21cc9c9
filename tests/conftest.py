"""Fixtures shared by every test folder.

Folder-specific fixtures live in each folder's own conftest.py.
"""

from __future__ import annotations

import os

import pytest

# Tests that need Redis, PostgreSQL or a browser fail instead of skipping
# when this is set (CI sets it in .ci/run).
REQUIRE_SERVICES = os.environ.get("CONSOLE_TEST_REQUIRE_SERVICES") == "1"

CHROMIUM_PATH = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def missing_service(reason: str) -> None:
    """Skip the calling test, or fail it when services are required (CI)."""
    if REQUIRE_SERVICES:
        pytest.fail(f"required service unavailable: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not os.path.exists(CHROMIUM_PATH):
        missing_service(f"no Chromium at {CHROMIUM_PATH}")
    return {**browser_type_launch_args, "executable_path": CHROMIUM_PATH, "args": CHROMIUM_FLAGS}


@pytest.fixture(scope="session")
def sandbox():
    """A real sandbox server over HTTP on a free port, in-memory storage,
    near-instant time scale. Yields a handle with `.base_url` and
    `.mint_key(kind)` (see sandbox/testing.py)."""
    from sandbox.testing import start_sandbox

    handle = start_sandbox(time_scale=0.002)
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture
def user(db, django_user_model):
    return django_user_model.objects.create_user(username="alice", password="correct horse battery staple")


@pytest.fixture
def other_user(db, django_user_model):
    return django_user_model.objects.create_user(username="bob", password="another long passphrase")


@pytest.fixture
def logged_in_client(client, user):
    client.force_login(user)
    return client
