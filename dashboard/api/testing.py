"""Test and benchmark support for the transport: count remote calls instead
of timing them."""

from __future__ import annotations

from typing import Any

import httpx

from dashboard.api.client import shared_http_client


class RemoteCallCounter:
    """Counts requests leaving the console's one shared httpx client (an
    event hook), so tests and the bench count calls instead of timing them."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    def __call__(self, request: httpx.Request) -> None:
        self.paths.append(request.url.path)

    def __enter__(self) -> RemoteCallCounter:
        self.client = shared_http_client()
        self.client.event_hooks["request"].append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.client.event_hooks["request"].remove(self)

    @property
    def count(self) -> int:
        return len(self.paths)

    def reset(self) -> None:
        self.paths.clear()
