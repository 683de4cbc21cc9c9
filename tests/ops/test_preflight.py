"""`manage.py preflight`: one line per check (ok, warn, fail, with the fix),
exit code 0 unless something failed, and never a stored key in its output."""

from __future__ import annotations

import json
from io import StringIO

import httpx
import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command
from django.db import connection

from dashboard.keys.testing import stored_api_key
from dashboard.system.preflight import FAIL, PASS, WARN, preflight_report
from tests.helpers import mocked_service
from tests.ops.support import closed_port

SERVICE = "https://service.preflight.test"
SECRET = "svc_sk_preflight_secret_value_1234"
OTHER_SECRET = "svc_sk_preflight_other_value_5678"


@pytest.fixture
def neighbours(settings, tmp_path):
    """A console whose neighbours all answer: the embedded broker in a
    folder of the test's own, the service (401 to a call without a key)."""
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    settings.CELERY_BROKER_URL = f"sqlite:///{tmp_path / 'broker.sqlite3'}"
    settings.OBJECTS_IMPORT_ROOT = str(tmp_path / "imports")
    settings.SERVICE_BASE_URL = SERVICE
    with mocked_service(SERVICE) as remote:
        remote.get("/v1/me").respond(401, json={"error": {"type": "authentication", "message": "No key"}})
        yield remote


def run(*args: str) -> tuple[str, int]:
    """The command's output and exit code, as a shell would see them."""
    out = StringIO()
    try:
        call_command("preflight", *args, stdout=out, no_color=True)
    except CommandError as exc:
        return out.getvalue(), exc.returncode
    return out.getvalue(), 0


def line_of(output: str, name: str) -> str:
    return next(line for line in output.splitlines() if line.split()[1:2] == [name.split()[0]])


@pytest.mark.django_db
def test_every_check_passes_and_keys_are_counted_per_workspace(neighbours, user, other_user):
    stored_api_key(user=user, secret=SECRET, workspace_id="ws-a", workspace_name="Acme")
    stored_api_key(user=other_user, secret=OTHER_SECRET, workspace_id="ws-a", workspace_name="Acme")
    stored_api_key(
        user=user, secret=OTHER_SECRET, workspace_id="ws-b", workspace_name="Beta", key_id="k-b", is_active=False
    )

    output, code = run()

    assert code == 0, output
    report = preflight_report()
    assert [check.name for check in report.checks if check.status != PASS] == []
    keys = report.check("stored keys")
    assert keys.summary == "all 3 decrypt, in 2 workspace(s)"
    assert keys.details == ("Acme: 2 of 2 readable", "Beta: 1 of 1 readable")
    assert report.check("service").summary.startswith(f"{SERVICE} answered")
    assert neighbours.calls.call_count == 2  # one unauthenticated GET per run, no retries
    assert "Authorization" not in neighbours.calls.last.request.headers
    assert line_of(output, "stored keys").startswith("ok")
    assert output.splitlines()[-1] == "All checks passed."
    assert SECRET not in output and OTHER_SECRET not in output


@pytest.mark.django_db
def test_keys_stored_under_a_lost_encryption_key_are_named_by_row_and_owner(neighbours, settings, user, other_user):
    readable = stored_api_key(user=user, secret=SECRET, workspace_name="Acme")
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]  # the old key is gone
    lost = stored_api_key(user=other_user, secret=OTHER_SECRET, workspace_name="Acme")
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]  # ...and so is this one
    stored_api_key(user=other_user, secret=SECRET, workspace_name="Beta", workspace_id="ws-b", key_id="k-2")

    output, code = run()

    keys = preflight_report().check("stored keys")
    # Some keys still work: their owners keep working, the others add theirs again.
    assert (keys.status, code) == (WARN, 0)
    assert keys.summary == (
        f"2 of 3 stored API key(s) do not decrypt: #{readable.pk} (alice, Acme), #{lost.pk} (bob, Acme)"
    )
    assert "KEY_ENCRYPTION_KEYS they were stored under" in keys.fix
    assert keys.details == ("Acme: 0 of 2 readable", "Beta: 1 of 1 readable")
    assert line_of(output, "stored keys").startswith("WARN")
    assert SECRET not in output and OTHER_SECRET not in output


