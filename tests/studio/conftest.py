"""The Studio tests talk to a fake service address, mocked by `remote`, or to
the real sandbox (fixtures in tests/live/fixtures.py, registered in
tests/conftest.py)."""

from __future__ import annotations

import pytest

from tests.helpers import allow_images_from

# Where the fake service keeps its image files: a deployment lists such a host
# in CSP_IMG_HOSTS, so the pages show its pictures (an unlisted host is named
# instead: tests/studio/test_images_elsewhere.py).
ASSET_HOST = "https://cdn.example"


@pytest.fixture(autouse=True)
def fake_service(fake_service_settings, never_sleep):
    """Every test here: the fake service address (a sandbox test points the
    console elsewhere itself), retries without sleeping, its asset host
    among the image sources."""
    allow_images_from(fake_service_settings, ASSET_HOST)
    return fake_service_settings
