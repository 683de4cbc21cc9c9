"""Shared by the tests of accounts."""

from __future__ import annotations

import pytest

from tests.accounts.oidc_provider import running_provider
from tests.accounts.support import PERSON, sso_settings


@pytest.fixture
def provider(settings, db):
    with running_provider(dict(PERSON)) as stub:
        sso_settings(settings, stub)
        yield stub