@pytest.mark.django_db
def test_a_key_list_that_opens_no_stored_key_fails(neighbours, settings, user, other_user):
    stored_api_key(user=user, secret=SECRET)
    stored_api_key(user=other_user, secret=OTHER_SECRET)
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]  # a restore with the wrong .env

    output, code = run()

    assert code == 1
    assert line_of(output, "stored keys").startswith("FAIL")
    assert "do not serve yet" in output.splitlines()[-1]
    assert SECRET not in output and OTHER_SECRET not in output


@pytest.mark.django_db
def test_a_rotation_is_a_warning_until_every_key_is_under_the_newest(neighbours, settings, user):
    old = settings.KEY_ENCRYPTION_KEYS[0]
    stored_api_key(user=user, secret=SECRET)
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode(), old]  # the new key first

    keys = preflight_report().check("stored keys")
    assert (keys.status, keys.summary) == (WARN, "all 1 decrypt; 1 still under an older encryption key")
    assert "rotate_key_encryption" in keys.fix
    assert run()[1] == 0  # a warning does not stop the console

    call_command("rotate_key_encryption", stdout=StringIO())

    assert preflight_report().check("stored keys").status == PASS


@pytest.mark.django_db
def test_a_key_list_with_a_bad_entry_fails_by_position_never_by_value(neighbours, settings):
    good = Fernet.generate_key().decode()
    settings.KEY_ENCRYPTION_KEYS = [good, "not-a-fernet-key-at-all"]

    output, code = run("--json")

    assert code == 1
    check = next(item for item in json.loads(output)["checks"] if item["name"] == "KEY_ENCRYPTION_KEYS")
    assert check["status"] == FAIL
    assert check["summary"].startswith("entry #2 of 2 is not a Fernet key")
    assert "not-a-fernet-key-at-all" not in output and good not in output


@pytest.mark.django_db
def test_broker_down_fails_and_service_down_only_warns(neighbours, settings):
    settings.CELERY_BROKER_URL = f"redis://:broker-password@127.0.0.1:{closed_port()}/0"
    neighbours.get("/v1/me").mock(side_effect=httpx.ConnectError("refused"))

    output, code = run("--json")

    assert code == 1
    body = json.loads(output)
    statuses = {check["name"]: check["status"] for check in body["checks"]}
    assert statuses["broker"] == FAIL
    # The console serves while the service is down (pages name the cause); a
    # preflight failing on an outage would keep it down as long.
    assert statuses["service"] == WARN
    assert [check["name"] for check in body["checks"] if check["status"] == FAIL] == ["broker"]
    assert "broker-password" not in output


@pytest.mark.django_db
def test_a_database_migrated_by_a_newer_console_fails(neighbours):
    with connection.cursor() as cursor:
        # A migration squashed and deleted since leaves its row behind: not news.
        cursor.execute(
            "INSERT INTO django_migrations (app, name, applied) VALUES ('keys', '0000_squashed_away', now())"
        )
        cursor.execute(
            "INSERT INTO django_migrations (app, name, applied) VALUES ('keys', '9999_from_a_newer_console', now())"
        )

    migrations = preflight_report().check("migrations")

    assert migrations.status == FAIL
    assert migrations.summary == (
        "the database has 1 migration(s) this code does not know: keys.9999_from_a_newer_console"
    )
    assert "CHANGELOG.md" in migrations.fix


