from __future__ import annotations

import pytest

from tests.helpers import running_sandbox


@pytest.fixture(scope="module")
def tokens_sandbox():
    """A sandbox of the module's own: its tests decide the seeded approvals."""
    with running_sandbox() as handle:
        yield handle
