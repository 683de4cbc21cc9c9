"""The restore drill of docs/operations.md, on PostgreSQL, with the
commands: `manage.py backup` of a console's data (database, an import's
upload, a Studio ZIP) into one encrypted archive, `manage.py restore` of it
into a fresh database in a process of its own (configured only by its
environment, as a container is), which migrates and runs preflight (every
stored key decrypts); then pages served from the copy. An archive changed
after it was made, one whose keys this console does not hold and one opened
with the wrong passphrase are refused in words, before anything changes.

pg_dump and pg_restore are PostgreSQL's client tools (Debian:
postgresql-client; .ci/run installs them when missing). They must be at
least as new as the server, as pg_dump itself requires.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections
from django.urls import reverse

from dashboard.audit.models import AuditEntry
from dashboard.keys.models import ApiKey
from dashboard.keys.testing import stored_api_key
from dashboard.system.backup import MANIFEST
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


def restore_process(
    archive, *, database: str, keys: list[str], tmp_path, passphrase_file
) -> subprocess.CompletedProcess:
    """`manage.py restore` in a process of its own, configured only by its
    environment, as `docker-compose run --rm web python manage.py restore`."""
    environment = {name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ}
    environment.update(
        DATABASE_URL=database_url(database),
        KEY_ENCRYPTION_KEYS=",".join(keys),
        CELERY_BROKER_URL=f"sqlite:///{tmp_path / 'broker.sqlite3'}",
        CACHE_URL="locmem://",
        OBJECTS_IMPORT_ROOT=str(tmp_path / "restored" / "imports"),
        STUDIO_ZIP_ROOT=str(tmp_path / "restored" / "zips"),
        # Nothing listens there: the service is only ever a warning.
        SERVICE_BASE_URL=f"http://127.0.0.1:{closed_port()}",
    )
    return subprocess.run(
        [sys.executable, "manage.py", "restore", str(archive), "--passphrase-file", str(passphrase_file)]
        + ["--service-timeout", "1"],
        cwd=PROJECT_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_backup_restored_into_a_fresh_database_serves_and_its_keys_decrypt(
    restored_name, settings, django_user_model, tmp_path, client
):
    key_encryption_keys = [Fernet.generate_key().decode()]
    settings.KEY_ENCRYPTION_KEYS = key_encryption_keys
    settings.OBJECTS_IMPORT_ROOT = str(tmp_path / "imports")
    settings.STUDIO_ZIP_ROOT = str(tmp_path / "zips")
    (tmp_path / "imports" / "job-7").mkdir(parents=True)
    (tmp_path / "imports" / "job-7" / "upload.csv").write_text("name\nAda\n")
    (tmp_path / "zips").mkdir()
    (tmp_path / "zips" / "selection-3.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)
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
    passphrase = tmp_path / "passphrase"
    passphrase.write_text("correct horse battery staple\n")

    archive = tmp_path / "backups" / "console.backup"
    call_command("backup", output=str(archive), passphrase_file=str(passphrase), stdout=io.StringIO())
    result = restore_process(
        archive, database=restored_name, keys=key_encryption_keys, tmp_path=tmp_path, passphrase_file=passphrase
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Archive checked" in result.stdout and "Restore done: maintenance is off" in result.stdout
    stored_keys = next(line for line in result.stdout.splitlines() if "stored keys" in line)
    assert stored_keys.split()[0] == "ok" and stored_keys.endswith("all 1 decrypt, in 1 workspace(s)")
    assert SECRET not in result.stdout + result.stderr and SECRET.encode() not in archive.read_bytes()
    assert (tmp_path / "restored" / "imports" / "job-7" / "upload.csv").read_text() == "name\nAda\n"
    assert (tmp_path / "restored" / "zips" / "selection-3.zip").is_file()

    with serving_from(restored_name):
        assert ApiKey.objects.get().secret() == SECRET
        assert SavedView.objects.get(owner__username="operator").name == "Before the backup"
        client.force_login(django_user_model.objects.get(username="operator"))
        keys_page = client.get(reverse("keys:list"))
        audit_page = client.get(reverse("audit:index"))

    assert keys_page.status_code == 200
    row = one(keys_page.content, f"#key-row-{key.pk}")
    assert text_of(one(row, "th")).startswith("Drill key")
    assert select(row, ".badge-danger") == []  # readable, not refused
    assert audit_page.status_code == 200
    cells = [text_of(cell) for cell in select(audit_page.content, "td")]
    assert any("Created a person before the backup" in cell for cell in cells)
    assert any(cell.startswith("req_drill_1") for cell in cells)


def refusal(archive, **options) -> str:
    with pytest.raises(CommandError) as refused:
        call_command("restore", str(archive), stdout=io.StringIO(), **options)
    return str(refused.value)


def test_a_changed_archive_other_keys_and_a_wrong_passphrase_are_refused_before_anything_changes(
    transactional_db, settings, django_user_model, tmp_path
):
    if connection.vendor != "postgresql" or shutil.which("pg_dump") is None:
        missing_service("needs PostgreSQL and pg_dump")
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    settings.OBJECTS_IMPORT_ROOT = str(tmp_path / "imports")
    settings.STUDIO_ZIP_ROOT = str(tmp_path / "zips")
    owner = django_user_model.objects.create_user(username="operator", password="a long drill passphrase")
    stored_api_key(user=owner, secret=SECRET, label="Drill key", workspace_id=WORKSPACE, workspace_name="Drill")
    plain = tmp_path / "plain.backup"
    call_command("backup", output=str(plain), stdout=io.StringIO())
    secret = tmp_path / "passphrase"
    secret.write_text("the right passphrase")
    encrypted = tmp_path / "encrypted.backup"
    call_command("backup", output=str(encrypted), passphrase_file=str(secret), stdout=io.StringIO())

    # The database part changed after the manifest was written: one byte.
    changed = tmp_path / "changed.backup"
    with tarfile.open(plain) as source, tarfile.open(changed, "w") as target:
        for member in source.getmembers():
            data = source.extractfile(member).read()
            if member.name == "database.dump":
                data = data[:-1] + bytes([data[-1] ^ 1])
            target.addfile(member, io.BytesIO(data))
    assert "database.dump does not match the archive's manifest" in refusal(changed)

    wrong = tmp_path / "wrong"
    wrong.write_text("not the passphrase")
    assert "could not be decrypted" in refusal(encrypted, passphrase_file=str(wrong))
    assert "this archive is encrypted: give its passphrase" in refusal(encrypted)

    held = settings.KEY_ENCRYPTION_KEYS[0]
    settings.KEY_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    words = refusal(plain)
    assert "encrypted under key(s) this console does not hold" in words and held not in words

    with tarfile.open(plain) as archive:
        assert MANIFEST in archive.getnames()
    # Nothing changed: the console's own rows are all still there.
    assert ApiKey.objects.filter(user__username="operator").count() == 1
