"""Fixtures shared by every test folder.

Folder-specific fixtures live in each folder's own conftest.py; fixtures that
several folders share live in fixture modules registered below (pytest reads
`pytest_plugins` only from this top-level conftest). Plain helpers and
constants live in ordinary modules (tests/helpers.py, each folder's
support.py) that tests import; no test imports a conftest.
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.test.utils import override_settings

from tests.helpers import PASSWORD, missing_service, mocked_service, running_sandbox

# Fixtures shared by tests/live, tests/studio and tests/agents (a fake service
# address, stored keys, tracked turns). None is autouse: each of those folders
# switches the fake service on for its tests in its own conftest.py.
# tests.outbox.fixtures: the broker down (a closed port) and back, and the
# remote writes seen with their Idempotency-Key, for every area's start tests.
# tests.workers: a real Celery worker (in the test's process or processes of
# its own) on a real Redis, for the folders that need one.
pytest_plugins = ["tests.live.fixtures", "tests.outbox.fixtures", "tests.workers"]

# Playwright's sync API runs an event loop in the test thread; the ORM calls
# of browser tests are synchronous and safe here.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

PLAIN_STATIC_STORAGE = "django.contrib.staticfiles.storage.StaticFilesStorage"
CHROMIUM_PATH = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session", autouse=True)
def plain_static_files():
    """Tests never run collectstatic: static files keep their own names and
    come from the finders (the browser tests' live server serves only those),
    whatever a `make run` left in staticfiles/. tests/ops/test_static_files.py
    collects into a folder of its own to check the hashed storage."""
    storages = {**settings.STORAGES, "staticfiles": {"BACKEND": PLAIN_STATIC_STORAGE}}
    with override_settings(STORAGES=storages):
        yield


# Django's default hasher (PBKDF2, a million rounds) takes 0.3-0.6 s a password
# on CI's cores, paid by every `user` fixture and every login: the suite hashed
# for minutes. Tests check who may log in, not the hash's cost.
FAST_PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashes():
    """Every test hashes passwords with a fast hasher (production keeps
    Django's default: dashboard/settings.py sets none)."""
    with override_settings(PASSWORD_HASHERS=FAST_PASSWORD_HASHERS):
        yield


@pytest.fixture(scope="session", autouse=True)
def emptied_by_delete():
    """After a transactional test the tables are emptied with DELETE rather
    than TRUNCATE: the same empty tables in a tenth of the time (tests/database.py)."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    from tests.database import delete_statements

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DatabaseOperations, "sql_flush", delete_statements(DatabaseOperations.sql_flush))
        yield


@pytest.fixture(scope="session", autouse=True)
def fair_use_off():
    """A test client asks for pages far faster than a person (a volume test,
    hypothesis' examples, every URL of the console): the fair-use allowances
    (dashboard/fair_use.py) are off, except where tests/accounts/test_fair_use.py
    turns them on to test them."""
    with override_settings(FAIR_USE_ENABLED=False):
        yield


@pytest.fixture(scope="session", autouse=True)
def step_up_off():
    """The suite's decision tests approve destructive and spend actions as
    people without a second factor: the step-up (dashboard/accounts/step_up.py) is off,
    except where tests/agents/test_step_up.py and test_quorum.py turn it on."""
    with override_settings(STEP_UP_RISKS=[]):
        yield


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not os.path.exists(CHROMIUM_PATH):
        missing_service(f"no Chromium at {CHROMIUM_PATH}")
    return {**browser_type_launch_args, "executable_path": CHROMIUM_PATH, "args": CHROMIUM_FLAGS}


@pytest.fixture(autouse=True)
def fresh_cache():
    """Every test starts with an empty cache: counters of throttles (key checks)
    and cached remote definitions never carry over from another test."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def key_recheck_interval(settings):
    """A stored key is asked again (KEY_RECHECK_SECONDS) an hour after its last
    check here, not a minute: a test that counts remote calls must not depend
    on how long a loaded machine takes to reach its count. The re-check's own
    tests set the interval they test (tests/keys/test_recheck.py,
    test_revoked_member.py, test_revoked_browser.py)."""
    settings.KEY_RECHECK_SECONDS = 3600.0


@pytest.fixture
def page(page):
    """pytest-playwright's page, with axe-core checking every document it
    loads and every htmx swap (tests/axe.py): serious or critical
    violations fail the test."""
    from playwright.sync_api import expect

    from tests.axe import check_now, watch_with_axe

    # A state the page reaches: waited for up to 10 s rather than Playwright's 5 s.
    # CI runs the browser, the live server, the sandbox and worker threads on two
    # cores; a wrong state still fails, only later.
    expect.set_options(timeout=10_000)

    watch = watch_with_axe(page)
    yield page
    check_now(page, watch)
    failures = watch.failures()
    if failures:
        pytest.fail("axe found serious or critical accessibility violations:\n" + "\n".join(failures))


@pytest.fixture(scope="session")
def sandbox():
    """A real sandbox server over HTTP on a free port, in-memory storage,
    near-instant time scale. Yields a handle with `.base_url`,
    `.mint_key(kind)` and `.advance(service_seconds=...)` (see
    sandbox/testing.py); an advance moves this clock for every later test too,
    which only ever finishes work sooner."""
    with running_sandbox() as handle:
        yield handle


@pytest.fixture
def remote(settings):
    """respx routes for the fake service address a folder's autouse settings
    fixture set (autouse fixtures run first)."""
    with mocked_service(settings.SERVICE_BASE_URL) as mock:
        yield mock


@pytest.fixture
def user(db, django_user_model):
    return django_user_model.objects.create_user(username="alice", password=PASSWORD)


@pytest.fixture
def other_user(db, django_user_model):
    return django_user_model.objects.create_user(username="bob", password="another long passphrase")


@pytest.fixture
def logged_in_client(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def eager_celery():
    """Tasks sent with .delay() run at once in this thread."""
    from dashboard.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield app
    finally:
        app.conf.task_always_eager = before


@pytest.fixture
def poller(eager_celery):
    """Runs the real `live.tick` (tasks inline) in a thread every 0.2 s until
    the test ends, standing in for Celery beat and a worker (browser tests)."""
    import threading

    from django.db import connection

    from dashboard.live.tasks import tick

    stop = threading.Event()

    def run():
        try:
            while not stop.is_set():
                tick()
                stop.wait(0.2)
        finally:
            connection.close()

    thread = threading.Thread(target=run, name="test-poller", daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join(timeout=10)


@pytest.fixture
def smtp_server():
    """A real SMTP server on a free local port, keeping what it receives."""
    import socket

    from aiosmtpd.controller import Controller

    class Keep:
        def __init__(self):
            self.received = []

        async def handle_DATA(self, server, session, envelope):
            self.received.append(envelope)
            return "250 OK"

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    handler = Keep()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()
