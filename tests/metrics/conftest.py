"""Metrics on for a test: the token, the middleware (settings install it only
when metrics are on at start), the registry writing and its hooks connected."""

from __future__ import annotations

import pytest

from tests.metrics.support import TOKEN

MIDDLEWARE = "dashboard.metrics.middleware.MetricsMiddleware"


@pytest.fixture
def metrics_on(settings):
    from dashboard.api.hooks import remove_attempt_hook
    from dashboard.metrics import registry, signals

    settings.METRICS_ENABLED = True
    settings.METRICS_TOKEN = TOKEN
    settings.METRICS_ALLOW_FROM = []
    if MIDDLEWARE not in settings.MIDDLEWARE:
        middleware = list(settings.MIDDLEWARE)
        middleware.insert(middleware.index("whitenoise.middleware.WhiteNoiseMiddleware") + 1, MIDDLEWARE)
        settings.MIDDLEWARE = middleware
    registry.enable()
    signals.connect()
    yield settings
    registry.disable()
    remove_attempt_hook(signals.on_attempt)
