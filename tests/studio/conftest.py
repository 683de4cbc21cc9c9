"""The Studio tests talk to a fake service address, mocked by `remote`, or to
the real sandbox (fixtures in tests/live/fixtures.py, registered in
tests/conftest.py)."""

from __future__ import annotations

import httpx
import pytest

from sandbox.content_apps import list_apps
from tests.helpers import PASSWORD, allow_images_from
from tests.live.support import store_key
from tests.studio.support import BOARD_ID, IMAGE_IDS, PROJECT_ID

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


@pytest.fixture
def catalogue(remote):
    remote.get("/v1/studio/apps").mock(return_value=httpx.Response(200, json={"apps": list_apps()}))
    remote.get("/v1/images/boards").mock(
        return_value=httpx.Response(200, json={"data": [{"id": BOARD_ID, "name": "Spring campaign", "image_count": 6}]})
    )
    remote.get("/v1/images").mock(
        return_value=httpx.Response(
            200,
            json={
                "data": [
                    {"id": i, "url": f"https://cdn.example/{n}.png", "width": 10, "height": 10, "prompt": f"Bike {n}"}
                    for n, i in enumerate(IMAGE_IDS)
                ],
                "next_cursor": None,
            },
        )
    )
    remote.get("/v1/videos").mock(
        return_value=httpx.Response(200, json={"data": [{"id": PROJECT_ID, "name": "Launch teaser", "shots": []}]})
    )
    return remote


@pytest.fixture
def console(live_server, sandbox, settings, transactional_db, django_user_model):
    settings.SERVICE_BASE_URL = sandbox.base_url
    user = django_user_model.objects.create_user(username="dora", password=PASSWORD)
    store_key(user, sandbox.demo_key)
    return live_server
