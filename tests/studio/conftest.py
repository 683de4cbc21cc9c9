"""The Studio tests talk to a fake service address, mocked by `remote`, or to
the real sandbox (fixtures in tests/live/fixtures.py, registered in
tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def fake_service(fake_service_settings, never_sleep):
    """Every test here: the fake service address (a sandbox test points the
    console elsewhere itself), retries without sleeping."""
    return fake_service_settings
