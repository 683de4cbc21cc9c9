"""Fixtures of the inbox tests: the fake service address (respx, `remote`)
for view and task tests, or a real sandbox of this folder's own (its seeded
approvals are decided here, untouched by other folders). Helpers are in
tests/inbox/support.py."""

from __future__ import annotations

import pytest

from tests.helpers import running_sandbox


@pytest.fixture(autouse=True)
def fake_service(fake_service_settings, never_sleep):
    return fake_service_settings


@pytest.fixture(scope="module")
def inbox_sandbox():
    with running_sandbox() as handle:
        yield handle
