"""Helpers of the Agents tests: the respx-mocked service's secret, storing a
sandbox demo-workspace key for a user, and the idempotency keys of a page's
forms."""

from __future__ import annotations

import re

from dashboard.keys.testing import stored_api_key

SECRET = "svc_sk_agnt0123456789abcdefghijklmnopqrstuvwxyzABCD"


def store_demo_key(user, handle):
    """A fresh demo-workspace key of the sandbox `handle`, active for `user`."""
    return stored_api_key(
        user=user, secret=handle.mint_key("demo"), workspace_name="Acme Marketing", workspace_timezone="Europe/Berlin"
    )


def form_keys(html: str) -> list[str]:
    return re.findall(r'name="idempotency_key" value="([^"]+)"', html)
