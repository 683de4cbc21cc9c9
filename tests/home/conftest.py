"""Fixtures of the home page tests: a real sandbox of this folder's own
(module scope: its seeded approvals and runs are read into the inbox here,
untouched by other folders), and a person of any console role with work of
their own in it. Helpers are in tests/home/support.py."""

from __future__ import annotations

import pytest

from tests.helpers import running_sandbox
from tests.home.support import give_work, sandbox_person


@pytest.fixture(scope="module")
def home_sandbox():
    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def console(home_sandbox, settings):
    # One attempt per remote call, so the counts are exact.
    settings.SERVICE_BASE_URL = home_sandbox.base_url
    settings.SERVICE_MAX_RETRIES = 0
    return home_sandbox


@pytest.fixture
def person(console, django_user_model):
    """make(username, role, key kind, work=True) -> (user, key): a person of
    that console role with a fresh sandbox key of that kind (demo: the
    workspace's admin; readonly: a viewer key), the workspace's inbox read
    once, and (with `work`) work of their own: a turn still running, a failed
    agent run, a chat message, a record they renamed."""

    def make(username: str, role: str = "member", kind: str = "demo", *, work: bool = True):
        user, key = sandbox_person(django_user_model, console, username=username, role=role, kind=kind)
        if work:
            give_work(user, key, console)
        return user, key

    return make
