import pytest


@pytest.fixture(autouse=True)
def fake_service(fake_service_settings, never_sleep):
    """Every test here talks to the fake service address (mocked by `remote`)."""
    return fake_service_settings
