from __future__ import annotations

import pytest

from tests.helpers import running_sandbox


@pytest.fixture(scope="module")
def api_sandbox():
    """A sandbox of the module's own: its tests write records and decide nothing of another module's."""
    with running_sandbox() as handle:
        yield handle
