from tests.live.fixtures import *  # noqa: F403 - shared with tests/studio
