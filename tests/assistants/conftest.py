from __future__ import annotations

import pytest

from tests.helpers import running_sandbox


@pytest.fixture(scope="module")
def assistants_sandbox():
    """A sandbox of the module's own: its tests delete and create records."""
    with running_sandbox() as handle:
        yield handle
