"""Fixtures of outbound events: a workspace's Administrator holding a working
key of it, an endpoint made through the page (its secret as the page showed
it once), and a real local HTTP receiver that answers as each test says: a
status, or no answer in time (it holds the call until the test ends, far past
EVENTS_TIMEOUT, without sleeping)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography.fernet import Fernet
from django.urls import reverse

from dashboard.audit.testing import make_administrator
from dashboard.events.models import Endpoint
from dashboard.keys.testing import stored_api_key
from tests.html import one

WORKSPACE = "ws-events"
PASSPHRASE = "a long enough passphrase"
NO_ANSWER = "no answer"


@pytest.fixture(autouse=True)
def events_settings(settings):
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    settings.EVENTS_ALLOW_HTTP = True
    settings.EVENTS_ALLOW_PRIVATE_ADDRESSES = True  # the receiver is on 127.0.0.1
    settings.EVENTS_TIMEOUT = 0.5
    settings.EVENTS_RETRY_SECONDS = [10, 60, 300]
    settings.CONSOLE_BASE_URL = "https://console.example.com"


def key_secret(username: str) -> str:
    return f"svc_sk_{username}0123456789abcdefghijklmnopqrstuv"


def person(django_user_model, username: str, *, admin: bool = True, workspace_id: str = WORKSPACE):
    user = django_user_model.objects.create_user(username=username, password=PASSPHRASE)
    if admin:
        make_administrator(user)
    stored_api_key(user=user, secret=key_secret(username), workspace_id=workspace_id, workspace_name="Events Co")
    return user


@pytest.fixture
def ada(db, django_user_model):
    return person(django_user_model, "ada")


@dataclass
class Call:
    headers: dict[str, str]
    body: bytes


class Receiver:
    """A real HTTP endpoint on 127.0.0.1: keeps each call (headers, exact body bytes);
    answers the next of `answers` (a status or NO_ANSWER), then `status`."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.answers: list[int | str] = []
        self.status = 200
        self.release = threading.Event()
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                received.calls.append(Call({k.lower(): v for k, v in self.headers.items()}, raw))
                answer = received.answers.pop(0) if received.answers else received.status
                if answer == NO_ANSWER:
                    received.release.wait(30)  # the console gave up long before
                    answer = 200
                try:
                    self.send_response(int(answer))
                    self.end_headers()
                except OSError:
                    pass  # the console hung up (its timeout)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/console"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    handle = Receiver()
    try:
        yield handle
    finally:
        handle.stop()


def endpoint_add(client, *, url: str, types: list[str], label: str = "Ops tool", enabled: bool = True):
    """An endpoint added through the page: (the row, the secret the answer showed once)."""
    data = {"label": label, "url": url, "event_types": types}
    if enabled:
        data["enabled"] = "on"
    page = client.post(reverse("events:endpoints"), data)
    assert page.status_code == 200, page.content
    secret = one(page.content, "#made-secret")["value"]
    return Endpoint.objects.get(label=label), secret


@pytest.fixture
def signed_in(client, ada):
    client.force_login(ada)
    return client
