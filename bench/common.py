"""What every benchmark shares: a throwaway database and Django set up with
bench/settings.py, a sandbox in this process holding an object with one field
of each of the 15 types and its records, a logged-in console user, medians
and side-by-side (interleaved) timing.

Each benchmark is a script (`.venv/bin/python bench/<name>.py`); `make bench`
runs them all. Figures are ratios of things measured in the same run, taken
turn about, so a busy machine slows both sides alike.
"""

from __future__ import annotations

import gzip
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

RECORDS = 100
PASSWORD = "bench-password-not-secret"
# What a browser says it accepts: responses are timed and weighed compressed, as sent.
BROWSER = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


@contextmanager
def django_in(tmp: str) -> Iterator[None]:
    """Django over a throwaway SQLite database in `tmp` (migrations, and the
    bench-only peer table created from its model), a local-memory cache."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings"
    os.environ["DATABASE_URL"] = f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
    os.environ["CACHE_URL"] = "locmem://"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False, run_syncdb=True)
    yield


@contextmanager
def collected_static(tmp: str) -> Iterator[None]:
    """Static files collected as `make run` (bootstrap) and the image do:
    hashed names, gzip copies, the manifest, in a STATIC_ROOT under `tmp`."""
    from django.conf import settings
    from django.core.management import call_command
    from django.test.utils import override_settings

    storages = {**settings.STORAGES, "staticfiles": {"BACKEND": settings.HASHED_STATIC_STORAGE}}
    with override_settings(STATIC_ROOT=Path(tmp) / "staticfiles", STORAGES=storages):
        call_command("collectstatic", interactive=False, verbosity=0)
        yield


def html_of(response) -> str:
    """A test client response's page, decompressed when it came compressed (gzip or brotli)."""
    body = response.content
    encoding = response.get("Content-Encoding")
    if encoding == "br":
        import brotli

        return brotli.decompress(body).decode()
    return (gzip.decompress(body) if encoding == "gzip" else body).decode()


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


def interleaved(steps: dict[str, Callable[[], Any]], *, runs: int) -> dict[str, list[float]]:
    """Time each step `runs` times, turn about (a, b, c, a, b, c...), so that
    whatever else the machine does falls on every step alike."""
    samples: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(runs):
        for name, step in steps.items():
            started = time.perf_counter()
            step()
            samples[name].append(time.perf_counter() - started)
    return samples


def requests_per_second(
    kinds: dict[str, Callable[[], Any]], *, rounds: int, requests: int, before_round: Callable[[], None]
) -> dict[str, int]:
    """The median rate of each kind of request over `rounds` rounds of
    `requests` each, turn about; `before_round` brings what the requests
    carry up to date (the version a browser would show)."""
    rates: dict[str, list[float]] = {name: [] for name in kinds}
    for _ in range(rounds):
        before_round()
        for name, call in kinds.items():
            started = time.perf_counter()
            for _ in range(requests):
                call()
            rates[name].append(requests / (time.perf_counter() - started))
    return {name: round(statistics.median(values)) for name, values in rates.items()}


@dataclass
class Console:
    """A console user logged in (Django's test client, in this process) with
    the sandbox's demo key, and the sandbox object holding `records` records."""

    handle: Any  # sandbox.testing.SandboxHandle
    service: Any  # a ServiceClient acting as the demo key
    user: Any
    browser: Any  # django.test.Client, logged in
    object_key: str
    records: int

    @property
    def records_url(self) -> str:
        return f"/objects/{self.object_key}/records/"

    def records_page(self, *, limit: int | None = None):
        response = self.browser.get(self.records_url, {"limit": str(limit or self.records)}, **BROWSER)
        assert response.status_code == 200, response.status_code
        return response

    def raw_records_call(self):
        return self.service.page(
            f"/v1/objects/{self.object_key}/records", params={"limit": self.records, "sort": "-updated_at"}
        )


@contextmanager
def console_with_records(*, records: int = RECORDS, bulk: bool = False) -> Iterator[Console]:
    """Within `django_in`: a sandbox with an object of every field type and
    `records` records (sandbox/fixtures.py sample values), and a console user
    who is also a superuser (the admin peer logs in as the same person).
    `bulk`: the records written straight into the sandbox's store (volume in
    seconds) rather than through the records endpoint."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from dashboard.api import ServiceClient
    from dashboard.keys.testing import store_sandbox_key
    from sandbox.fixtures import create_every_type_object, sample_values
    from sandbox.testing import start_sandbox

    handle = start_sandbox(time_scale=0.002)
    try:
        settings.SERVICE_BASE_URL = handle.base_url
        service = ServiceClient(api_key=handle.demo_key)
        obj = create_every_type_object(service, name="Bench deals")
        if bulk:
            handle.insert_records(obj["id"], [sample_values(i) for i in range(records)])
        for i in range(0 if bulk else records):
            service.post(f"/v1/objects/{obj['key']}/records", json={"values": sample_values(i)})
        user = get_user_model().objects.create_superuser(username="bench", password=PASSWORD)
        store_sandbox_key(user, service, handle.demo_key)
        browser = Client()
        browser.force_login(user)
        yield Console(
            handle=handle, service=service, user=user, browser=browser, object_key=obj["key"], records=records
        )
    finally:
        handle.stop()


def throwaway() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="console-bench-")


@dataclass(frozen=True)
class WatchedTurn:
    """A logged-in person watching one building Studio turn: what a status
    poll needs (its path, the session cookie, the row)."""

    user: Any
    operation: Any
    cookie: str
    status_path: str

    def shown_version(self) -> str:
        """As the browser would: keep the row fresh (never "paused" while
        measuring) and poll with the version its last render showed."""
        from django.utils import timezone

        from dashboard.live import selectors
        from dashboard.live.models import TrackedOperation

        TrackedOperation.objects.filter(pk=self.operation.pk).update(last_polled_at=timezone.now())
        return selectors.operation_status_version(user=self.user, operation_id=self.operation.pk)


def watched_turn() -> WatchedTurn:
    """Needs Django set up (`django_in`). The key is made here, never sent
    anywhere (a status poll makes no remote call): no key-shaped text is committed."""
    import secrets

    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from dashboard.keys.testing import stored_api_key
    from dashboard.live.services import operation_track

    user = get_user_model().objects.create_user(username="bench", password=PASSWORD)
    key = stored_api_key(user=user, secret="svc_sk_" + secrets.token_hex(20), workspace_id="ws-b")
    operation = operation_track(
        owner_key=key,
        kind="studio.turn",
        remote_id="turn-bench",
        title="Build a landing page for our spring sale",
        snapshot={"id": "turn-bench", "status": "building", "studio": "website", "message": ""},
        context={"studio": "website"},
    )
    browser = Client()
    browser.force_login(user)
    return WatchedTurn(
        user=user,
        operation=operation,
        cookie=f"sessionid={browser.cookies['sessionid'].value}",
        status_path=reverse("live:status", args=[operation.pk]),
    )
