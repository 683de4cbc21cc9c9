from tests.live.fixtures import *  # noqa: F401,F403 - shared with tests/studio
