"""Helpers shared by the test folders (fixtures themselves live in the
conftest.py files and in the fixture modules tests/conftest.py registers with
`pytest_plugins`): a sandbox of a fixture's own, the settings and respx mock
of a fake service address, skipping when a service is missing, and the
browser login form."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import respx

PROJECT_DIR = Path(__file__).resolve().parents[1]
# Where browser tests save their screenshots.
SCREENSHOTS = PROJECT_DIR / "var" / "screenshots"

# The password of the `user` fixture and of the users browser tests create.
PASSWORD = "correct horse battery staple"

# Tests that need Redis, PostgreSQL or a browser fail instead of skipping
# when this is set (CI sets it in .ci/run).
REQUIRE_SERVICES = os.environ.get("CONSOLE_TEST_REQUIRE_SERVICES") == "1"


def missing_service(reason: str) -> None:
    """Skip the calling test, or fail it when services are required (CI)."""
    if REQUIRE_SERVICES:
        pytest.fail(f"required service unavailable: {reason}")
    pytest.skip(reason)


@contextmanager
def running_sandbox(*, time_scale: float = 0.002) -> Iterator[Any]:
    """A real sandbox server over HTTP on a free port, in-memory storage,
    near-instant time scale unless told otherwise, stopped on exit. The
    handle has `.base_url`, `.demo_key`, `.mint_key(kind)` and
    `.advance(service_seconds=...)`, which moves the server's clock on instead
    of waiting (see sandbox/testing.py)."""
    from sandbox.testing import start_sandbox

    handle = start_sandbox(time_scale=time_scale)
    try:
        yield handle
    finally:
        handle.stop()


def use_fake_service(settings, base_url: str, *, max_retries: int = 0, **more: Any):
    """Point the console at `base_url` with a fresh key-encryption key.

    `max_retries=0` (the default) makes one attempt per remote call, so tests
    can count calls exactly; `more` sets further settings by name."""
    from cryptography.fernet import Fernet

    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    settings.SERVICE_BASE_URL = base_url
    settings.SERVICE_MAX_RETRIES = max_retries
    for name, value in more.items():
        setattr(settings, name, value)
    return settings


@contextmanager
def mocked_service(base_url: str) -> Iterator[respx.MockRouter]:
    """respx routes for `base_url`; routes a test adds need not all be called."""
    with respx.mock(base_url=base_url, assert_all_called=False) as mock:
        yield mock


def fill_login_form(page, username: str, password: str = PASSWORD) -> None:
    """Fill the login form on the page that shows it and submit it."""
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def csp_violations(page) -> list[str]:
    """Every Content Security Policy report the page logs from now on, with
    the page address and source location (a list that fills as it goes)."""
    seen: list[str] = []
    page.on(
        "console",
        lambda message: (
            seen.append(f"{page.url} {message.location} {message.text}")
            if "Content Security Policy" in message.text
            else None
        ),
    )
    return seen


def allow_images_from(settings, *sources: str) -> None:
    """Add sources to the img-src the pages are sent, as CSP_IMG_HOSTS does in
    a deployment (settings computes the policy once, at start): pages show an
    `<img>` only for hosts it lists (dashboard/frame/images.py reads it)."""
    policy = {**settings.CONTENT_SECURITY_POLICY}
    directives = {**policy["DIRECTIVES"]}
    directives["img-src"] = [*directives["img-src"], *sources]
    settings.CONTENT_SECURITY_POLICY = {**policy, "DIRECTIVES": directives}


def use_compiled_catalogs(settings, folder: Path, languages: tuple[str, ...] = ("de",)) -> None:
    """The catalogs of locale/ compiled into `folder` and read from there
    (a checkout keeps only the .po files), so a test sees the translated pages."""
    import subprocess

    for language in languages:
        target = folder / language / "LC_MESSAGES"
        target.mkdir(parents=True, exist_ok=True)
        source = Path(settings.BASE_DIR) / "locale" / language / "LC_MESSAGES" / "django.po"
        subprocess.run(["msgfmt", "-o", str(target / "django.mo"), str(source)], check=True)
    settings.LOCALE_PATHS = [str(folder)]
