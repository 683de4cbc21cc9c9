"""The broker down and back, for every folder that starts work (registered in
tests/conftest.py): the Celery app points at a closed loopback port, as a
broker that died would look, and "back" runs what the sweeper sends inline."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.api.client import shared_http_client


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Broker:
    app: object
    down_url: str

    def back(self) -> int:
        """The broker answers again: the sweeper's next run (past any backoff,
        within every expiry) sends what waits, and the tasks run inline.
        Returns how many."""
        from dashboard.outbox.services import MAX_BACKOFF_SECONDS, outbox_sweep

        self.app.conf.task_always_eager = True  # type: ignore[attr-defined]
        return outbox_sweep(now=timezone.now() + timedelta(seconds=MAX_BACKOFF_SECONDS + 1))


@pytest.fixture
def broker_down(settings, monkeypatch) -> Iterator[Broker]:
    """Celery's broker and the health check's are a closed port until `back()`."""
    from dashboard.celery import app

    url = f"redis://127.0.0.1:{closed_port()}/0"
    # Celery reads these from the environment before its own configuration.
    monkeypatch.setenv("CELERY_BROKER_URL", url)
    monkeypatch.delenv("CELERY_BROKER_WRITE_URL", raising=False)
    saved = {name: app.conf[name] for name in ("broker_url", "task_always_eager")}
    app.conf.update(broker_url=url, task_always_eager=False)
    settings.CELERY_BROKER_URL = url
    try:
        yield Broker(app=app, down_url=url)
    finally:
        app.conf.update(**saved)


@dataclass
class WritesSeen:
    """The console's requests to the service that write, with their Idempotency-Key."""

    calls: list[tuple[str, str, str]] = field(default_factory=list)

    def __call__(self, request) -> None:
        if request.method in {"POST", "PATCH", "PUT", "DELETE"}:
            self.calls.append((request.method, request.url.path, request.headers.get("Idempotency-Key", "")))

    def keys(self, path_part: str) -> list[str]:
        return [key for _method, path, key in self.calls if path_part in path]


@pytest.fixture
def writes_seen() -> Iterator[WritesSeen]:
    seen = WritesSeen()
    client = shared_http_client()
    client.event_hooks["request"].append(seen)
    try:
        yield seen
    finally:
        client.event_hooks["request"].remove(seen)
