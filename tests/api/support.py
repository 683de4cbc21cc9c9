"""Constants of the transport tests: the fake service address (mocked by
`remote`, tests/conftest.py) and a recognisable key."""

from __future__ import annotations

SERVICE_URL = "https://service.test"
API_KEY = "svc_sk_TEST_secret_value_never_shown_0123456789"