@pytest.mark.django_db
def test_an_imports_folder_that_cannot_be_written_fails(neighbours, settings, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    settings.OBJECTS_IMPORT_ROOT = str(blocker / "imports")

    imports = preflight_report().check("imports folder")

    assert imports.status == FAIL
    assert "OBJECTS_IMPORT_ROOT" in imports.fix


@pytest.mark.django_db
def test_production_settings_that_cannot_serve_safely_fail(neighbours, settings):
    settings.PRODUCTION = True
    settings.DEBUG = True
    settings.SECRET_KEY = "short"
    settings.ALLOWED_HOSTS = []
    settings.SERVICE_BASE_URL = settings.SANDBOX_BASE_URL
    settings.CSP_IMG_HOSTS = ["https:"]

    report = preflight_report()

    statuses = {check.name: check.status for check in report.checks}
    assert {
        name: statuses[name] for name in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "SERVICE_BASE_URL", "broker")
    } == {
        "DEBUG": FAIL,
        "SECRET_KEY": FAIL,
        "ALLOWED_HOSTS": FAIL,
        "SERVICE_BASE_URL": FAIL,
        # The development SQLite broker is not in the production image.
        "broker": FAIL,
    }
    assert statuses["CSP_IMG_HOSTS"] == WARN
    assert "short" not in report.check("SECRET_KEY").summary
    # No EMAIL_URL: invitations and resets would go to localhost:25.
    assert statuses["email"] == WARN


@pytest.mark.django_db
def test_production_with_a_mail_server_passes_the_email_check(neighbours, settings):
    settings.PRODUCTION = True
    settings.EMAIL_CONFIGURED = True
    settings.EMAIL_HOST = "smtp.example.com"
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"

    email = preflight_report().check("email")

    assert (email.status, email.summary) == (PASS, "EmailBackend via smtp.example.com")


@pytest.mark.django_db
def test_before_an_upgrade_pending_migrations_are_expected(neighbours, monkeypatch):
    from django.db.migrations.executor import MigrationExecutor

    pending = MigrationExecutor(connection).loader.graph.nodes[("keys", "0001_initial")]
    monkeypatch.setattr(MigrationExecutor, "migration_plan", lambda self, targets: [(pending, False)])

    assert preflight_report().check("migrations").status == FAIL
    upgrade = preflight_report(before_migrate=True).check("migrations")
    assert (upgrade.status, upgrade.summary) == (WARN, "1 pending: keys.0001_initial")


@pytest.mark.django_db
def test_a_cache_that_keeps_nothing_fails(neighbours, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}

    cache = preflight_report().check("cache")

    assert (cache.status, cache.summary) == (FAIL, "keeps nothing (a value written was not read back)")


@pytest.mark.django_db
def test_production_refuses_the_example_and_well_known_passwords(neighbours, settings, monkeypatch):
    settings.PRODUCTION = True
    # compose's old default for an empty POSTGRES_PASSWORD, and the docs' placeholders.
    monkeypatch.setitem(connection.settings_dict, "PASSWORD", "console")
    settings.CELERY_BROKER_URL = "redis://:changeme@redis:6379/0"
    settings.CACHES = {"default": {**settings.CACHES["default"], "LOCATION": "redis://:Password@redis:6379/1"}}
    settings.EMAIL_HOST_PASSWORD = "a-real-one-" + Fernet.generate_key().decode()
    settings.SECRET_KEY = "please-change-me-" + Fernet.generate_key().decode() + Fernet.generate_key().decode()

    output, code = run()

    assert code == 1
    check = preflight_report().check("default passwords")
    assert check.status == FAIL
    assert check.summary.startswith("CACHE_URL, CELERY_BROKER_URL, DATABASE_URL, SECRET_KEY: ")
    assert "EMAIL_URL" not in check.summary
    assert "default passwords" in line_of(output, "default") and "FAIL" in line_of(output, "default").upper()
    # Named by setting, never by value.
    for value in ("console", "changeme", "Password", "please-change-me"):
        assert value not in check.summary


@pytest.mark.django_db
def test_real_passwords_pass_and_development_is_not_checked(neighbours, settings, monkeypatch):
    monkeypatch.setitem(connection.settings_dict, "PASSWORD", "console")
    assert "default passwords" not in [check.name for check in preflight_report().checks]

    settings.PRODUCTION = True
    monkeypatch.setitem(connection.settings_dict, "PASSWORD", "x7-" + Fernet.generate_key().decode())

    check = preflight_report().check("default passwords")

    assert (check.status, check.summary) == (PASS, "none of the example or well-known ones")
