"""The restore drill of docs/operations.md, on PostgreSQL: data made through
the console's models, `pg_dump` of the database, `pg_restore` into a fresh
one, `manage.py preflight` against the copy in a process of its own (every
stored key decrypts with the same KEY_ENCRYPTION_KEYS), and pages served
from the copy. The same dump with other encryption keys is refused, naming
the rows: a dump without its keys restores no stored API key.

pg_dump and pg_restore are PostgreSQL's client tools (Debian:
postgresql-client; .ci/run installs them when missing). They must be at
least as new as the server, as pg_dump itself requires.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from cryptography.fernet import Fernet
from django.db import connection, connections
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.keys.models import ApiKey
from dashboard.keys.testing import stored_api_key
from dashboard.system.preflight import FAIL, PASS, preflight_report
from objects.models import SavedView
from tests.helpers import PROJECT_DIR, missing_service
from tests.html import one, select, text_of
from tests.ops.support import closed_port

pytestmark = pytest.mark.postgres

SECRET = "svc_sk_restore_drill_secret_0042"
WORKSPACE = "ws-drill"


def database_url(name: str) -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}"


def client_tool(name: str, *args: str) -> subprocess.CompletedProcess:
    """pg_dump/pg_restore against the test server, as an operator runs them."""
    db = connection.settings_dict
    env = {**os.environ, "PGPASSWORD": db["PASSWORD"] or ""}
    where = ["--host", db["HOST"] or "127.0.0.1", "--port", str(db["PORT"] or 5432), "--username", db["USER"]]
    result = subprocess.run([name, *where, *args], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{name} failed: {result.stderr}"
    return result


@contextmanager
def serving_from(name: str) -> Iterator[None]:
    """The default database connection pointed at another database for a while
    (what DATABASE_URL does to a console process), then back."""
    default = connections["default"]
    original = default.settings_dict["NAME"]
    default.close()
    default.settings_dict["NAME"] = name
    try:
        yield
    finally:
        default.close()
        default.settings_dict["NAME"] = original


@pytest.fixture
def restored_name(transactional_db) -> Iterator[str]:
    """A fresh database's name beside the test database, dropped afterwards."""
    if connection.vendor != "postgresql":
        missing_service("needs PostgreSQL (DATABASE_URL=postgres://...)")
    missing = [tool for tool in ("pg_dump", "pg_restore") if shutil.which(tool) is None]
    if missing:
        missing_service(f"{' and '.join(missing)} not installed (Debian: apt-get install postgresql-client)")
    name = f"{connection.settings_dict['NAME']}_restored"
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cursor.execute(f'CREATE DATABASE "{name}"')
    yield name
    connections["default"].close()
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_dump_restored_into_a_fresh_database_passes_preflight_and_serves(
    restored_name, settings, django_user_model, tmp_path, client
):
    key_encryption_keys = [Fernet.generate_key().decode()]
    settings.KEY_ENCRYPTION_KEYS = key_encryption_keys
    # What the console's database holds and the service does not.
    owner = django_user_model.objects.create_superuser(username="operator", password="a long drill passphrase")
    key = stored_api_key(user=owner, secret=SECRET, label="Drill key", workspace_id=WORKSPACE, workspace_name="Drill")
    AuditEntry.objects.create(
        user=owner,
        username=owner.username,
        workspace_id=WORKSPACE,
        key_label=key.masked,
        area="objects",
        method="POST",
        path="/v1/objects/people/records",
        status=201,
        request_id="req_drill_1",
        summary="Created a person before the backup",
    )
    SavedView.objects.create(owner=owner, workspace_id=WORKSPACE, object_key="people", name="Before the backup")

    dump = tmp_path / "console.dump"
    client_tool("pg_dump", "--format=custom", "--no-owner", "--file", str(dump), connection.settings_dict["NAME"])
    client_tool("pg_restore", "--no-owner", "--exit-on-error", "--dbname", restored_name, str(dump))

    # Preflight in a process of its own, configured only by its environment,
    # as `docker-compose run --rm web python manage.py preflight` after a restore.
    environment = {name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ}
    environment.update(
        DATABASE_URL=database_url(restored_name),
        KEY_ENCRYPTION_KEYS=",".join(key_encryption_keys),
        CELERY_BROKER_URL=f"sqlite:///{tmp_path / 'broker.sqlite3'}",
        CACHE_URL="locmem://",
        OBJECTS_IMPORT_ROOT=str(tmp_path / "imports"),
        # Nothing listens there: the service is only ever a warning.
        SERVICE_BASE_URL=f"http://127.0.0.1:{closed_port()}",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "preflight", "--json", "--service-timeout", "1"],
        cwd=PROJECT_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    checks = {check["name"]: check for check in json.loads(result.stdout)["checks"]}
    assert checks["migrations"]["status"] == PASS
    assert (checks["stored keys"]["status"], checks["stored keys"]["summary"]) == (
        PASS,
        "all 1 decrypt, in 1 workspace(s)",
    )
    assert SECRET not in result.stdout + result.stderr

    with serving_from(restored_name):
        assert ApiKey.objects.get().secret() == SECRET
        assert SavedView.objects.get(owner__username="operator").name == "Before the backup"

        client.force_login(django_user_model.objects.get(username="operator"))
        keys_page = client.get(reverse("keys:list"))
        audit_page = client.get(reverse("audit:index"))

        # Without the encryption keys the dump holds no usable API key.
        settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
        keys = preflight_report(service_timeout=0.5).check("stored keys")

    assert keys_page.status_code == 200
    row = one(keys_page.content, f"#key-row-{key.pk}")
    assert text_of(one(row, "th")).startswith("Drill key")
    assert select(row, ".badge-danger") == []  # readable, not refused
    assert audit_page.status_code == 200
    cells = [text_of(cell) for cell in select(audit_page.content, "td")]
    assert any("Created a person before the backup" in cell for cell in cells)
    assert any(cell.startswith("req_drill_1") for cell in cells)
    assert keys.status == FAIL
    assert keys.summary == f"1 of 1 stored API key(s) do not decrypt: #{key.pk} (operator, Drill)"
