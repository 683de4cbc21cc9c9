"""The legal-shapes tests talk to a fake service address mocked by `remote`
(tests/live/fixtures.py), which answers as another, independent but legal
implementation of the contract would."""

from __future__ import annotations

import pytest

from dashboard.audit.testing import make_approver
from dashboard.keys.testing import stored_api_key

SECRET = "svc_sk_shape0123456789abcdefghijklmnopqrstuvwxyzABC"


@pytest.fixture(autouse=True)
def fake_service(fake_service_settings, never_sleep):
    return fake_service_settings


@pytest.fixture
def console(user, logged_in_client):
    make_approver(user)  # the queue offers decisions (the Approver role)
    stored_api_key(user=user, secret=SECRET, workspace_name="Acme Marketing", workspace_timezone="Europe/Berlin")
    return logged_in_client
